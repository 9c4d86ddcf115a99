"""How a refreshed quote differs from the one before: the rate and what the user receives.

The arithmetic never raises: rates of 1e-30 then 1e30 make a change of 1e62 percent, which
Decimal's default context cannot quantize; a value that cannot be used makes the change unknown.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from decimal import Decimal

from rich.text import Text

from stablepay_console.api.models import Money, QuoteInformation
from stablepay_console.tui.formatters.numbers import number, usable
from stablepay_console.tui.formatters.text import clean

TRACKED = ("rate", "receive_gross", "receive_net")
"""The quote lines whose change is shown after a second refresh."""

_CALC = decimal.Context(prec=80, Emax=999_999, Emin=-999_999, traps=[])
"""Wide enough for any two usable values; no traps: an impossible result is NaN, never an exception."""


@dataclass(frozen=True)
class Change:
    before: object
    after: object
    currency_before: str = ""
    currency_after: str = ""

    @property
    def known(self) -> bool:
        return usable(self.before) and usable(self.after)

    @property
    def delta(self) -> Decimal | None:
        if not self.known:
            return None
        result = _CALC.subtract(Decimal(self.after), Decimal(self.before))  # type: ignore[arg-type]
        return result if usable(result) else None

    @property
    def direction(self) -> str:
        """`up`, `down`, `same`; `currency` when the two are not in one currency; `unknown` when unreadable."""
        if clean(self.currency_before).lower() != clean(self.currency_after).lower():
            return "currency"
        delta = self.delta
        if delta is None:
            return "unknown"
        if delta > 0:
            return "up"
        if delta < 0:
            return "down"
        return "same"

    @property
    def percent(self) -> Decimal | None:
        delta = self.delta
        if delta is None or Decimal(self.before).is_zero():  # type: ignore[arg-type]
            return None
        ratio = _CALC.multiply(_CALC.divide(delta, Decimal(self.before)), Decimal(100))  # type: ignore[arg-type]
        if not usable(ratio):
            return None
        rounded = _CALC.quantize(ratio, Decimal("0.01"))
        return rounded if usable(rounded) else ratio


def _money_change(before: Money, after: Money) -> Change:
    return Change(before.amount, after.amount, before.currency, after.currency)


def compare(previous: QuoteInformation, current: QuoteInformation) -> dict[str, Change]:
    """The change of each tracked line, keyed by its attribute name."""
    return {
        "rate": Change(previous.rate, current.rate),
        "receive_gross": _money_change(previous.receive_gross, current.receive_gross),
        "receive_net": _money_change(previous.receive_net, current.receive_net),
    }


def signed(value: Decimal) -> str:
    """`+0.0012`, `-1,234.5`, `+1E+62`: the number with its sign always written."""
    text = number(value)
    return text if text.startswith("-") else "+" + text


def change_text(change: Change) -> Text:
    """`▲ +0.0012 (+0.12%)` in green, `▼ -0.0007 (-0.07%)` in red, `= unchanged`."""
    direction = change.direction
    if direction == "currency":
        return Text(f"currency changed from {clean(change.currency_before.upper(), 10)}", style="yellow")
    if direction == "unknown":
        return Text("change unknown (a value is unreadable)", style="yellow")
    if direction == "same":
        return Text("= unchanged", style="dim")
    delta = change.delta
    assert delta is not None  # a known direction has a delta
    arrow, style = ("▲", "bold green") if direction == "up" else ("▼", "bold red")
    text = Text(f"{arrow} {signed(delta)}", style=style)
    percent = change.percent
    if percent is not None:
        text.append(f" ({signed(percent)}%)", style=style.replace("bold ", ""))
    return text
