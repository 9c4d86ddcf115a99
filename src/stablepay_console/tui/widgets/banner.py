"""The environment banner: always visible, unmistakable about which money is at stake."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from stablepay_console.profiles.model import Profile
from stablepay_console.tui.formatters.radar import radar_text
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.web_mode import web_user

MIN_WHERE = 10
"""The cells the address needs to say something (`in-process`); with less room it is left out."""


class EnvironmentBanner(Static):
    """Profile, environment, base URL and the last ping result; in a browser, who signed in."""

    DEFAULT_CSS = """
    EnvironmentBanner { height: 1; padding: 0 1; background: $success-darken-2; color: $text; }
    EnvironmentBanner.-production { background: $error; color: white; text-style: bold; }
    """

    profile: reactive[Profile | None] = reactive(None)
    ping: reactive[str] = reactive("checking…")
    radar: reactive[str] = reactive("")
    badge: reactive[str] = reactive("")
    """"ROTATION DUE" while the active profile's key is due (the app's `key_badge`)."""
    record_badge: reactive[str] = reactive("")
    """"TEAM RECORD UNREACHABLE" while the team record cannot be reached (the app's `record_badge`)."""

    def on_mount(self) -> None:
        self.watch(self.app, "profile", self._set_profile, init=True)
        self.watch(self.app, "ping_state", self._set_ping, init=True)
        if hasattr(type(self.app), "radar_label"):
            self.watch(self.app, "radar_label", self._set_radar, init=True)
        if hasattr(type(self.app), "key_badge"):
            self.watch(self.app, "key_badge", self._set_badge, init=True)
        if hasattr(type(self.app), "record_badge"):
            self.watch(self.app, "record_badge", self._set_record_badge, init=True)

    def _set_profile(self, profile: Profile | None) -> None:
        self.profile = profile
        self.set_class(profile is not None and profile.is_production, "-production")

    def _set_ping(self, state: str) -> None:
        self.ping = state

    def _set_radar(self, label: str) -> None:
        self.radar = label

    def _set_badge(self, badge: str) -> None:
        self.badge = badge

    def _set_record_badge(self, badge: str) -> None:
        self.record_badge = badge

    def render(self) -> Text:
        profile = self.profile
        if profile is None:
            return Text("no profile")
        if profile.is_production:
            env = Text(" PRODUCTION: real money ", style="bold reverse")
        else:
            env = Text(" SANDBOX: simulated, no real money ", style="bold")
        # The ping comes before the address: on a narrow terminal the address is what gets cut. Narrow, the
        # word "profile" gives its room to the deadline count, so "4 overdue" still shows at 80 columns.
        badges = " · ".join(clean(b, 24) for b in (self.badge, self.record_badge) if b)
        badge = Text(f" {badges} ", style="bold black on yellow") if badges else Text("")
        narrow = self.size.width < 110
        user = web_user()
        text = Text.assemble(
            env,
            Text(f" {user} ", style="bold reverse") if user else "",
            badge,
            "  " if narrow else "  profile ",
            (clean(profile.name, 30), "bold"),
            " · ping ",
            clean(self.ping, 60),
            no_wrap=True,
            overflow="ellipsis",
        )
        where = clean(profile.where, 80)
        radar = radar_text(self.radar, narrow=narrow, room=self.size.width - text.cell_len)
        wanted = len(" · ") + min(len(where), MIN_WHERE)
        if not narrow and self.size.width - text.cell_len - radar.cell_len < wanted:
            # the service levels breached are the count's least urgent part: they give way to the server's address
            urgent = " · ".join(part for part in self.radar.split(" · ") if not part.endswith(" breached"))
            radar = radar_text(urgent, narrow=narrow, room=self.size.width - text.cell_len)
        text.append_text(radar)
        if self.size.width - text.cell_len >= wanted:
            text.append_text(Text.assemble(" · ", where))  # else no dangling " ·" at the end
        return text
