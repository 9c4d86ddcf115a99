"""The key-rotation wizard, without a user interface: the spec's order, one step at a time, resumable.

Progress is saved after every step with no secret in it (masked keys only). The new key waits in the
key vault as "<profile>:pending" between pasting and switching; the old key waits as "<profile>:previous"
until it has been verified dead (401), then it is forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.api import APIError, ApiKey, Unauthorized
from stablepay_console.api.error_text import error_text
from stablepay_console.api.sanitize import clean
from stablepay_console.profiles.key_date import jwt_issued_at
from stablepay_console.profiles.keys import PENDING, PREVIOUS, KeyVault, entry_name
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation_state import (
    STEP_TITLES,
    FileProgress,
    MemoryProgress,
    Progress,
    RotationError,
    RotationState,
    Step,
    StepEvent,
    progress_path,
)
from stablepay_console.storage.writing import NotWritten

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient

__all__ = [
    "STEP_TITLES",
    "ClientFor",
    "FileProgress",
    "MemoryProgress",
    "Progress",
    "Rotation",
    "RotationError",
    "RotationState",
    "Step",
    "StepEvent",
    "progress_path",
]

ClientFor = Callable[[Profile, ApiKey], "StablePayClient"]
OnSwitched = Callable[[datetime, datetime], None]
"""Told when the profile switched to its new key, and when that key was created."""


class Rotation:
    """One profile's rotation. Create it, then `start()`; each method takes one step."""

    def __init__(
        self,
        profile: Profile,
        vault: KeyVault,
        progress: Progress,
        client_for: ClientFor,
        clock: Callable[[], datetime],
        on_switched: OnSwitched = lambda when, created: None,
        shared_with: Sequence[str] = (),
    ) -> None:
        self.profile = profile
        self.vault = vault
        self.progress = progress
        self.client_for = client_for
        self.clock = clock
        self.on_switched = on_switched
        self.shared_with = tuple(shared_with)
        """Other profiles that use the same (old) key: deleting it stops them too."""
        self.on_step: Callable[[StepEvent], None] | None = None
        self.not_saved: str | None = None
        """Why the progress could not be kept on disk, when it could not (the screen says it once)."""
        """Told after each step is saved: the step reached, and why the last attempt failed (or "")."""
        saved = progress.load()
        self.state = RotationState.from_dict(saved) if saved else RotationState()
        self.resumed = saved is not None

    # --- reading -----------------------------------------------------------------

    @property
    def step(self) -> Step:
        return Step(self.state.step)

    @property
    def in_progress(self) -> bool:
        return self.resumed or self.state.started_at != ""

    @property
    def error(self) -> str:
        return self.state.error

    @property
    def where(self) -> str:
        """The profile's base URL, cleaned (it was read from a file); the built-in profiles' by name."""
        if self.profile.embedded:
            return "the built-in simulated production" if self.profile.is_production else "the built-in sandbox"
        return clean(self.profile.base_url, 120)

    @property
    def shared_warning(self) -> str:
        """What deleting the old key would also break, or "" when no other profile uses it."""
        if not self.shared_with or self.step > Step.DELETE_OLD:
            return ""
        names = ", ".join(clean(n, 40) for n in self.shared_with)
        many = len(self.shared_with) > 1
        return (
            f"The old key is also the key of profile{'s' if many else ''} {names}: deleting it in the dashboard "
            f"stops {'them' if many else 'it'} too. Give {'them' if many else 'it'} the new key (Profiles & keys, e) "
            "before you delete the old one."
        )

    def _key(self, role: str = "") -> ApiKey | None:
        return self.vault.get(entry_name(self.profile.name, role))

    # --- the steps -----------------------------------------------------------------

    def start(self) -> Step:
        """Begin (or resume, putting right what an interruption left behind)."""
        if self.resumed:
            self._reconcile()
            return self.step
        current = self._key()
        if current is None:
            raise RotationError(f"Profile {clean(self.profile.name, 40)} has no key in the key store to rotate.")
        self.state = RotationState(
            step=Step.GENERATE,
            profile=self.profile.name,
            environment=self.profile.environment,
            base_url=self.profile.base_url,
            started_at=self.clock().isoformat(),
            old_key=current.masked,
        )
        self._save(None)
        return self.step

    def confirm_generated(self) -> None:
        self._expect(Step.GENERATE)
        self._go(Step.PASTE)

    def paste(self, key: ApiKey) -> None:
        self._expect(Step.PASTE)
        current = self._key()
        if current is not None and key == current:
            self._fail("This is the key the profile already uses. Create a new key in the dashboard and paste that.")
        self.vault.set(entry_name(self.profile.name, PENDING), key)
        self.state.new_key = key.masked
        self._go(Step.VERIFY_NEW)

    async def verify_new(self) -> bool:
        """Ping with the new key against this profile's base URL. A refused key goes back to pasting."""
        self._expect(Step.VERIFY_NEW)
        pending = self._key(PENDING)
        if pending is None:
            self._back_to_paste("The pasted key is no longer in the key store; paste it again.")
            return False
        problem = await self._ping(pending)
        if problem is None:
            self._go(Step.SWITCH)
            return True
        if isinstance(problem, Unauthorized):
            self.vault.delete(entry_name(self.profile.name, PENDING))
            self._back_to_paste(
                f"The new key was refused by {self.where} ({error_text(problem)}). "
                f"Nothing was switched. Is it a key of the {self.profile.environment} environment, copied whole? "
                "Paste it again."
            )
        else:
            self._go(Step.VERIFY_NEW, f"The new key could not be checked ({error_text(problem)}).")
        return False

    def switch(self) -> None:
        """The profile now uses the new key; the old one is kept aside until it is verified dead."""
        self._expect(Step.SWITCH)
        name = self.profile.name
        pending, current, previous = self._key(PENDING), self._key(), self._key(PREVIOUS)
        if pending is None:
            if current is not None and previous is not None and current != previous:
                self._go(Step.DELETE_OLD)  # the switch itself was done before an interruption
                return
            self._back_to_paste("The pasted key is no longer in the key store; paste it again.")
            raise RotationError(self.state.error)
        if current is not None and current != pending:
            self.vault.set(entry_name(name, PREVIOUS), current)
        self.vault.set(entry_name(name), pending)
        self.vault.delete(entry_name(name, PENDING))
        when = self.clock()
        self.state.switched_at = when.isoformat()
        self.on_switched(when, jwt_issued_at(pending, when) or when)
        self._go(Step.DELETE_OLD)

    def confirm_deleted(self) -> None:
        self._expect(Step.DELETE_OLD)
        self._go(Step.VERIFY_OLD)

    async def verify_old(self) -> bool:
        """The old key must now get 401; only then is it forgotten."""
        self._expect(Step.VERIFY_OLD)
        previous = self._key(PREVIOUS)
        if previous is None:
            self._finish()
            return True
        problem = await self._ping(previous)
        if isinstance(problem, Unauthorized):
            self.vault.delete(entry_name(self.profile.name, PREVIOUS))
            self._finish()
            return True
        if problem is None:
            message = (
                f"The old key {previous.masked} still works. Delete it in the dashboard "
                "(Developer, then API Keys), then check again. It is kept until it is refused."
            )
            self._go(Step.DELETE_OLD, message)
        else:
            self._go(Step.VERIFY_OLD, f"The old key could not be checked ({error_text(problem)}).")
        return False

    def kept_old_key(self) -> ApiKey | None:
        """The old key while it waits to be verified dead (the simulated dashboard deletes it)."""
        return self._key(PREVIOUS)

    @property
    def can_abandon(self) -> bool:
        return self.step < Step.SWITCH

    def abandon(self) -> None:
        """Give up before the switch: the pasted key is forgotten, the profile keeps its key."""
        if not self.can_abandon:
            raise RotationError("The profile already uses the new key: finish by deleting and checking the old one.")
        self.vault.delete(entry_name(self.profile.name, PENDING))
        if self.on_step is not None:
            self.on_step(StepEvent(self.step, self.step, abandoned=True))
        self.progress.clear()
        self.state = RotationState()
        self.resumed = False

    def close(self) -> None:
        """Forget a finished rotation's progress."""
        if self.step == Step.DONE:
            self.progress.clear()

    # --- plumbing ------------------------------------------------------------------

    async def _ping(self, key: ApiKey) -> APIError | None:
        client = self.client_for(self.profile, key)
        try:
            await client.ping()
        except APIError as exc:
            return exc
        finally:
            await client.aclose()
        return None

    def _reconcile(self) -> None:
        pending_needed = self.step in (Step.VERIFY_NEW, Step.SWITCH)
        if pending_needed and self._key(PENDING) is None and self._key(PREVIOUS) is None:
            self._back_to_paste("The pasted key was not kept (it lives only in the key store); paste it again.")

    def _finish(self) -> None:
        self.state.finished_at = self.clock().isoformat()
        self._go(Step.DONE)

    def _back_to_paste(self, message: str) -> None:
        self.state.new_key = ""
        self._go(Step.PASTE, message)

    def _fail(self, message: str) -> None:
        self.state.error = clean(message, 600)
        self._save(self.step)
        raise RotationError(message)

    def _expect(self, step: Step) -> None:
        if self.step != step:
            raise RotationError(
                f"The wizard is at step {self.step.value} ({STEP_TITLES[self.step]}), "
                f"not at step {step.value} ({STEP_TITLES[step]})."
            )

    def _go(self, step: Step, error: str = "") -> None:
        taken = self.step
        self.state.step = step
        self.state.error = clean(error, 600)
        self._save(taken)

    def _save(self, taken: Step | None) -> None:
        """Keep the progress, and tell `on_step` how the step `taken` came out (None: the rotation began)."""
        try:
            self.progress.save(self.state.to_dict())
        except NotWritten as exc:  # the rotation goes on in memory; only resuming it later is lost
            self.not_saved = f"{exc} Closed now, the wizard could not resume at this step."
        if self.on_step is not None:
            self.on_step(StepEvent(taken, self.step, self.state.error))
