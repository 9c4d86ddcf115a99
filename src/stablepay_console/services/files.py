"""Writing a file so that a half-written one never stands under its final name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


def part_path(path: Path) -> Path:
    return path.with_name(path.name + ".part")


@contextmanager
def part_file(path: Path) -> Iterator[IO[str]]:
    """Write `<path>.part`, rename it to `path` once complete; on any failure or cancellation remove it.

    Never overwrites: an existing `path` (or a `.part` left by another writer) is refused by the
    exclusive open.
    """
    part = part_path(path)
    try:
        with part.open("x", encoding="utf-8", newline="") as out:
            yield out
        if path.exists():
            raise FileExistsError(f"{path} appeared while it was being written; the new file was not kept.")
        part.replace(path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
