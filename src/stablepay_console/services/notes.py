"""Notes and claims on a request: many notes each, one claim at a time ("I'm on it"). Each is audited.

The author is the OS user name unless the profile's preferences set `author` (a team's shared
machine account should say who is typing); in a browser, the name the web server signed in. Nothing
here waits on the disk by itself: each call returns a future from the record's thread; the screens
await it, the shell commands wait on it.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable
from concurrent.futures import Future
from datetime import datetime, timedelta

from stablepay_console.api.sanitize import clean, has_control
from stablepay_console.profiles.model import Profile
from stablepay_console.services.audit import AuditLog
from stablepay_console.storage import variables
from stablepay_console.storage.prefs import Prefs
from stablepay_console.storage.record import Offer, Record
from stablepay_console.storage.record_types import Claim, ClaimOutcome, Note
from stablepay_console.storage.record_worker import RecordWorker

MAX_NOTE = 20_000
"""The most characters a note or a step's note holds (the team record's database refuses a longer one too)."""
AUTHOR_PREF = "author"


def os_user() -> str:
    try:
        return clean(getpass.getuser(), 80) or "unknown"
    except (OSError, KeyError, ImportError):
        return "unknown"


WEB_USER_VARIABLE = variables.WEB_USER


def author_for(profile: str) -> str:
    """In a browser, who signed in (`stablepay-console web` sets STABLEPAY_WEB_USER: the server's OS user and
    preferences are everyone's); else the profile's `author` preference, else the OS user name."""
    signed_in = os.environ.get(WEB_USER_VARIABLE, "").strip()
    if signed_in and not has_control(signed_in):
        return clean(signed_in, 80)
    if profile:
        chosen = Prefs(profile).get(AUTHOR_PREF)
        if isinstance(chosen, str) and chosen.strip() and not has_control(chosen):
            return clean(chosen.strip(), 80)
    return os_user()


def check_note(text: str) -> str:
    """The note as it will be kept; ValueError when it is empty, too long or holds control characters."""
    value = text.strip()
    if not value:
        raise ValueError("The note is empty.")
    if has_control(value, allow="\n\t"):
        raise ValueError("The note holds control characters or escape sequences; type plain text.")
    if len(value) > MAX_NOTE:
        raise ValueError(
            f"A note holds at most {MAX_NOTE:,} characters; this one has {len(value):,}. Nothing was sent.")
    return value


class Notes:
    def __init__(
        self, worker: RecordWorker, audit: AuditLog, clock: Callable[[], datetime],
        author_of: Callable[[str], str] = author_for,
    ) -> None:
        self.worker = worker
        self.audit = audit
        self.clock = clock
        self.author_of = author_of

    def add(self, profile: Profile, rfi_id: str, text: str, author: str | None = None) -> Future[Note]:
        """Keep a note (ValueError at once for an empty or unsafe one) and audit it."""
        body = check_note(text)
        who = clean(author, 80) if author else self.author_of(profile.name)
        at = self.clock()
        entry = self.audit.draft("note.add", profile, target=rfi_id, actor=who, chars=len(body), text=body)

        def write(record: Record) -> Note:
            with record.transaction():
                note = record.add_note(profile.name, rfi_id, who, body, at)
                record.append_audit(entry)
            return note

        return self.worker.submit(write)

    def claim(
        self, profile: Profile, rfi_id: str, author: str | None = None, lapse: timedelta | None = None
    ) -> Future[ClaimOutcome]:
        """Claim it; `lapse` (the team record only) makes the claim end by itself after that long."""
        who = clean(author, 80) if author else self.author_of(profile.name)
        at = self.clock()

        def write(record: Record) -> ClaimOutcome:
            with record.transaction():
                outcome = record.claim(profile.name, rfi_id, who, at, lapse=lapse)
                held = outcome.claim
                if outcome.done and Offer.ACT_ENTRIES in record.offers:
                    return outcome  # the store wrote the claim's entry with it
                result = "claimed" if outcome.done else f"refused: claimed by {held.claimant if held else '?'}"
                until = {"until": held.until.isoformat()} if outcome.done and held and held.until else {}
                record.append_audit(self.audit.draft("claim", profile, target=rfi_id, outcome=result,
                                                     actor=who, **until))
            return outcome

        return self.worker.submit(write)

    def release(
        self, profile: Profile, rfi_id: str, author: str | None = None, *, force: bool = False
    ) -> Future[ClaimOutcome]:
        who = clean(author, 80) if author else self.author_of(profile.name)

        def write(record: Record) -> ClaimOutcome:
            with record.transaction():
                outcome = record.release(profile.name, rfi_id, who, force=force)
                before = outcome.previous
                if outcome.done and Offer.ACT_ENTRIES in record.offers:
                    return outcome  # the store wrote the release's entry with it
                if outcome.done:
                    result = ("released" if before is None or before.claimant == who
                              else f"released {before.claimant}'s")
                else:
                    result = "refused: not claimed" if before is None else f"refused: claimed by {before.claimant}"
                record.append_audit(self.audit.draft("claim.release", profile, target=rfi_id, outcome=result,
                                                     actor=who))
            return outcome

        return self.worker.submit(write)

    def notes_of(self, profile: str, rfi_id: str) -> Future[list[Note]]:
        return self.worker.submit(lambda record: record.notes(profile, rfi_id))

    def claim_of(self, profile: str, rfi_id: str) -> Future[Claim | None]:
        return self.worker.submit(lambda record: record.claim_of(profile, rfi_id))

    def claims(self, profile: str) -> Future[dict[str, Claim]]:
        return self.worker.submit(lambda record: record.claims(profile))
