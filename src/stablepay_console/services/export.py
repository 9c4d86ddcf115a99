"""Headless RFI export: every request matching a filter, all pages, to CSV or JSON.

No Textual here: the TUI calls `export_rfis` from a worker and passes a progress
callback; a script can call it the same way. The file is written beside its
final name as `<name>.part` and renamed only once complete, so a cancelled or
failed export leaves nothing behind.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from stablepay_console.api.client import StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import Rfi
from stablepay_console.api.paging import PagingReport

FORMATS = ("csv", "json")

CSV_COLUMNS = (
    "id",
    "kind",
    "status",
    "subjectType",
    "userId",
    "transferId",
    "flowType",
    "createdAt",
    "currentRound",
    "roundId",
    "roundIssuedAt",
    "roundExpiresAt",
    "roundSubmittedAt",
    "itemCount",
    "requiredItemCount",
    "link",
)

Progress = Callable[[int, int], None]
"""Called with (records written so far, total expected); total grows if the server's does."""

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class ExportResult:
    path: Path
    count: int
    fmt: str
    paging: PagingReport = field(default_factory=PagingReport)

    @property
    def duplicates(self) -> int:
        return self.paging.duplicates

    @property
    def reread(self) -> int:
        return self.paging.reread_pages

    def summary(self) -> str:
        """`Exported 245 requests · 3 duplicates skipped · 1 page re-read`."""
        return " · ".join(
            (
                f"Exported {self.count:,} {_plural(self.count, 'request')}",
                f"{self.duplicates:,} {_plural(self.duplicates, 'duplicate')} skipped",
                f"{self.reread:,} {_plural(self.reread, 'page')} re-read",
            )
        )

    def warning(self) -> str | None:
        """Why the count may not be the whole list, when it differs from the server's total (or the walk was cut)."""
        p = self.paging
        if p.capped:
            return f"Stopped at {self.count:,} requests, the most one export writes; the server's total is {p.total:,}."
        if not p.total_differs:
            return None
        return (
            f"The server's total says {p.total:,} but {p.delivered:,} distinct requests came; "
            f"paging stopped: {p.stopped or 'the end'}. The file holds what the server actually sent."
        )


def _plural(count: int, noun: str) -> str:
    return noun if count == 1 else noun + "s"


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


def _cell(value: Any) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    if value is None:
        return ""
    text = value.isoformat() if isinstance(value, datetime) else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_row(rfi: Rfi) -> list[str]:
    r = rfi.round
    values: list[Any] = [
        rfi.id,
        rfi.kind,
        rfi.status,
        rfi.subject_type,
        rfi.user_id,
        rfi.transfer_id,
        rfi.flow_type,
        rfi.created_at,
        rfi.current_round,
        r.id if r else None,
        r.issued_at if r else None,
        r.expires_at if r else None,
        r.submitted_at if r else None,
        len(r.items) if r else None,
        sum(1 for item in r.items if item.required) if r else None,
        r.link if r else None,
    ]
    return [_cell(v) for v in values]


class _Writer:
    """Streams records to an open file in one format."""

    def __init__(self, out: IO[str], fmt: str) -> None:
        self.out = out
        self.fmt = fmt
        self.count = 0
        self._csv = csv.writer(out) if fmt == "csv" else None

    def start(self) -> None:
        if self._csv is not None:
            self._csv.writerow(CSV_COLUMNS)
        else:
            self.out.write("[")

    def write(self, rfi: Rfi) -> None:
        if self._csv is not None:
            self._csv.writerow(csv_row(rfi))
        else:
            self.out.write(",\n  " if self.count else "\n  ")
            self.out.write(json.dumps(rfi.to_wire(), ensure_ascii=False))
        self.count += 1

    def finish(self) -> None:
        if self._csv is None:
            self.out.write("\n]\n" if self.count else "]\n")


async def export_rfis(
    client: StablePayClient,
    path: Path,
    fmt: str,
    filters: RfiFilters,
    progress: Progress | None = None,
    page_size: int = 100,
) -> ExportResult:
    """Write every RFI matching `filters` to `path`, newest first, reporting progress.

    Raises the client's APIError (or OSError) on failure, and lets cancellation through;
    either way no file is left at `path` or beside it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}.")
    report = progress or (lambda done, total: None)
    # One small request first, so progress can say "of N" from the start.
    probe = await client.list_rfis(filters.status, filters.kind, filters.user_id, limit=1, offset=0)
    total = probe.pagination.total
    report(0, total)
    part = path.with_name(path.name + ".part")
    paging = PagingReport()
    try:
        with part.open("x", encoding="utf-8", newline="") as out:
            writer = _Writer(out, fmt)
            writer.start()
            rfis = client.iter_rfis(filters.status, filters.kind, filters.user_id, page_size=page_size, report=paging)
            async with aclosing(rfis):  # pages still in flight are cancelled on the way out
                async for rfi in rfis:
                    writer.write(rfi)
                    total = max(total, writer.count)
                    if writer.count % 20 == 0 or writer.count == total:
                        report(writer.count, total)
            writer.finish()
        report(writer.count, max(total, writer.count))
        part.replace(path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return ExportResult(path=path, count=writer.count, fmt=fmt, paging=paging)
