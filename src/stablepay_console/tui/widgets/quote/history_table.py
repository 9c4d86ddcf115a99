"""Every refresh of this session for the onramp on screen: time, rate, what the user receives, expiry."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from stablepay_console.services.quote_refreshes import QuoteHistory, change
from stablepay_console.tui.formatters.text import clean, money, when


class QuoteHistoryTable(DataTable[Text]):
    """Newest first; the rate's move against the refresh before it, ▲ or ▼."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, show_cursor=False)

    def on_mount(self) -> None:
        self.add_column("Refreshed", key="at")
        self.add_column("Rate".rjust(14), key="rate")
        self.add_column("Move".rjust(12), key="move")
        self.add_column("Receive net".rjust(20), key="net")
        self.add_column("Quote expires", key="expires")

    def show(self, history: QuoteHistory) -> None:
        self.clear()
        refreshes = history.refreshes
        for index in range(len(refreshes) - 1, -1, -1):
            quote = refreshes[index].quote
            before = refreshes[index - 1].quote if index > 0 else None
            if quote is None:
                self.add_row(Text(when(refreshes[index].at)), Text("no quote sent", style="yellow"), key=str(index))
                continue
            moved = change(quote.rate, before.rate if before is not None else None)
            move = Text("")
            if moved is not None:
                arrow, style = ("▲", "green") if moved > 0 else ("▼", "red") if moved < 0 else ("=", "dim")
                move = Text(f"{arrow} {clean(f'{moved:+}', 10)}".rjust(12), style=style)
            net = quote.receive_net
            expires = "no expiry" if quote.expires_at is None else when(quote.expires_at)
            self.add_row(
                Text(when(refreshes[index].at)),
                Text(clean(quote.rate, 14).rjust(14)),
                move,
                Text(clean(money(net.amount, net.currency), 20).rjust(20)),
                Text(expires),
                key=str(index),
            )
