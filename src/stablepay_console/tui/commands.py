"""Command palette: every top-level screen, "Go to request", and every profile by name."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from stablepay_console.tui.modes import TOP_LEVEL

Entry = tuple[str, Callable[[], object], str]
"""(what the palette shows, what it does, its help line)."""


class EntriesProvider(Provider):
    """A provider over a list of entries: subclasses say what the entries are, this finds them."""

    def _entries(self) -> list[Entry]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for text, action, help_text in self._entries():
            yield DiscoveryHit(text, action, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, action, help_text in self._entries():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), action, help=help_text)


class ScreensProvider(EntriesProvider):
    """Open a screen by typing its name, or a request by its ID."""

    def _entries(self) -> list[Entry]:
        return [
            *((f"Open {entry.title}", partial(self.app.switch_mode, entry.mode),
               f"{entry.description} (key {entry.key})") for entry in TOP_LEVEL),
            ("Go to request", self._go_to, "a request by its whole ID, or the 8 characters the inbox shows "
                                           "(key i in the inbox)"),
        ]

    async def _go_to(self) -> None:
        """From any screen: the inbox, its "Go to request" dialog."""
        from stablepay_console.tui.screens.inbox import InboxScreen

        app = self.app
        if getattr(app, "current_mode", None) != "inbox":
            await app.switch_mode("inbox")
        while not isinstance(app.screen, InboxScreen) and len(app.screen_stack) > 1:
            await app.pop_screen()
        if isinstance(app.screen, InboxScreen):
            app.screen.go_to.ask()


class ProfilesProvider(EntriesProvider):
    """Switch to a profile by typing its name."""

    def _entries(self) -> list[Entry]:
        from stablepay_console.profiles.store import ProfileStoreError
        from stablepay_console.tui.modals.profile_switcher import profile_book, request_switch

        book = profile_book(self.app)
        try:
            profiles = book.profiles()
        except ProfileStoreError:
            profiles = list(book.embedded)
        return [
            (
                f"Switch to profile {p.name}",
                partial(request_switch, self.app, p),
                f"{'PRODUCTION: real money' if p.is_production else 'sandbox'} · {p.where} (or F2)",
            )
            for p in profiles
        ]


class TriageProvider(EntriesProvider):
    """The team's process on the request in view: the steps offered ("Mark ready", "Approve", "Reject", "Waiting on
    the user", "Resume"), "Assign to…", "Release claim", and the inbox's "Awaiting my review". Each screen that shows
    a request says which make sense now (`triage_entries`); elsewhere there are none."""

    def _entries(self) -> list[Entry]:
        entries = getattr(self.screen, "triage_entries", None)
        return list(entries()) if callable(entries) else []
