"""What the console hands the terminal: notifications, the clipboard and the browser, all sanitised."""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from textual.app import App
from textual.notifications import SeverityLevel

from stablepay_console.api.sanitize import clean

SAID_KEPT = 200
"""Notifications kept in `said` (the oldest go first)."""


class Said(NamedTuple):
    """One notification the console showed, as shown (sanitised)."""

    title: str
    message: str
    severity: SeverityLevel


class SafeOutput(App[None]):
    """Every notification passes the sanitiser; only safe links are copied or opened."""

    @property
    def said(self) -> deque[Said]:
        """Every notification shown, newest last, after its toast has gone (a toast lasts seconds and a newer one
        may cover it): what the console told the user, until `clear_notifications`."""
        kept: deque[Said] | None = self.__dict__.get("_said")
        if kept is None:
            kept = self.__dict__["_said"] = deque(maxlen=SAID_KEPT)
        return kept

    def clear_notifications(self) -> None:
        self.said.clear()
        super().clear_notifications()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification passes the sanitiser: nothing in one reaches the terminal raw.

        Line breaks the console writes itself are kept; everything else unsafe is shown escaped.
        """
        message, title = clean_lines(message), clean_lines(title)
        self.said.append(Said(title, message, severity))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def copy_with_notice(self, text: str, what: str) -> None:
        """Copy to the clipboard (sanitised: never an escape sequence) and say so (the terminal must support OSC 52;
        in a browser, textual-serve's page puts it on the browser's clipboard)."""
        self.copy_to_clipboard(clean(text))
        self.notify(f"Copied {clean(what, 80)} to the clipboard.", title="Copied", timeout=3, markup=False)

    def copy_link(self, url: str, what: str = "link") -> None:
        """Copy a link from the server: only one that `open_link` would open, sanitised."""
        from stablepay_console.tui.runtime.links import LinkRefused, checked_link

        try:
            link = checked_link(url, what)
        except LinkRefused as exc:
            self.notify(str(exc), title="Link not copied", severity="warning", timeout=8, markup=False)
            return
        self.copy_with_notice(link, f"the {what}")

    def open_link(self, url: str, what: str = "link") -> None:
        """Open a link in the browser: only https:// (or http:// to loopback); else say why not.

        If no browser can be opened, the (sanitised) link is copied instead.
        """
        import webbrowser

        from stablepay_console.tui.runtime.links import LinkRefused, checked_link

        try:
            link = checked_link(url, what)
        except LinkRefused as exc:
            self.notify(str(exc), title="Link not opened", severity="warning", timeout=8, markup=False)
            return
        from stablepay_console.tui.runtime.web_mode import in_browser

        if in_browser():  # the analyst's browser opens it (a new tab); the server never runs a browser
            self.open_url(link, new_tab=True)
            self.notify(f"Opened the {clean(what, 80)} in a new tab.", title="Opened", timeout=3, markup=False)
            return
        try:
            opened = webbrowser.open(link)
        except Exception:  # any browser failure falls back to copying
            opened = False
        if opened:
            self.notify(f"Opened the {clean(what, 80)} in your browser.", title="Opened", timeout=3, markup=False)
        else:
            self.copy_with_notice(link, what)
            self.notify("No browser could be opened here; the link is on the clipboard.", severity="warning")


def clean_lines(text: object) -> str:
    """`clean` for each line: the console's own line breaks stay, every other unsafe character is escaped."""
    return "\n".join(clean(line) for line in str(text).split("\n"))
