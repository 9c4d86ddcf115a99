"""What one exported RFI looks like: a CSV row (every cell through the one guard) or a JSON record.

CSV: one row per request; the round's items are in the last column, `items`, as a JSON
array with the API's own names (`id`, `kind`, `label`, `docType`, `detail`, `required`):
a request stays one row (the row count is the request count), and the items keep their
IDs and exact text. JSON: the request as the API sent it, items included. In both, unsafe
characters are escaped (CSV: visible escapes; JSON: `\\uXXXX`, the same string once decoded),
so the file is safe to `cat`.
"""

from __future__ import annotations

import csv
import json
from typing import IO, Any

from stablepay_console.api.models import Rfi
from stablepay_console.api.sanitize import json_safe
from stablepay_console.services.export.csv_guard import guard_row

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
    "items",
)


def items_cell(rfi: Rfi) -> str:
    """The round's items as one JSON array (`[]` when no round is open)."""
    if rfi.round is None:
        return "[]"
    items = [item.to_wire() for item in rfi.round.items]
    return json_safe(json.dumps(items, ensure_ascii=False, separators=(",", ":")))


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
    # The items cell is JSON made safe by json_safe; it starts with "[", never a formula.
    return [*guard_row(values), items_cell(rfi)]


def json_record(rfi: Rfi) -> str:
    """One request as one line of JSON, unsafe characters as `\\uXXXX`."""
    return json_safe(json.dumps(rfi.to_wire(), ensure_ascii=False))


class RowWriter:
    """Streams records to an open file in one format."""

    def __init__(self, out: IO[str], fmt: str) -> None:
        self.out = out
        self.fmt = fmt
        self.count = 0
        self._csv = csv.writer(out) if fmt == "csv" else None

    def start(self) -> None:
        if self._csv is not None:
            self._csv.writerow(guard_row(CSV_COLUMNS))
        else:
            self.out.write("[")

    def write(self, rfi: Rfi) -> None:
        if self._csv is not None:
            self._csv.writerow(csv_row(rfi))
        else:
            self.out.write(",\n  " if self.count else "\n  ")
            self.out.write(json_record(rfi))
        self.count += 1

    def finish(self) -> None:
        if self._csv is None:
            self.out.write("\n]\n" if self.count else "]\n")
