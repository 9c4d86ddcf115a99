"""What the console says about keys without being asked: rotation due, rotations left half-way.

- At start-up and after every switch: "Rotation due" (from 11 months) as a banner badge and a notification.
- At start-up: every rotation that stopped half-way, so a pending one is never forgotten.
- On quit: if a production key's rotation is unfinished, ask first (a second `q` or `y` quits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from stablepay_console.profiles.age import KeyAge
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation import STEP_TITLES, Step
from stablepay_console.profiles.store import ProfileStoreError
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.quit_mid_rotation import QuitMidRotation

if TYPE_CHECKING:
    from stablepay_console.tui.console import Console

RESUME_HOW = "On Profiles & keys (5), highlight it and press r to resume."
ON_THE_SERVER = "In the browser keys are read-only: the server's operator rotates it with the command line."


def resume_how(verb: str = "resume") -> str:
    from stablepay_console.tui.runtime.web_mode import in_browser

    return ON_THE_SERVER if in_browser() else RESUME_HOW.replace("to resume", f"to {verb}")


def key_age_of(app: Console, profile: Profile) -> KeyAge | None:
    try:
        return app.services.book.age(profile, app.now())
    except (ProfileStoreError, KeyStoreError):
        return None


def badge(age: KeyAge | None) -> str:
    """The banner's badge for a key of this age: "" when nothing is due."""
    if age is None or age.level not in ("due", "overdue"):
        return ""
    return "ROTATION OVERDUE" if age.level == "overdue" else "ROTATION DUE"


def announce_key_age(app: Console, profile: Profile) -> None:
    """Set the banner's badge for `profile` and, when its key is due, say so once."""
    age = key_age_of(app, profile)
    app.key_badge = badge(age)
    if age is None or not app.key_badge:
        return
    app.notify(
        f"Profile {clean(profile.name, 40)}: {age.sentence} {resume_how('rotate')}",
        title="Rotation due" if age.level == "due" else "Rotation overdue",
        severity="warning" if age.level == "due" else "error",
        timeout=12,
        markup=False,
    )


def pending_rotations(app: Console) -> list[tuple[Profile, Step]]:
    try:
        return app.services.book.pending_rotations()
    except (ProfileStoreError, KeyStoreError):
        return []


def describe_pending(profile: Profile, step: Step) -> str:
    where = "PRODUCTION" if profile.is_production else "sandbox"
    return (
        f"The key rotation of {clean(profile.name, 40)} ({where}) is pending: it stopped at step {step.value} of 6 "
        f"({STEP_TITLES[step]})."
    )


def announce_pending_rotations(app: Console) -> None:
    for profile, step in pending_rotations(app):
        app.notify(
            f"{describe_pending(profile, step)} {resume_how()}",
            title="Rotation pending",
            severity="warning",
            timeout=15,
            markup=False,
        )


def ask_before_quitting(app: Console) -> bool:
    """True when quitting must wait for an answer (a question is now on screen); False to quit at once."""
    if isinstance(app.screen, QuitMidRotation):
        return False  # q again: the person has read the question
    unfinished = [(p, s) for p, s in pending_rotations(app) if p.is_production]
    if not unfinished:
        return False
    lines = "\n".join(describe_pending(p, s) for p, s in unfinished)
    question = Text(
        f"{lines}\n\nQuit anyway? The progress is kept (never a key in a file), and the next start says the "
        "rotation is pending."
    )

    def answered(yes: bool | None) -> None:
        if yes:
            app.exit()

    app.push_screen(
        QuitMidRotation(question, title="A production key rotation is unfinished", yes_label="Quit", danger=True),
        answered,
    )
    return True
