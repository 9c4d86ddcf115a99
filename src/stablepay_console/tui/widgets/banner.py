"""The environment banner: always visible, unmistakable about which money is at stake."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from stablepay_console.profiles.model import Profile
from stablepay_console.tui.formatters.radar import radar_text
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.runtime.web_mode import web_user

MIN_WHERE = 10
"""The cells the address needs to say something (`in-process`); with less room it is left out."""
GIVE_WAY = ("breached", "the word profile", "address", "ping words", "environment words", "due", "overdue")
"""What the banner leaves out, first to last, when the line does not hold everything: the count of service
levels breached, the word "profile", the server's address, the ping's words (its ✓ or ✗ stays), the
environment's explanation ("SANDBOX" or "PRODUCTION" stays), the due count, and then the overdue count. The
review queue's count (`3 to review`) goes never: it is the last thing on a line too narrow for even that, where
the line ends in an ellipsis."""


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
    review: reactive[int] = reactive(0)
    """How many answers await the reader's review (the app's `review_count`)."""

    def on_mount(self) -> None:
        self.watch(self.app, "profile", self._set_profile, init=True)
        self.watch(self.app, "ping_state", self._set_ping, init=True)
        if hasattr(type(self.app), "radar_label"):
            self.watch(self.app, "radar_label", self._set_radar, init=True)
        if hasattr(type(self.app), "key_badge"):
            self.watch(self.app, "key_badge", self._set_badge, init=True)
        if hasattr(type(self.app), "record_badge"):
            self.watch(self.app, "record_badge", self._set_record_badge, init=True)
        if hasattr(type(self.app), "review_count"):
            self.watch(self.app, "review_count", self._set_review, init=True)

    def _set_review(self, count: int) -> None:
        self.review = count

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
        room = self.content_size.width or max(0, self.size.width - 2)
        left_out: set[str] = set()
        line = self._line(profile, left_out, room)
        for part in GIVE_WAY:  # the stated order: the due and overdue counts stay longest
            if line is not None:
                return line
            left_out.add(part)
            line = self._line(profile, left_out, room)
        return line if line is not None else self._line(profile, left_out, None)  # type: ignore[return-value]

    def _line(self, profile: Profile, left_out: set[str], room: int | None) -> Text | None:
        """The banner without the parts `left_out`; None when it does not fit in `room` cells."""
        text = self._who(profile, left_out)
        text.append_text(radar_text(self._counts(left_out), narrow=room is not None and room < 108))
        if room is not None and text.cell_len > room:
            return None
        if "address" in left_out:
            return text
        where = clean(profile.where, 80)
        spare = (room if room is not None else 10_000) - text.cell_len - len(" · ")
        if spare < min(len(where), MIN_WHERE):
            return None
        text.append_text(Text.assemble(" · ", where if len(where) <= spare else where[: spare - 1] + "…"))
        return text

    def _who(self, profile: Profile, left_out: set[str]) -> Text:
        """The environment, the browser's user, the badges, the profile and the ping."""
        words = "environment words" not in left_out
        if profile.is_production:
            env = Text(" PRODUCTION: real money " if words else " PRODUCTION ", style="bold reverse")
        else:
            env = Text(" SANDBOX: simulated, no real money " if words else " SANDBOX ", style="bold")
        badges = " · ".join(clean(b, 24) for b in (self.badge, self.record_badge) if b)
        user = web_user()
        ping = clean(self.ping, 60)
        if "ping words" in left_out and ping[:1] in ("✓", "✗"):
            ping = ping[:1]  # the answer's mark stays: ✓ the key works, ✗ it does not
        return Text.assemble(
            env,
            Text(f" {user} ", style="bold reverse") if user else "",
            Text(f" {badges} ", style="bold black on yellow") if badges else "",
            "  " if "the word profile" in left_out else "  profile ",
            (clean(profile.name, 30), "bold"),
            " · ping ",
            ping,
            no_wrap=True,
            overflow="ellipsis",
        )

    def _counts(self, left_out: set[str]) -> str:
        """The deadline count without what gives way (`left_out`)."""
        parts = [part for part in self.radar.split(" · ") if part]
        if "breached" in left_out:
            parts = [part for part in parts if not part.endswith(" breached")]
        if "due" in left_out:
            parts = [part for part in parts if not part.endswith(" due < 24h")]
        if "overdue" in left_out:
            parts = [part for part in parts if not part.endswith(" overdue")]
        if self.review:
            parts.append(f"{self.review} to review")
        return " · ".join(parts)
