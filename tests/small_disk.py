"""A real small file system for the full-disk and read-only tests: a tmpfs mounted by the test.

Mounting needs root (CI runs as root). Elsewhere the tests are skipped with the reason shown, except
under CI, where a test that cannot get its file system fails instead of passing by skipping.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from tests.ci import missing


class SmallDisk:
    """A tmpfs of `size` at `path`: fill it, free it, make it read-only."""

    def __init__(self, path: Path, size: str) -> None:
        self.path = path
        self.filler = path / "filler"
        path.mkdir(parents=True, exist_ok=True)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(path)],
                                 capture_output=True, text=True)
        if mounted.returncode != 0:
            why = f"cannot mount a tmpfs: {mounted.stderr.strip() or mounted.returncode}"
            missing(why)

    def fill(self) -> None:
        """Fill what is left with one file, to the last byte (a tmpfs refuses the next page)."""
        with open(self.filler, "ab", buffering=0) as out:
            chunk = b"\0" * 4096
            try:
                while True:
                    out.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
        with suppress(OSError), open(self.filler, "ab", buffering=0) as out:  # the last bytes, one by one
            while True:
                out.write(b"\0")

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def read_only(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.path)], check=True, capture_output=True)

    def files(self) -> list[str]:
        """Every file and folder on the disk but the filler, relative to it (what a failed write left)."""
        return sorted(str(p.relative_to(self.path)) for p in self.path.rglob("*") if p != self.filler)

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """A 256 KiB tmpfs: room for a record and a few files, not for a whole export."""
    if os.geteuid() != 0:
        why = "mounting a tmpfs (a real small disk) needs root; CI runs as root"
        missing(why)
    disk = SmallDisk(tmp_path / "disk", "256k")
    yield disk
    disk.unmount()
