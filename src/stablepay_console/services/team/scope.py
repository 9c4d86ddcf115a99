"""The team record, when this machine uses one: which URL, who we are in it, what a record is keyed by.

`team_setup` reads the choice (`STABLEPAY_RECORD_URL`, else the URL `record use` saved) and gives the
worker that every record call goes through, backed by PostgreSQL instead of the local file. When the
URL is refused (a password in it, no TLS to a remote host) or PostgreSQL support is not installed,
the worker refuses every call with that message: nothing is ever written to the local file instead.

Records are keyed by the API server, not by this machine's profile names: `server_key` is the
environment and the normalised base URL, so `prod` on one laptop and `live` on another share one
history. The built-in sandboxes are simulations made on each machine, so their records stay apart:
their key names the machine.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from stablepay_console.api.sanitize import clean
from stablepay_console.profiles.model import Profile
from stablepay_console.storage.postgres import url as record_url
from stablepay_console.storage.record import Record, RecordError
from stablepay_console.storage.record_worker import RecordWorker
from stablepay_console.storage.witness import Witness


def machine() -> str:
    try:
        return clean(socket.gethostname(), 60) or "this machine"
    except OSError:
        return "this machine"


def server_key(profile: Profile) -> str:
    """What the team record files a profile's records under: `production https://api.example`."""
    if profile.embedded:
        return f"{profile.environment} built-in simulation on {machine()}"
    parts = urlsplit(profile.base_url.strip())
    host = (parts.hostname or "").lower()
    port = f":{parts.port}" if parts.port and parts.port != {"https": 443, "http": 80}.get(parts.scheme) else ""
    path = parts.path.rstrip("/")
    return f"{profile.environment} {parts.scheme.lower()}://{host}{port}{path}"


@dataclass
class Team:
    """The team record in use: its URL (checked), where it came from, and who we are in it."""

    url: record_url.TeamUrl | None
    source: str
    problem: str = ""
    """Why it cannot be used at all (a refused URL, PostgreSQL support missing); "" when it can be tried."""
    role: str = ""
    lead: bool = False
    reachable: bool | None = None
    """None until the console's listener first tried; then whether the database could be reached."""

    @property
    def where(self) -> str:
        return self.url.where if self.url is not None else "(no usable URL)"

    def actor(self, profile: str = "") -> str:
        """Who notes, claims and audit entries name: the database role (never a typed name)."""
        return self.role or (self.url.role if self.url is not None else "unknown")

    def set_role(self, role: str) -> None:
        self.role = role


def chosen_team() -> Team | None:
    """The team record chosen on this machine, or None for the local file."""
    found = record_url.chosen()
    if found is None:
        return None
    text, source = found
    try:
        url = record_url.parse(text)
    except record_url.RecordUrlError as exc:
        return Team(None, source, problem=f"The team record URL from {source} cannot be used: {exc}")
    team = Team(url, source)
    try:
        from stablepay_console.storage.postgres.connection import need_psycopg

        need_psycopg()
    except RecordError as exc:
        team.problem = str(exc)
    return team


def team_opener(team: Team, scope_of: Callable[[str], str]) -> Callable[[bool], Record]:
    """What the record worker opens: the team's PostgreSQL (or, when it cannot be used, a refusal)."""

    def open_team(check: bool) -> Record:
        if team.problem or team.url is None:
            raise RecordError(team.problem)
        from stablepay_console.storage.postgres.store import PgRecord

        return PgRecord(team.url, scope_of, on_role=team.set_role)

    return open_team


def team_worker(team: Team, find: Callable[[str], Profile | None], witness: Witness | None = None) -> RecordWorker:
    """The record worker of a console or command in team mode; records keyed by `scope_for(find)`."""
    return RecordWorker(team_opener(team, scope_for(find)), witness=witness)


def scope_for(find: Callable[[str], Profile | None]) -> Callable[[str], str]:
    """Profile name -> server key; a name no profile has (an old one) stays apart, named with the machine."""

    def scope_of(name: str) -> str:
        profile = find(name) if name else None
        if profile is not None:
            return server_key(profile)
        return f"profile {name} on {machine()}" if name else ""

    return scope_of
