"""Lists a server sent, made safe for tables keyed by ID: the first of each ID kept, the rest counted."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def first_of_each(items: Iterable[T], key: Callable[[T], str]) -> tuple[list[T], int]:
    """The items with a repeated ID dropped (the first one stays, in order), and how many were dropped."""
    seen: set[str] = set()
    kept: list[T] = []
    dropped = 0
    for item in items:
        k = key(item)
        if k in seen:
            dropped += 1
            continue
        seen.add(k)
        kept.append(item)
    return kept, dropped


def hidden_note(count: int, noun: str = "duplicate") -> str:
    """`1 duplicate hidden`, `3 duplicates hidden`; "" for none."""
    if count <= 0:
        return ""
    return f"{count:,} {noun}{'' if count == 1 else 's'} hidden"
