"""Wiring: the typed `Services` object the console and the shell commands receive.

The one place the embedded sandboxes are plugged in: the screens never import the sandbox; what
it offers them (its bookmarked metrics, its sample IDs) comes through here.
"""

from __future__ import annotations

import functools
import gc
import secrets
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from stablepay_console.api.secret import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE, EMBEDDED_PROFILES, Profile
from stablepay_console.profiles.simulated import SimulatedVault
from stablepay_console.services.audit import verify as audit_verify
from stablepay_console.services.history import HistoryRecorder
from stablepay_console.services.team.scope import chosen_team, team_worker
from stablepay_console.storage.locations import witness_file
from stablepay_console.storage.record_worker import RecordWorker
from stablepay_console.storage.witness import Witness

if TYPE_CHECKING:
    import httpx

    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.dashboard import SandboxDashboard
    from stablepay_console.api.models import Rfi
    from stablepay_console.sandbox import Sandbox
    from stablepay_console.services.audit import AuditLog
    from stablepay_console.services.notes import Notes
    from stablepay_console.services.switching import SwitchOutcome
    from stablepay_console.services.triage.service import Triage

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Services:
    """What the console needs from below: clients, the profile book, dashboards, the sandbox's offers.

    The built-in profiles talk to in-process sandboxes (a sandbox, and a simulated production that only
    accepts keys it created), kept for the whole run so their state survives profile switches; their
    keys live in `embedded_vault` for this run only. Other profiles get their key from the profile book.
    """

    def __init__(
        self,
        *,
        sandbox: Sandbox | None = None,
        sandbox_rfis: int = 240,
        sandbox_seed: int = 7,
        production_sandbox: Sandbox | None = None,
        transport_for: Callable[[Profile], httpx.AsyncBaseTransport | None] | None = None,
        book: ProfileBook | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self._sandbox = sandbox
        self._production = production_sandbox
        self.sandbox_rfis = sandbox_rfis
        self.sandbox_seed = sandbox_seed
        self.clock = clock
        self.team = chosen_team()
        """The team record (PostgreSQL) when one is chosen (STABLEPAY_RECORD_URL, `record use`); None: the file."""
        witness = Witness(witness_file(), holds=lambda record: audit_verify(record).ok)  # moves on a good chain
        self.record = (team_worker(self.team, lambda name: self.book.find(name), witness) if self.team
                       else RecordWorker(witness=witness))
        """The record (round history, notes, claims, audit log), used on its own thread."""
        self.record_clock: Clock = clock
        """When what is recorded happened: the console puts its own clock here (which tests fix)."""
        self.history = HistoryRecorder(self.record)
        self.transport_for = transport_for
        """Tests route configured profiles to an in-process sandbox with this; None means the network."""
        self.book = book or ProfileBook(embedded=EMBEDDED_PROFILES, embedded_vault=SimulatedVault(), clock=clock)
        """The one profile book of this run; the built-in profiles' keys live in its memory vault."""
        self.embedded_vault = self.book.embedded_vault
        self.embedded_profiles = self.book.embedded
        from stablepay_console.sandbox import SANDBOX_KEY

        self.embedded_vault.set(EMBEDDED_PROFILE.name, ApiKey(SANDBOX_KEY))
        if isinstance(self.embedded_vault, SimulatedVault):
            self.embedded_vault.start(clock())  # its key, key date and rotation are kept in the data folder
        else:
            self.embedded_vault.set(EMBEDDED_PRODUCTION_PROFILE.name, ApiKey(f"sk_production_{secrets.token_hex(16)}"))
        if production_sandbox is not None:
            self._accept_production_key(production_sandbox)

    # --- what is recorded by hand: made on first use (a command that only reads imports none of it) -----------

    def _actor(self) -> Callable[[str], str]:
        from stablepay_console.services.notes import author_for

        return self.team.actor if self.team else author_for

    @functools.cached_property
    def audit(self) -> AuditLog:
        from stablepay_console.services.audit import AuditLog

        return AuditLog(self.record, self._actor(), self.recorded_at)

    @functools.cached_property
    def notes(self) -> Notes:
        from stablepay_console.services.notes import Notes

        return Notes(self.record, self.audit, self.recorded_at, self._actor())

    @functools.cached_property
    def triage(self) -> Triage:
        """Triage steps (ready, approve, reject, wait, resume), the service-level policy, the report."""
        from stablepay_console.services.triage.service import Triage

        return Triage(self.record, self.audit, self.recorded_at, self._actor())

    # --- the embedded sandboxes -------------------------------------------------------

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            from stablepay_console.sandbox import Sandbox
            from stablepay_console.storage.sandbox_clock import sandbox_anchor

            anchor = sandbox_anchor(datetime.now(timezone.utc))  # the same world for a restart: no new round entries
            self._sandbox = Sandbox(seed=self.sandbox_seed, rfis=self.sandbox_rfis, anchor=anchor)
            # Its data lives as long as the process: keep the cyclic GC from rescanning it, which
            # takes over half a second with a large sandbox and freezes the UI when it happens.
            gc.freeze()
        return self._sandbox

    @property
    def production_sandbox(self) -> Sandbox:
        """The simulated production: it accepts only the key made for it at start-up (and those its dashboard makes)."""
        if self._production is None:
            from stablepay_console.sandbox import Sandbox

            self._production = Sandbox(
                seed=self.sandbox_seed, rfis=self.sandbox_rfis, now=self.sandbox.data.now, environment="production"
            )
            self._accept_production_key(self._production)
        return self._production

    def _accept_production_key(self, sandbox: Sandbox) -> None:
        vault = self.embedded_vault
        kept = vault.simulator_keys() if isinstance(vault, SimulatedVault) else {}
        sandbox.state.keys.update({value: name for value, name in kept.items() if value not in sandbox.state.keys})
        key = vault.get(EMBEDDED_PRODUCTION_PROFILE.name)
        if key is not None:
            sandbox.state.keys.setdefault(key.reveal(), "console demo key")
        if isinstance(vault, SimulatedVault):
            sandbox.state.on_keys_changed = vault.record_simulator_keys
            sandbox.state.keys_changed()

    def _sandbox_for(self, profile: Profile) -> Sandbox:
        return self.production_sandbox if profile.is_production else self.sandbox

    def _transport(self, profile: Profile) -> httpx.AsyncBaseTransport | None:
        if profile.embedded:
            import httpx  # here, not at the top: `rfis due` from the team watcher asks no server, and loads no httpx

            return httpx.ASGITransport(app=self._sandbox_for(profile).app)
        return self.transport_for(profile) if self.transport_for is not None else None

    # --- what the console asks for -------------------------------------------------

    def key(self, profile: Profile) -> ApiKey:
        if profile.embedded:
            self._sandbox_for(profile)  # the simulated production makes its key on first use
            key = self.embedded_vault.get(profile.name)
            if key is None:
                raise LookupError(f"The built-in profile {profile.name!r} has no key.")
            return key
        return self.book.key_for(profile)

    def client_for(self, profile: Profile) -> StablePayClient:
        """A client for `profile` with its own key; every RFI it receives goes to the local record."""
        recording = self.history.hook(profile.name, profile.environment, self.recorded_at)
        return self.client_with(profile, self.key(profile), on_rfis=recording)

    @property
    def team_record(self) -> RecordWorker | None:
        """The record's worker when it is the team record (what `services/team` reads); None: the local file."""
        return self.record if self.team else None

    def recorded_at(self) -> datetime:
        return self.record_clock()

    def client_with(
        self, profile: Profile, key: ApiKey, on_rfis: Callable[[list[Rfi]], None] | None = None
    ) -> StablePayClient:
        """A client for `profile`'s base URL with a given key (the rotation wizard's checks use it bare)."""
        from stablepay_console.api.client import StablePayClient

        return StablePayClient(profile.base_url, key, transport=self._transport(profile), on_rfis=on_rfis)

    def dashboard(self, profile: Profile) -> SandboxDashboard | None:
        """The simulated dashboard of a built-in profile's sandbox; None for real environments."""
        if not profile.embedded:
            return None
        from stablepay_console.api.dashboard import SandboxDashboard

        return SandboxDashboard(profile.base_url, transport=self._transport(profile))

    def bookmark_defaults(self, profile: Profile) -> list[tuple[str, str]]:
        """(name, metric ID) pairs a built-in profile starts with; none for real environments."""
        if not profile.embedded:
            return []
        from stablepay_console.sandbox import data

        return list(data.BOOKMARKED_METRICS)

    def sample_ids(self, profile: Profile, kind: str) -> list[tuple[str, str]]:
        """(what case it shows, ID) of the built-in sandbox's samples of `kind` ("batch", "onramp"); none elsewhere."""
        if not profile.embedded:
            return []
        from stablepay_console.sandbox import data

        return [(label, value) for sample_kind, label, value in data.SAMPLE_IDS if sample_kind == kind]

    async def switch(self, profile: Profile) -> SwitchOutcome:
        """Resolve the key, build the client, ping: one call, one result with its provenance."""
        from stablepay_console.services.switching import switch_profile

        return await switch_profile(profile, self.book, self.client_for, self.clock)
