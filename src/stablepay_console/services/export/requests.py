"""Headless RFI export: every request matching a filter, all pages, to CSV or JSON.

No Textual here: the TUI calls `export_rfis` from a worker and passes a progress
callback; a script can call it the same way. The file is written beside its
final name as `<name>.part` and renamed only once complete, so a cancelled, failed
or terminated export leaves nothing behind. Paging trusts nothing the server says
(see `api.paging`); the result says what happened (`ExportResult.summary`, `.warning`).
Rows and cells are in `export_rows` (CSV through the one cell guard).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from stablepay_console.api.client import StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.paging import PagingReport
from stablepay_console.services.export.rows import CSV_COLUMNS, RowWriter, csv_row
from stablepay_console.storage.writing import part_file

__all__ = [
    "CSV_COLUMNS",
    "FORMATS",
    "ExportResult",
    "ExportTerminated",
    "RfiFilters",
    "csv_row",
    "default_export_name",
    "export_rfis",
    "resolve_export_path",
]

FORMATS = ("csv", "json")

Progress = Callable[[int, int], None]
"""Called with (records written so far, total expected); total grows if the server's does."""


class ExportTerminated(KeyboardInterrupt):
    """SIGTERM stopped a headless export; nothing was written (a command treats it as Ctrl+C)."""


@dataclass(frozen=True)
class ExportResult:
    path: Path
    count: int
    fmt: str
    paging: PagingReport = field(default_factory=PagingReport)
    created_after: datetime | None = None
    created_before: datetime | None = None
    outside_range: int = 0
    """Requests fetched but not written because their creation time is outside the date range."""

    @property
    def duplicates(self) -> int:
        return self.paging.duplicates

    @property
    def reread(self) -> int:
        return self.paging.reread_pages

    @property
    def has_range(self) -> bool:
        return self.created_after is not None or self.created_before is not None

    def summary(self) -> str:
        """`Exported 245 requests · 3 duplicates skipped · 1 page re-read` (and the date range, when one was asked)."""
        parts = [
            f"Exported {self.count:,} {_plural(self.count, 'request')}{self._range_words()}",
            f"{self.duplicates:,} {_plural(self.duplicates, 'duplicate')} skipped",
            f"{self.reread:,} {_plural(self.reread, 'page')} re-read",
        ]
        if self.has_range:
            parts.append(f"{self.outside_range:,} outside the range left out")
        if self.paging.date_range_stop and self.created_after is not None:
            parts.append(f"paging stopped once past {_day(self.created_after)} (the list is newest first)")
        return " · ".join(parts)

    def warning(self) -> str | None:
        """Why the count may not be the whole list: it differs from the server's total, or the walk was cut."""
        p = self.paging
        if p.capped:
            return f"Stopped at {self.count:,} requests, the most one export writes; the server's total is {p.total:,}."
        if self.has_range or not p.total_differs:
            return None  # with a date range the server's total counts the whole list, not the range
        return (
            f"The server's total says {p.total:,} but {p.delivered:,} distinct requests came; "
            f"paging stopped: {p.stopped or 'the end'}. The file holds what the server actually sent."
        )

    def _range_words(self) -> str:
        if self.created_after is not None and self.created_before is not None:
            return f" created from {_day(self.created_after)} to before {_day(self.created_before)}"
        if self.created_after is not None:
            return f" created on or after {_day(self.created_after)}"
        if self.created_before is not None:
            return f" created before {_day(self.created_before)}"
        return ""


def _plural(count: int, noun: str) -> str:
    return noun if count == 1 else noun + "s"


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment.hour or moment.minute else moment.strftime("%Y-%m-%d")


def default_export_name(filters: RfiFilters, fmt: str, now: datetime) -> str:
    """`rfis-issued-transaction-20261120-093000.csv`"""
    return f"rfis-{filters.slug()}-{now.strftime('%Y%m%d-%H%M%S')}.{fmt}"


def resolve_export_path(text: str, fmt: str, default_name: str, cwd: Path | None = None) -> Path:
    """Where to write, from what a person typed (blank: the default name in the current directory).

    A directory gets the default name inside it; a name without an extension gets the format's.
    Refuses an existing file, a missing parent directory and a path the file system cannot take
    (ValueError says which).
    """
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}.")
    base = cwd if cwd is not None else Path.cwd()
    typed = text.strip()
    path = Path(typed).expanduser() if typed else Path(default_name)
    if not path.is_absolute():
        path = base / path
    try:
        if path.is_dir():
            path = path / default_name
        if not path.suffix:
            path = path.with_suffix(f".{fmt}")
        exists, parent_ok = path.exists(), path.parent.is_dir()
    except OSError as exc:  # a name too long for the file system, say
        raise ValueError(f"This path cannot be used: {exc.strerror or exc}.") from None
    if exists:
        raise ValueError(f"{path} already exists; choose another name.")
    if not parent_ok:
        raise ValueError(f"The folder {path.parent} does not exist.")
    return path


@contextmanager
def _sigterm_cancels(enabled: bool) -> Iterator[list[bool]]:
    """While the export runs, SIGTERM cancels it (so the `.part` file is removed) instead of killing the process.

    Only in the main thread, and only when nothing else handles SIGTERM (the console has its own way out).
    """
    fired: list[bool] = []
    task = asyncio.current_task()
    if (
        not enabled
        or task is None
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield fired
        return
    loop = asyncio.get_running_loop()

    def terminate() -> None:
        fired.append(True)
        task.cancel()

    loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        yield fired
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


async def export_rfis(
    client: StablePayClient,
    path: Path,
    fmt: str,
    filters: RfiFilters,
    progress: Progress | None = None,
    page_size: int = 100,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    stop_on_sigterm: bool = False,
) -> ExportResult:
    """Write every RFI matching `filters` (and created in [created_after, created_before)) to `path`, newest first.

    The API has no date filter and lists newest first: paging stops after a page wholly older than
    `created_after`. Raises the client's APIError (or NotWritten, an OSError) on failure, and lets cancellation
    through (ExportTerminated on SIGTERM when `stop_on_sigterm`); either way no file is left at
    `path` or beside it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}.")
    if created_after is not None and created_before is not None and created_after >= created_before:
        raise ValueError("The date range is empty: the start must come before the end.")
    with _sigterm_cancels(stop_on_sigterm) as terminated:
        try:
            return await _export(client, path, fmt, filters, progress, page_size, created_after, created_before)
        except asyncio.CancelledError:
            if terminated:
                raise ExportTerminated("the export was terminated") from None
            raise


async def _export(
    client: StablePayClient,
    path: Path,
    fmt: str,
    filters: RfiFilters,
    progress: Progress | None,
    page_size: int,
    created_after: datetime | None,
    created_before: datetime | None,
) -> ExportResult:
    report = progress or (lambda done, total: None)
    # One small request first, so progress can say "of N" from the start.
    probe = await client.list_rfis(filters, limit=1, offset=0)
    total = probe.pagination.total
    report(0, total)
    paging = PagingReport()
    outside = 0
    with part_file(path, "the export") as out:  # a failed or cancelled export leaves nothing behind
        writer = RowWriter(out, fmt)
        writer.start()
        rfis = client.iter_rfis(filters, page_size=page_size, report=paging, older_than=created_after)
        async with aclosing(rfis):  # pages still in flight are cancelled on the way out
            async for rfi in rfis:
                if (created_after is not None and rfi.created_at < created_after) or (
                    created_before is not None and rfi.created_at >= created_before
                ):
                    outside += 1
                    continue
                writer.write(rfi)
                total = max(total, writer.count)
                if writer.count % 20 == 0 or writer.count == total:
                    report(writer.count, total)
        writer.finish()
    report(writer.count, max(total, writer.count))
    return ExportResult(
        path=path, count=writer.count, fmt=fmt, paging=paging, created_after=created_after,
        created_before=created_before, outside_range=outside,
    )
