"""What every modal shares: a centred box over the dimmed screen, Escape to leave, one stylesheet."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

T = TypeVar("T")


class ConsoleModal(ModalScreen[T]):
    """Subclasses compose one container with the class `modal-box`; styles/modals.tcss lays it out.

    The box is at most the screen's size (it scrolls inside on a small terminal), so its buttons are
    never off-screen at 80x24.
    """

    CSS_PATH = "../styles/modals.tcss"

