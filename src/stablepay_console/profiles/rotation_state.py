"""A rotation's steps and its saved progress (masked keys, steps, dates and the last error; never a key).

The progress file is read back on resume, and a file is hostile text like a server's: every string
in it is cleaned when it is read, and cleaned again before it is written.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol

from stablepay_console.api.sanitize import clean
from stablepay_console.profiles.keys import MemoryVault
from stablepay_console.storage import locations
from stablepay_console.storage.writing import write_atomically


class Step(enum.IntEnum):
    GENERATE = 1
    PASTE = 2
    VERIFY_NEW = 3
    SWITCH = 4
    DELETE_OLD = 5
    VERIFY_OLD = 6
    DONE = 7


STEP_TITLES = {
    Step.GENERATE: "Generate the new key in the dashboard",
    Step.PASTE: "Paste the new key",
    Step.VERIFY_NEW: "Verify the new key with /ping",
    Step.SWITCH: "Switch the profile to the new key",
    Step.DELETE_OLD: "Delete the old key in the dashboard",
    Step.VERIFY_OLD: "Check the old key is refused; forget it",
    Step.DONE: "Done",
}



def step_name(step: Step) -> str:
    """`step 3 (Verify the new key with /ping)`."""
    return f"step {int(step)} ({STEP_TITLES[step]})"


@dataclass(frozen=True)
class StepEvent:
    """One step of a rotation as it came out: the step taken, the one the wizard is at now, and why not further.

    `taken` is None when a rotation began; `problem` is empty when the step went through."""

    taken: Step | None
    reached: Step
    problem: str = ""
    abandoned: bool = False

    def outcome(self) -> str:
        """In words, its step first: `done: step 1 (Generate …); next step 2 (Paste the new key)`."""
        reached = step_name(self.reached)
        if self.abandoned:
            return f"abandoned at {reached}; the profile keeps its key"
        if self.taken is None:
            return f"started at {reached}"
        taken = step_name(self.taken)
        if self.problem:
            back = "" if self.reached == self.taken else f"; back to {reached}"
            return f"failed: {taken}{back}"
        if self.reached == Step.DONE:
            return f"done: {taken}; the rotation is finished"
        if self.reached == self.taken:
            return f"resumed at {reached}"
        return f"done: {taken}; next {reached}"


MAX_ERROR = 600
"""Longer texts are cut: an error is a sentence or two, and a file can hold anything."""


class RotationError(Exception):
    """A step cannot be taken now; the message says why (and never holds a key)."""


class Progress(Protocol):
    def load(self) -> dict[str, Any] | None: ...

    def save(self, data: dict[str, Any]) -> None: ...

    def clear(self) -> None: ...


def progress_path(profile: str) -> Path:
    return locations.state_file("rotation-" + re.sub(r"[^A-Za-z0-9_.-]", "_", profile))


class FileProgress:
    """Progress in a small JSON file of the data directory (masked keys, steps and dates only)."""

    def __init__(self, profile: str) -> None:
        self.path = progress_path(profile)

    def load(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save(self, data: dict[str, Any]) -> None:
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
        write_atomically(self.path, text, "the rotation's progress")

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


class MemoryProgress:
    """Progress kept by a built-in profile's vault (in memory, or in its own file for the simulated production)."""

    def __init__(self, vault: MemoryVault, profile: str) -> None:
        self.vault = vault
        self.profile = profile

    def load(self) -> dict[str, Any] | None:
        saved = self.vault.progress.get(self.profile)
        return dict(saved) if saved is not None else None

    def save(self, data: dict[str, Any]) -> None:
        self.vault.save_progress(self.profile, data)

    def clear(self) -> None:
        self.vault.save_progress(self.profile, None)


@dataclass
class RotationState:
    step: int = Step.GENERATE
    profile: str = ""
    environment: str = ""
    base_url: str = ""
    started_at: str = ""
    old_key: str = ""
    """The old key, masked."""
    new_key: str = ""
    """The new key, masked (empty until pasted)."""
    switched_at: str = ""
    finished_at: str = ""
    error: str = ""
    """Why the last attempt failed, shown again on resume."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RotationState:
        """The state a file holds, every string cleaned; an unknown step starts again at the first."""
        state = cls()
        for f in fields(cls):
            value = data.get(f.name)
            if f.name == "step":
                state.step = value if isinstance(value, int) and value in {s.value for s in Step} else Step.GENERATE
            elif isinstance(value, str):
                setattr(state, f.name, clean(value, MAX_ERROR if f.name == "error" else 120))
        return state

    def to_dict(self) -> dict[str, Any]:
        """What is saved: the same fields, every string cleaned (an error may quote a server)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = clean(value, MAX_ERROR if f.name == "error" else 120) if isinstance(value, str) else value
        return out
