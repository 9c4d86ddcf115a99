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

    def clipboard_route(self) -> str | None:
        """Where a copy goes, in the audit log's words, or None when nothing would receive it.

        The console copies by writing OSC 52 to its terminal (in a browser, textual-serve's page hands it to
        the browser's clipboard). With no terminal (Textual's headless driver, or a terminal that hung up)
        nothing receives it. A terminal that ignores OSC 52 cannot be told from one that takes it: the
        words say where it was sent, not that it arrived."""
        from stablepay_console.tui.runtime.web_mode import in_browser

        driver = self._driver
        if driver is None or driver.is_headless or getattr(driver, "gone", False):
            return None
        if driver.is_web or in_browser():
            return "sent to the browser by OSC 52"
        return "sent to the terminal by OSC 52"

    def copy_with_notice(self, text: str, what: str) -> str:
        """Copy (sanitised: never an escape sequence) and say where it went, or that nothing took it.

        Returns the outcome for the audit log: `sent to the terminal by OSC 52`, or `failed: …`."""
        route = self.clipboard_route()
        self.copy_to_clipboard(clean(text))
        if route is None:
            self.notify(f"{clean(what, 80)[:1].upper()}{clean(what, 80)[1:]} was not copied: no terminal is "
                        "attached to take it.", title="Not copied", severity="warning", timeout=8, markup=False)
            return "failed: no terminal to send it to"
        where = "the browser's clipboard" if "browser" in route else "the clipboard (OSC 52)"
        self.notify(f"Copied {clean(what, 80)} to {where}.", title="Copied", timeout=3, markup=False)
        return route

    def copy_link(self, url: str, what: str = "link") -> str:
        """Copy a link from the server: only one that `open_link` would open, sanitised. Returns the outcome."""
        from stablepay_console.tui.runtime.links import LinkRefused, checked_link

        try:
            link = checked_link(url, what)
        except LinkRefused as exc:
            self.notify(str(exc), title="Link not copied", severity="warning", timeout=8, markup=False)
            return "refused: not an https link"
        return self.copy_with_notice(link, f"the {what}")

    def open_link(self, url: str, what: str = "link") -> str:
        """Open a link in the browser: only https:// (or http:// to loopback); else say why not.

        If no browser can be opened, the (sanitised) link is copied instead. Returns the outcome for the audit
        log: `opened in a browser`, `failed: no browser could be opened; the link sent to the terminal by OSC 52`…
        """
        import webbrowser

        from stablepay_console.tui.runtime.links import LinkRefused, checked_link

        try:
            link = checked_link(url, what)
        except LinkRefused as exc:
            self.notify(str(exc), title="Link not opened", severity="warning", timeout=8, markup=False)
            return "refused: not an https link"
        from stablepay_console.tui.runtime.web_mode import in_browser

        if in_browser():  # the analyst's browser opens it (a new tab); the server never runs a browser
            self.open_url(link, new_tab=True)
            self.notify(f"Opened the {clean(what, 80)} in a new tab.", title="Opened", timeout=3, markup=False)
            return "sent to the browser to open in a new tab"
        try:
            opened = webbrowser.open(link)  # False when no browser took it
        except Exception:  # any browser failure falls back to copying
            opened = False
        if opened:
            self.notify(f"Opened the {clean(what, 80)} in your browser.", title="Opened", timeout=3, markup=False)
            return "opened in a browser"
        route = self.clipboard_route()
        self.copy_to_clipboard(link)
        if route is None:
            self.notify("No browser could be opened here, and no terminal is attached to copy the link to.",
                        title="Link not opened", severity="warning", timeout=8, markup=False)
            return "failed: no browser could be opened; not copied either (no terminal)"
        self.notify("No browser could be opened here; the link was copied instead (OSC 52).",
                    title="Link not opened", severity="warning", timeout=8, markup=False)
        return f"failed: no browser could be opened; the link {route}"


def clean_lines(text: object) -> str:
    """`clean` for each line: the console's own line breaks stay, every other unsafe character is escaped."""
    return "\n".join(clean(line) for line in str(text).split("\n"))
