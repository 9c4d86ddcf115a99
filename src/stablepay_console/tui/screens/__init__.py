"""The top-level screens' classes, each imported only when its mode is first shown (the start paints the inbox)."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen


def _inbox() -> type[Screen]:
    from stablepay_console.tui.screens.inbox import InboxScreen

    return InboxScreen


def _batch() -> type[Screen]:
    from stablepay_console.tui.screens.batch import BatchScreen

    return BatchScreen


def _quote() -> type[Screen]:
    from stablepay_console.tui.screens.quote import QuoteScreen

    return QuoteScreen


def _metrics() -> type[Screen]:
    from stablepay_console.tui.screens.metrics import MetricsScreen

    return MetricsScreen


def _profiles() -> type[Screen]:
    from stablepay_console.tui.screens.profiles import ProfilesScreen

    return ProfilesScreen


def _audit() -> type[Screen]:
    from stablepay_console.tui.screens.audit import AuditScreen

    return AuditScreen


def _team() -> type[Screen]:
    from stablepay_console.tui.screens.team import TeamScreen

    return TeamScreen


SCREENS: dict[str, Callable[[], type[Screen]]] = {
    "inbox": _inbox, "batch": _batch, "quote": _quote, "metrics": _metrics, "profiles": _profiles, "audit": _audit,
    "team": _team,
}
"""Each top-level mode's screen class (`tui/modes.py` names them), imported when first asked for."""


def load(mode: str) -> Callable[[], Screen]:
    """What Textual calls to make the mode's screen the first time it is shown."""
    return lambda: SCREENS[mode]()()
