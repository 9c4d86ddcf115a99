"""Background work for a component that is not a widget itself (the team's claims, steps, review queue)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from textual.dom import DOMNode


def start(node: DOMNode, work: Callable[[], Awaitable[None]], group: str, exclusive: bool = False) -> None:
    """Run `work` on a worker of `node`. Given as a function, not a coroutine: a worker cancelled before it began
    (a newer one of an exclusive group) leaves no coroutine that was never awaited."""
    node.run_worker(cast(Any, work), group=group, exclusive=exclusive)
