"""What every modal shares: a centred box over the dimmed screen, Escape to leave, one stylesheet."""

from __future__ import annotations

from typing import TypeVar

from textual import events, on
from textual.binding import Binding
from textual.screen import ModalScreen

from stablepay_console.tui.widgets.banner import EnvironmentBanner
from stablepay_console.tui.widgets.footer import ConsoleFooter

T = TypeVar("T")


class ConsoleModal(ModalScreen[T]):
    """Subclasses compose one container with the class `modal-box`; styles/modals.tcss lays it out.

    The box is at most the screen's size (it scrolls inside on a small terminal), so its buttons are
    never off-screen at 80x24.
    """

    CSS_PATH = "../styles/modals.tcss"

    # A modal stops the app's keys: help and quit are bound again here, so they work (and show) as on
    # every screen.
    BINDINGS = [
        Binding("f1,question_mark", "app.toggle_help", "Help", id="modal.help", tooltip="Keys and help"),
        Binding("q", "app.quit", "Quit", id="modal.quit", tooltip="Leave the console"),
        Binding("ctrl+c", "app.quit", "Quit", show=False, priority=True, id="modal.quit_ctrl_c"),
    ]

    @on(events.Mount)
    async def _add_banner_and_footer(self) -> None:
        # The environment stays in sight above every dialog (on production, the red banner).
        await self.mount(EnvironmentBanner(classes="modal-banner"), before=0)
        await self.mount(ConsoleFooter())

