"""The Team screen's line on the service levels in force: the policy the report's breaches were counted against
(read from the record with the report), who changed it last and when, and how it is changed.

Changing it stays a lead's shell command (`stablepay-console record policy`, which the database allows a lead
or the owner only): the screen shows the policy, it never edits it.
"""

from __future__ import annotations

from datetime import timedelta, timezone
from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Static

from stablepay_console.api.sanitize import clean
from stablepay_console.storage.record_triage_types import TriagePolicy

CHANGE_COMMAND = "stablepay-console record policy"


def exact(span: timedelta) -> str:
    """`4h`, `1h30m`, `2d`, `45m`: as `record policy` prints a level (days only for whole days from two on)."""
    seconds = int(span.total_seconds())
    if seconds <= 0:
        return "0s"
    if seconds % 86400 == 0 and seconds >= 2 * 86400:
        return f"{seconds // 86400}d"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{secs}s" if secs else "")


def policy_texts(policy: TriagePolicy) -> list[Text]:
    """The line in the words it can take, the fullest first: `Service levels: claim within 4h, …`."""
    if not policy.is_set:  # nobody set levels: none applies, and the report counts no breach
        return [
            Text.assemble(("Service levels: ", "bold"), "none set, so none applies and nothing is breached · "
                          "set them: ", (CHANGE_COMMAND, "italic")),
            Text.assemble(("Levels: ", "bold"), "none set: nothing is breached · set them: ",
                          ("record policy", "italic")),
            Text.assemble(("Levels: ", "bold"), "none set · ", ("record policy", "italic")),
        ]
    claim, ready, approve = exact(policy.claim_within), exact(policy.ready_within), exact(policy.approve_before)
    if policy.changed_by and policy.changed_at is not None:
        when = policy.changed_at.astimezone(timezone.utc)
        who = f"set by {clean(policy.changed_by, 40)} {when:%Y-%m-%d %H:%M} UTC"
    else:
        who = "the defaults, never changed"
    levels = f"claim within {claim}, ready within {ready} of issue, approve {approve} before expiry"
    return [
        Text.assemble(("Service levels: ", "bold"), levels, f" · {who} · a lead changes them: ",
                      (CHANGE_COMMAND, "italic")),
        Text.assemble(("Levels: ", "bold"), levels, "\n", who[0].upper(), who[1:], " · a lead changes them: ",
                      ("record policy", "italic")),
        Text.assemble(("Levels: ", "bold"), f"claim {claim}, ready {ready} of issue, approve {approve} before expiry",
                      "\n", who[0].upper(), who[1:], " · change: ", ("record policy", "italic")),
    ]


class TeamPolicy(Static):
    """Empty until a report is shown; then the policy it was counted against, on at most MAX_LINES lines when the
    width allows (the fullest words that fit: at 80 columns the chart keeps its rows)."""

    MAX_LINES = 2

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.policy: TriagePolicy | None = None

    def show(self, policy: TriagePolicy | None) -> None:
        self.policy = policy
        self._fit()

    def on_resize(self, _: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        if self.policy is None:
            self.update("")
            return
        texts = policy_texts(self.policy)
        width = self.content_size.width or self.app.size.width - 2
        fits = [t for t in texts if len(t.wrap(self.app.console, width)) <= self.MAX_LINES]
        self.update(fits[0] if fits else texts[-1])
