"""Requests kept as their JSON text: a sixth of the memory of the models, each rebuilt when read (UI-free).

A list of thousands of requests to show a page of (needs action) or print once (`rfis due`) is kept
this way: memory grows with the text, and only the rows read are models again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


def keep(rfi: Rfi) -> str:
    return rfi.model_dump_json(by_alias=True)


class Kept(Sequence["Rfi"]):
    """A read-only sequence of requests stored as JSON text."""

    def __init__(self, texts: list[str]) -> None:
        self._texts = texts

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, index: int) -> Rfi: ...
    @overload
    def __getitem__(self, index: slice) -> list[Rfi]: ...
    def __getitem__(self, index: int | slice) -> Rfi | list[Rfi]:
        from stablepay_console.api.models import Rfi

        if isinstance(index, slice):
            return [Rfi.model_validate_json(text) for text in self._texts[index]]
        return Rfi.model_validate_json(self._texts[index])

    def ids(self) -> list[str]:
        """Each request's ID, read from its text without a model where the text starts with it (as `keep` writes)."""
        from stablepay_console.api.models import Rfi

        head = len('{"id":"')
        return [text[head:text.index('"', head)] if text.startswith('{"id":"')
                else Rfi.model_validate_json(text).id for text in self._texts]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Kept) and self._texts == other._texts

    __hash__ = None  # type: ignore[assignment]
