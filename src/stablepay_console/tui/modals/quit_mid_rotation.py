"""The question asked when quitting with a production key's rotation unfinished (see tui/runtime/key_notices.py).

Its own class, defined here beside the other modals, so the modal stylesheet resolves as theirs does.
"""

from __future__ import annotations

from stablepay_console.tui.modals.confirm import ConfirmScreen


class QuitMidRotation(ConfirmScreen):
    """A confirmation that a second `q` also answers (the person has read it)."""
