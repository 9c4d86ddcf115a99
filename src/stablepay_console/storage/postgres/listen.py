"""Hearing the team: LISTEN on `stablepay_record`, where the database announces every note and claim change.

`TeamListener` runs on a thread of its own with a connection of its own (autocommit, as LISTEN
needs). `on_change` is told each change as it is committed elsewhere; `on_state` whether the
database is reachable, each time that changes. When the connection drops it tries again, waiting
1 s, 2 s, 4 s … up to 30 s between tries, and once back it says `Change("resync")`: what happened
while it was away was not heard, so whoever listens reads again.

A change announced is only a hint to read again: any member may NOTIFY the channel, with any text. However
many arrive, `on_change` is told at most once per `HINT_SECONDS`: the first change at once, the rest of the
window's changes when it ends, as that one change if they were all one, else as one `resync`. Nothing is parsed
per announcement: the window keeps the first one's text and whether any other differed, and only a change told
as itself is parsed. More than `FLOOD` in one window is a flood: the listener stops listening (UNLISTEN) for the
rest of the window, so the database sends it no more of them, then listens again and says `resync`. A flood
costs a console a few milliseconds a window, however fast it is sent.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import record_json
from stablepay_console.storage.postgres.connection import connect, deadline, need_psycopg, reason
from stablepay_console.storage.postgres.url import TeamUrl
from stablepay_console.storage.record import RecordError

log = logging.getLogger(__name__)

CHANNEL = "stablepay_record"
FIRST_WAIT, LONGEST_WAIT = 1.0, 30.0
POLL_SECONDS = 0.5
"""How often the thread looks up from waiting for notifications (to stop promptly)."""
CHECK_SECONDS = 5.0
"""How often a quiet connection is checked, so a server that went away is noticed."""
CHECK_ANSWER_SECONDS = 10.0
"""How long that check waits for an answer: the banner says "team record unreachable" within about 15 s."""
HINT_SECONDS = 2.0
"""At most one re-read per this long, however many changes are announced (a flood of forged ones included)."""


FLOOD = 200
"""Announcements in one window past which the listener stops listening until the window ends."""
FLOOD_SAID_SECONDS = 60.0
"""A flood is said in the log at most once per this long."""


class Hints:
    """The changes heard, told on at most once per `seconds`: one change as itself, several as one resync.

    An announcement is kept as its text, unparsed: the first of the window, and whether another differed."""

    def __init__(self, tell: Callable[[Change], None], seconds: float = HINT_SECONDS) -> None:
        self.tell = tell
        self.seconds = seconds
        self.first: str | None = None
        """The window's first announcement, as sent (None: none heard; RESYNC: read everything again)."""
        self.several = False
        self.count = 0
        self.told_at = float("-inf")

    @property
    def pending(self) -> bool:
        return self.first is not None

    @property
    def flooded(self) -> bool:
        return self.count > FLOOD

    def add(self, change: Change) -> None:
        """A change the listener itself knows of (a resync after a reconnect)."""
        self.heard(RESYNC if change.kind == "resync" else None)

    def heard(self, payload: str | None) -> None:
        """One announcement's text, as it came (None or RESYNC: read everything again)."""
        self.count += 1
        text = RESYNC if payload is None else payload
        if self.first is None:
            self.first = text
        elif not self.several and text != self.first:
            self.several = True
        self.flush()

    def deafen(self) -> None:
        """The listener stops listening until the window ends: the window is told as a resync."""
        self.first, self.several = RESYNC, True

    def wait(self, longest: float) -> float:
        """How long the listener may wait for more before the window's changes are due."""
        if not self.pending:
            return longest
        return max(0.0, min(longest, self.told_at + self.seconds - time.monotonic()))

    def flush(self) -> None:
        if time.monotonic() - self.told_at < self.seconds:
            return
        self.count = 0
        if self.first is None:
            return
        first, several = self.first, self.several
        self.first, self.several = None, False
        change = Change("resync") if several or first == RESYNC else parse_change(first)
        if change is None:  # the window held one announcement, unreadable: nothing to read again
            return
        self.told_at = time.monotonic()
        self.tell(change)


RESYNC = "\x00resync"
"""A window's marker for "read everything again" (no announcement's text: NOTIFY refuses a NUL byte)."""


@dataclass(frozen=True)
class Change:
    kind: str
    """"notes", "claims", or "resync" (read everything again: changes may have been missed)."""
    server: str = ""
    rfi_id: str = ""
    who: str = ""
    op: str = ""


def parse_change(payload: str) -> Change | None:
    try:
        data = record_json.loads(payload, max_chars=8000, max_depth=2)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return Change(*(clean(str(data.get(k, "")), 2000) for k in ("kind", "server", "rfi", "who", "op")))


class TeamListener:
    def __init__(
        self,
        url: TeamUrl,
        on_change: Callable[[Change], None],
        on_state: Callable[[bool, str], None] | None = None,
        first_wait: float = FIRST_WAIT,
        longest_wait: float = LONGEST_WAIT,
        hint_seconds: float = HINT_SECONDS,
    ) -> None:
        self.url = url
        self.on_change = on_change
        self.on_state = on_state
        self.first_wait, self.longest_wait = first_wait, longest_wait
        self.hint_seconds = hint_seconds
        self.reachable: bool | None = None
        self.problem = ""
        self.tries = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> TeamListener:
        self._thread = threading.Thread(target=self._run, name="stablepay-team-listen", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _state(self, reachable: bool, problem: str = "") -> None:
        if reachable == self.reachable and problem == self.problem:
            return
        self.reachable, self.problem = reachable, problem
        if self.on_state is not None:
            try:
                self.on_state(reachable, problem)
            except Exception:  # whoever listens must not stop the listening
                log.warning("Could not pass on the team record's state", exc_info=True)

    def _tell(self, change: Change) -> None:
        try:
            self.on_change(change)
        except Exception:
            log.warning("Could not pass on a change of the team record", exc_info=True)

    def _run(self) -> None:
        wait = self.first_wait
        while not self._stop.is_set():
            self.tries += 1
            try:
                self._listen()
                wait = self.first_wait
            except RecordError as exc:
                self._state(False, str(exc))
            except Exception as exc:  # a dropped connection, mid-wait
                self._state(False, f"The team record at {self.url.where} was lost: {reason(exc)}")
            if self._stop.wait(wait):
                return
            wait = min(wait * 2, self.longest_wait)

    def _listen(self) -> None:
        pg = need_psycopg()
        conn = connect(self.url, autocommit=True)
        try:
            conn.execute(pg.sql.SQL("LISTEN {}").format(pg.sql.Identifier(CHANNEL)))
            was_down = self.reachable is False
            self._state(True)
            hints = Hints(self._tell, self.hint_seconds)
            if was_down:
                hints.add(Change("resync"))
            checked = time.monotonic()
            deaf = False
            flood_said = float("-inf")
            while not self._stop.is_set():
                for note in conn.notifies(timeout=hints.wait(POLL_SECONDS)):
                    if deaf:
                        continue  # sent before the UNLISTEN: the window says resync anyway
                    hints.heard(note.payload)
                    if self._stop.is_set():
                        return
                    if hints.flooded:
                        break
                if hints.flooded and not deaf:
                    conn.execute(pg.sql.SQL("UNLISTEN {}").format(pg.sql.Identifier(CHANNEL)))
                    deaf = True
                    hints.deafen()
                    if time.monotonic() - flood_said > FLOOD_SAID_SECONDS:
                        flood_said = time.monotonic()
                        log.warning("The team record's announcements flood in (over %d in %.0f s); listening again "
                                    "each %.0f s, and reading everything again then", FLOOD, hints.seconds,
                                    hints.seconds)
                if deaf and hints.wait(POLL_SECONDS) == 0:
                    # The window is over: listen again before it is told as one resync, so a change made after the
                    # re-read began is heard, not lost between the two.
                    conn.execute(pg.sql.SQL("LISTEN {}").format(pg.sql.Identifier(CHANNEL)))
                    deaf = False
                hints.flush()
                if time.monotonic() - checked > CHECK_SECONDS:
                    with deadline(conn, CHECK_ANSWER_SECONDS):  # a server that went away, or stopped answering
                        conn.execute("SELECT 1")
                    checked = time.monotonic()
        finally:
            conn.close()
