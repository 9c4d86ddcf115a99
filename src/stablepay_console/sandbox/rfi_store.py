"""A compact list of RFIs: each kept as its wire JSON plus the three fields the list filters on.

Fifty thousand pydantic models with their rounds and items cost hundreds of megabytes; their
JSON costs a fraction of that, and it is exactly what the list endpoint sends. Reading an item
gives a fresh `Rfi` model, so tests can still index, assign and delete as with a list.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence
from typing import NamedTuple, overload

from stablepay_console.api.models import Rfi


class RfiRow(NamedTuple):
    status: str
    kind: str
    user_id: str | None
    wire: bytes


def _row(rfi: Rfi) -> RfiRow:
    return RfiRow(rfi.status, rfi.kind, rfi.user_id, rfi.model_dump_json(by_alias=True).encode())


class RfiStore(MutableSequence[Rfi]):
    """A mutable sequence of RFIs stored as wire JSON. `version` changes with every edit."""

    def __init__(self, rfis: Iterable[Rfi] = ()) -> None:
        self._rows: list[RfiRow] = [_row(r) for r in rfis]
        self.version = 0

    @property
    def rows(self) -> list[RfiRow]:
        return self._rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> Rfi: ...
    @overload
    def __getitem__(self, index: slice) -> list[Rfi]: ...
    def __getitem__(self, index: int | slice) -> Rfi | list[Rfi]:
        if isinstance(index, slice):
            return [Rfi.model_validate_json(row.wire) for row in self._rows[index]]
        return Rfi.model_validate_json(self._rows[index].wire)

    @overload
    def __setitem__(self, index: int, value: Rfi) -> None: ...
    @overload
    def __setitem__(self, index: slice, value: Iterable[Rfi]) -> None: ...
    def __setitem__(self, index: int | slice, value: Rfi | Iterable[Rfi]) -> None:
        if isinstance(index, slice):
            self._rows[index] = [_row(r) for r in value]  # type: ignore[union-attr,arg-type]
        else:
            self._rows[index] = _row(value)  # type: ignore[arg-type]
        self.version += 1

    def __delitem__(self, index: int | slice) -> None:
        del self._rows[index]
        self.version += 1

    def insert(self, index: int, value: Rfi) -> None:
        self._rows.insert(index, _row(value))
        self.version += 1

