"""Who sends and who receives an onramp: user, currency, amount, chain, wallet."""

from __future__ import annotations

from stablepay_console.api.models import OnrampTransfer, PartyUser
from stablepay_console.tui.formatters.text import money
from stablepay_console.tui.widgets.batch.fields import FieldRow, field


def _user_rows(user: PartyUser | None, user_id: str) -> list[FieldRow]:
    return [
        field("User", user.display_name if user is not None else ""),
        field("Email", user.email if user is not None else None, copy=True),
        field("User ID", user_id, copy=True),
    ]


def source_rows(onramp: OnrampTransfer) -> list[FieldRow]:
    s = onramp.details.source
    return [
        *_user_rows(s.user, s.user_id),
        field("Currency", s.currency.upper()),
        field("Amount", money(s.amount, s.currency) if s.amount is not None else "not given"),
    ]


def destination_rows(onramp: OnrampTransfer) -> list[FieldRow]:
    d = onramp.details.destination
    return [
        *_user_rows(d.user, d.user_id),
        field("Currency", d.currency.upper()),
        field("Amount", money(d.amount, d.currency) if d.amount is not None else "not set yet"),
        field("Chain", d.chain),
        field("Wallet", d.wallet_address, copy=True),
    ]
