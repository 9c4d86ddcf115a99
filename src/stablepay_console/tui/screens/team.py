"""The Team screen: the team's report (`rfis report`) as a chart of the weeks and two tables.

The figures are the record's (the team's database, or the local file), worked out by
`services.triage_report` from what the watcher saw and what the team did; nothing is typed in.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from stablepay_console.services.triage.report import ANALYST_FIELDS, SPANS, Report
from stablepay_console.services.triage.series import weekly_series
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.columns import FittedTable
from stablepay_console.tui.widgets.metrics.chart import MetricChart, MetricLegend
from stablepay_console.tui.widgets.team.chart import TeamChart
from stablepay_console.tui.widgets.team.policy import TeamPolicy

SPANS_SHOWN = ((7, "7d"), (30, "30d"), (90, "90d"))
"""What `s` cycles through: the report of the rounds issued in the last 7, 30 or 90 days."""
SPAN_WORDS = {"issueToClaim": "issue → claim", "claimToReady": "claim → ready", "readyToApprove": "ready → approve",
              "approveToSubmitted": "approve → sent"}
ANALYST_HEADER = ("Analyst", "Claimed", "Ready", "Approved", "Open")
ANALYST_DROP = (0, 3, 2, 1, 4)
"""What gives way first in a narrow table: claims open now, then claimed, then made ready; approved (the four-eyes
figure) stays at 80 columns."""
STEPS_HEADER = ("Step (team time)", "n", "Median", "p90")
STEPS_DROP = (0, 2, 0, 1)

HELP = """\
## Team

The team's report, from the record (the team's database in team mode): what came in each week, how
long each step took, the service levels breached, and who carried the load.

- The chart: per week (from Monday), the rounds issued, claimed, approved, submitted with every
  service level met, and expired without an answer.
- Steps: the median and 90th percentile of issue → claim, claim → ready, ready → approve and
  approve → sent (the provider's `submitted`); time waiting on the user is left out. Then the
  breaches of each service level.
- The service levels in force (the line under the totals), read with the report: claim and make
  ready within a span of the round's issue, approve a span before its expiry; who changed them last
  and when. A lead changes them from the shell: `stablepay-console record policy --claim-within 2h`.
- Analysts (by role name): every analyst of the team, with requests claimed, answers made ready,
  answers approved and claims open now (zeros for one who did nothing yet).
- On the team record the figures count the rounds the team watcher recorded: until its first sweep
  the screen says "No sweep yet: run `rfis watch` as the watcher".

**s** switches between the last 7, 30 and 90 days; **r** reads the record again.
From the shell: `stablepay-console rfis report --since 30d [--json|--csv]`.
"""


def hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:.1f}h"


def step_rows(made: Report) -> list[tuple[str, str, str, str]]:
    rows = [(SPAN_WORDS[name], str(made.spans[name].count), hours(made.spans[name].median),
             hours(made.spans[name].p90)) for name in SPANS]
    rows += [(f"breached: {name}", str(count), "", "") for name, count in made.breaches.items()]
    return rows


class TeamScreen(ConsoleScreen):
    HELP = HELP
    DEFAULT_CSS = """
    TeamScreen #team-status { height: auto; padding: 0 1; }
    TeamScreen #team-policy { height: auto; padding: 0 1; color: $text-muted; }
    TeamScreen #team-chart { height: 1fr; min-height: 6; }
    TeamScreen #team-legend { height: auto; max-height: 2; padding: 0 1; }
    TeamScreen #team-tables { height: 9; }
    TeamScreen #team-steps, TeamScreen #team-analysts { width: 1fr; height: 9; }
    TeamScreen.-tall #team-tables, TeamScreen.-tall #team-steps, TeamScreen.-tall #team-analysts { height: 12; }
    """
    BINDINGS = [
        Binding("s", "cycle_since", "Since", id="team.since", tooltip="The last 7, 30 or 90 days"),
        Binding("r", "reload", "Reload", id="team.reload", tooltip="Read the record again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.days = 30
        self.report: Report | None = None
        self._asked = 0

    def compose_body(self) -> ComposeResult:
        yield Static("", id="team-status")
        yield TeamPolicy(id="team-policy")
        yield TeamChart(id="team-chart")
        yield MetricLegend(id="team-legend")
        with Horizontal(id="team-tables"):
            yield FittedTable(id="team-steps", cursor_type="row", zebra_stripes=True)
            yield FittedTable(id="team-analysts", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.query_one("#team-steps", FittedTable).focus()

    def on_screen_resume(self) -> None:
        self.load()

    def on_profile_changed(self) -> None:
        self.report = None
        self.render_report()
        self.load()

    def action_reload(self) -> None:
        self.load()

    def action_cycle_since(self) -> None:
        days = [d for d, _ in SPANS_SHOWN]
        self.days = days[(days.index(self.days) + 1) % len(days)] if self.days in days else 30
        self.load()

    @work(group="team-report")  # not exclusive: a cancelled worker would fail whoever waits on all of them
    async def load(self) -> None:
        profile = self.console.profile
        if profile is None:
            return
        self._asked += 1
        asked = self._asked
        status = self.query_one("#team-status", Static)
        status.update(Text(f"Reading the report of the last {self.days} days…", style="italic"))
        since = self.console.now() - timedelta(days=self.days)
        try:
            made = await asyncio.wrap_future(self.console.services.triage.report(profile, since))
        except RecordError as exc:
            if asked != self._asked:
                return
            self.report = None
            self.render_report()  # nothing of an earlier read is left to pass for the record's figures now
            status.update(Text(f"The record cannot be read: {clean(str(exc), 300)}", style="bold red"))
            return
        if asked != self._asked or self.console.profile is not profile:
            return  # a newer read (another span, another profile) is under way: its answer is the one shown
        self.report = made
        self.render_report()

    def render_report(self) -> None:
        made = self.report
        steps = self.query_one("#team-steps", FittedTable)
        analysts = self.query_one("#team-analysts", FittedTable)
        self.query_one(TeamPolicy).show(made.in_force if made is not None else None)
        if made is None:
            steps.clear(columns=True)
            analysts.clear(columns=True)
            return
        totals = made.totals
        said = Text.assemble(
            (f"Last {self.days} days", "bold"), " · ",
            f"{totals['issued']} issued, {totals['approved']} approved, {totals['submittedInTime']} in time, ",
            (f"{totals['expired']} expired", "bold red" if totals["expired"] else ""),
            f" · {made.until:%H:%M} UTC",
        )
        if made.waits_for:  # every figure is a zero, for a reason: say it instead of the zeros
            said = Text.assemble((made.waits_for[0].upper() + made.waits_for[1:], "bold yellow"), " · ",
                                 (f"last {self.days} days", "bold"), f" · {made.until:%H:%M} UTC")
        self.query_one("#team-status", Static).update(said)
        weeks = weekly_series(made)
        self.query_one(MetricChart).show(weeks, "bar", "Requests per week")
        self.query_one(MetricLegend).show(weeks)
        lines = step_rows(made)
        steps.show(STEPS_HEADER, STEPS_DROP, lines, [f"s{i}" for i in range(len(lines))])
        rows = [(clean(who, 24), *(str(counts[f]) for f in ANALYST_FIELDS))
                for who, counts in sorted(made.analysts.items())]
        analysts.show(ANALYST_HEADER, ANALYST_DROP, rows, [f"a{i}" for i in range(len(rows))])
