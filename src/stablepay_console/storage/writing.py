"""Writing files so that a full, read-only or forbidden disk costs one clear line: never a traceback,
never a half-written file.

Every place the console writes (exports, metric CSVs, evidence packs, state and preference files, the
log) goes through `write_atomically` or `part_file`, or turns the OSError it meets into `NotWritten`
with `not_written`. `NotWritten`'s message is the line to show: what was not written, where, and why
("the disk is full").
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}
"""The errors a disk gives that the user can act on, in plain words."""


def reason(exc: OSError) -> str:
    """Why a write failed, in a few plain words."""
    if exc.errno in REASONS:
        return REASONS[exc.errno]
    return (exc.strerror or type(exc).__name__).lower()


class NotWritten(OSError):
    """`what` could not be written to `where`; str() is the one line that says so."""

    def __init__(self, what: str, where: Path | str, cause: OSError) -> None:
        self.what = what
        self.where = str(where)
        self.line = f"Could not write {what} to {where}: {reason(cause)}."
        super().__init__(cause.errno, self.line)

    def __str__(self) -> str:
        return self.line


def not_written(what: str, where: Path | str, exc: OSError) -> NotWritten:
    """`exc` as a NotWritten (itself, if it already is one)."""
    return exc if isinstance(exc, NotWritten) else NotWritten(what, where, exc)


def write_atomically(path: Path, text: str, what: str, mode: int = 0o600) -> None:
    """Write `text` to `path` in full or not at all: through a temporary file in the same folder, renamed
    over `path` once complete. On any failure the temporary file is removed and NotWritten raised."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())  # a crash after the rename never leaves an empty file under the name
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)
        raise not_written(what, path, exc) from None


AT_FDCWD = -100
RENAME_NOREPLACE = 1
"""renameat2(2): fail with EEXIST instead of replacing the target."""
NO_SUCH_FLAG = (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP)
"""What renameat2 says on a file system (or kernel) that cannot rename without replacing."""


def _load_renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library without it (glibc before 2.28)
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


_renameat2 = _load_renameat2()


def rename_no_replace(source: Path, target: Path) -> None:
    """Give `source` the name `target` unless `target` exists (FileExistsError), in one step of the file
    system: no other writer can put a file at `target` between a check and the rename, because there is no
    check. renameat2 with RENAME_NOREPLACE where the kernel and file system have it; else a hard link (which
    refuses an existing name too) and the removal of `source`."""
    if _renameat2 is not None:
        if _renameat2(AT_FDCWD, os.fsencode(source), AT_FDCWD, os.fsencode(target), RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in NO_SUCH_FLAG:
            raise OSError(code, os.strerror(code), str(target))  # EEXIST is a FileExistsError
    os.link(source, target)
    with suppress(OSError):  # the file is in place under its name: a second name left behind harms nothing
        os.unlink(source)


def part_path(path: Path) -> Path:
    return path.with_name(path.name + ".part")


@contextmanager
def part_file(path: Path, what: str = "the file") -> Iterator[IO[str]]:
    """Write `<path>.part`, rename it to `path` once complete; on any failure or cancellation remove it.

    Never overwrites: an existing `.part` (left by another writer, which is left alone) is refused by the
    exclusive open, and a `path` that exists at the end, even one that appeared a moment before, by the
    rename that never replaces (FileExistsError). An OSError while writing is raised as NotWritten.
    """
    part = part_path(path)
    created = False
    try:
        with part.open("x", encoding="utf-8", newline="") as out:
            created = True
            yield out
        try:
            rename_no_replace(part, path)
        except FileExistsError:
            raise FileExistsError(f"{path} appeared while it was being written; the new file was not kept.") from None
    except BaseException as exc:
        if created:
            with suppress(OSError):
                part.unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, FileExistsError):
            raise not_written(what, path, exc) from None
        raise


class NotWrittenBoard:
    """Where background writes (the log, the record's batches) say what they could not write: each line
    once per process, to whoever listens (the console's notifications, a command's standard error), so a
    disk that stays full gives one line, not one per row or per log record."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.lines: list[str] = []
        """Every line posted, in order (a command exits 1 when there is any)."""
        self._listener: Callable[[str], None] | None = None
        self._untold: list[str] = []

    def post(self, line: str) -> None:
        with self._lock:
            if line in self.lines:
                return
            self.lines.append(line)
            listener = self._listener
            if listener is None:
                self._untold.append(line)
        if listener is not None:
            listener(line)

    def reset(self) -> None:
        """Forget every line and listener (tests run many consoles in one process)."""
        with self._lock:
            self.lines, self._untold, self._listener = [], [], None

    def listen(self, listener: Callable[[str], None] | None) -> None:
        """Tell `listener` every line from now on, and at once those nobody was told yet."""
        with self._lock:
            self._listener = listener
            untold, self._untold = (self._untold, []) if listener is not None else ([], self._untold)
        for line in untold:
            listener(line)  # type: ignore[misc]


NOT_WRITTEN = NotWrittenBoard()
