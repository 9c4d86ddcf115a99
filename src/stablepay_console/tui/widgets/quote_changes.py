"""How a refreshed quote differs from the one before: the rate and what the user receives."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from rich.text import Text

from stablepay_console.api.models import Money, QuoteInformation
from stablepay_console.tui.formatters.text import clean

TRACKED = ("rate", "receive_gross", "receive_net")
"""The quote lines whose change is shown after a second refresh."""


@dataclass(frozen=True)
class Change:
    before: Decimal
    after: Decimal
    currency_before: str = ""
    currency_after: str = ""

    @property
    def delta(self) -> Decimal:
        return self.after - self.before

    @property
    def direction(self) -> str:
        """`up`, `down` or `same`; `currency` when the two amounts are not in the same currency."""
        if self.currency_before.lower() != self.currency_after.lower():
            return "currency"
        if self.delta > 0:
            return "up"
        if self.delta < 0:
            return "down"
        return "same"

    @property
    def percent(self) -> Decimal | None:
        if self.before == 0:
            return None
        return (self.delta / self.before * 100).quantize(Decimal("0.01"))


def _money_change(before: Money, after: Money) -> Change:
    return Change(before.amount, after.amount, before.currency, after.currency)


def compare(previous: QuoteInformation, current: QuoteInformation) -> dict[str, Change]:
    """The change of each tracked line, keyed by its attribute name."""
    return {
        "rate": Change(previous.rate, current.rate),
        "receive_gross": _money_change(previous.receive_gross, current.receive_gross),
        "receive_net": _money_change(previous.receive_net, current.receive_net),
    }


def change_text(change: Change) -> Text:
    """`▲ +0.0012 (+0.12%)` in green, `▼ -0.0007 (-0.07%)` in red, `= unchanged`."""
    direction = change.direction
    if direction == "currency":
        return Text(f"currency changed from {clean(change.currency_before.upper(), 10)}", style="yellow")
    if direction == "same":
        return Text("= unchanged", style="dim")
    arrow, style = ("▲", "bold green") if direction == "up" else ("▼", "bold red")
    text = Text(f"{arrow} {change.delta:+}", style=style)
    percent = change.percent
    if percent is not None:
        text.append(f" ({percent:+}%)", style=style.replace("bold ", ""))
    return text
