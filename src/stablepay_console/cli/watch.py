"""`rfis watch`: poll the requests, print one line (or one JSON object) per event, remember across restarts.

Events: a new request, a new round (compliance asked again), a status change, a deadline crossing
72 h, 24 h and 1 h, a deadline passed (see `services.watch_events`). Each poll reads the newest page
(new requests), every `--sweep` all issued requests (new rounds, status changes), and nothing for
deadlines, which the clock finds (see `services.watch_poll`). What was seen, and when the last sweep
was, is saved in the data folder after each poll, so a restart (or the next `--once` from cron) does
not repeat old events or sweep again early. A failed poll is reported on stderr and retried later,
backing off, and never sooner than the server's `Retry-After`.

With `--webhooks HOST:PORT --webhook-key FILE` (the team record only) the watch also receives the provider's
deliveries (`cli.webhooks`, `services.webhooks`): each is verified, taken once in the team record, and its
events print at once (`"via": "webhook"`; a poll's say `"via": "poll"`).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from stablepay_console.cli.durations import format_duration
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.session import FAILED, OK, USAGE, Session, open_session, run_async

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.errors import APIError
    from stablepay_console.cli.webhooks import Listen
    from stablepay_console.services.watch.events import WatchEvent
    from stablepay_console.services.watch.hints import Learned
    from stablepay_console.services.watch.poll import IncrementalWatch

MAX_BACKOFF = timedelta(hours=1)


def retry_after(exc: APIError, now: datetime) -> timedelta | None:
    """The server's `Retry-After` (seconds or an HTTP date), if the failed response carried one."""
    response = exc.response
    value = response.headers.get("retry-after") if response is not None else None
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return timedelta(seconds=min(int(value), int(MAX_BACKOFF.total_seconds())))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(timedelta(0), min(when - now, MAX_BACKOFF))


def backoff(interval: timedelta, failures: int, server_says: timedelta | None) -> timedelta:
    """After `failures` failed polls in a row: twice the interval, then four times... at most an hour
    (or the interval, when that is longer); never sooner than the server asked."""
    ours = min(interval * (2 ** min(failures, 10)), max(MAX_BACKOFF, interval))
    return max(ours, server_says or timedelta(0))


Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Hooks:
    """`--webhooks` and `--webhook-key`: where to listen, and the key that verifies each delivery."""

    where: Listen
    key: RSAPublicKey


class Watcher:
    def __init__(self, session: Session, out: Output, sleep: Sleep = asyncio.sleep,
                 sweep: timedelta | None = None) -> None:
        from stablepay_console.services.watch.events import Tracker
        from stablepay_console.services.watch.poll import DEFAULT_SWEEP, IncrementalWatch
        from stablepay_console.storage import watch_state

        self.session = session
        self.out = out
        self.sleep = sleep
        tracker = Tracker()
        tracker.load_json(watch_state.load(session.profile.name, session.profile.base_url))
        self.watch: IncrementalWatch = IncrementalWatch(tracker, sweep or DEFAULT_SWEEP)
        self.interval = timedelta(minutes=5)
        """Between polls; a team record hears it with each sweep (a console trusts two of them)."""
        self.recorded = True
        """Whether the record holds everything the last poll received."""

    def now(self) -> datetime:
        return self.session.services.clock()

    def _print(self, events: list[WatchEvent], via: str = "poll") -> None:
        """Each event, saying how it was learned: `poll` (the watch asked) or `webhook` (a delivery said to ask)."""
        for event in events:
            if self.out.fmt == "json":
                self.out.json({**event.to_json(), "via": via}, one_line=True)
            else:
                self.out.write(event.line() + (" · via webhook" if via == "webhook" else "") + "\n")

    def _save(self) -> None:
        from stablepay_console.storage import watch_state

        profile = self.session.profile
        watch_state.save(profile.name, profile.base_url, self.watch.tracker.to_json())

    async def poll(self, client: StablePayClient) -> int:
        """One poll: print its events, then remember them (and, with a team record, mark the sweep there
        for the team's consoles). The number of events.

        A poll that fails part way still prints (and remembers) what it found before the failure, and
        the deadlines the clock found; then the failure is raised."""
        from stablepay_console.services.team.radar import publish

        first = not self.watch.tracker.primed
        try:
            events = await self.watch.poll(client, self.now())
        finally:
            self._print(self.watch.events)
            self._save()
        self.recorded = await self._recorded()
        if self.recorded:
            session = self.session
            publish(session.services.team_record, session.profile, self.watch.tracker, self.now(), self.interval)
        if first:
            note(f"First poll: {len(self.watch.tracker.seen)} requests remembered (every issued request and the "
                 "newest page); from now on new requests and rounds are reported.")
        return len(events)

    async def _recorded(self) -> bool:
        """Wait until the record holds every request this poll received (a first sweep of a large account is
        tens of thousands of rows); False, said on stderr, when some of it could not be saved. Only a sweep
        whose requests are all recorded is marked: the team's consoles read the record while it is fresh."""
        from stablepay_console.storage.record import RecordError

        record = self.session.services.record
        failed = record.unsaved
        try:
            await record.run(lambda _: None)  # runs after every write handed over before it
        except RecordError as exc:
            fail(f"the requests received were not recorded: {exc}")
            return False
        if record.unsaved == failed:
            return True
        fail(f"the requests received were not all recorded ({record.last_unsaved}); the sweep is not marked, "
             "so the team's consoles read the API until the next one")
        return False

    def taken(self, learned: Learned) -> None:
        """A webhook delivery was taken: its events at once, and the memory saved (as after a poll)."""
        self._print(learned.events, via="webhook")
        self._save()

    async def run(self, interval: timedelta, once: bool, hooks: Hooks | None = None) -> int:
        self.interval = interval
        if not once:  # a long-running watch sweeps at most once per poll
            self.watch.sweep_every = max(self.watch.sweep_every, interval)
        async with self.session.client() as client:
            if hooks is None:
                return await self._polls(client, interval, once)
            from stablepay_console.api.urls import is_loopback
            from stablepay_console.cli import webhooks
            from stablepay_console.services.webhooks.receiver import Receiver
            from stablepay_console.services.webhooks.taking import DeliveryTaker

            services, profile = self.session.services, self.session.profile
            # Its own client on the same gate (one limit for polls and deliveries), without the recording hook:
            # what a delivery reads is recorded with the delivery, in one transaction.
            bare = services.client_with(profile, services.key(profile))
            taker = DeliveryTaker(services.record, profile, bare, self.watch.tracker, self.now, self.taken, fail)
            server = webhooks.server(Receiver(hooks.key, taker, fail).app, hooks.where)
            try:
                await server.start()
            except OSError as exc:
                await bare.aclose()
                fail(f"cannot receive webhooks on {hooks.where.url}: {exc.strerror or exc}")
                return FAILED
            note(f"Receiving webhooks on {hooks.where.url} (POST, verified with the key given).")
            if not is_loopback(hooks.where.host):
                note("That address is reached over plain HTTP: put the TLS proxy in front (docs/webhooks.md).")
            try:
                return await self._polls(client, interval, once)
            finally:
                await server.stop()
                await bare.aclose()

    async def _polls(self, client: StablePayClient, interval: timedelta, once: bool) -> int:
        from stablepay_console.api.error_text import error_text
        from stablepay_console.api.errors import APIError

        failures = 0
        while True:
            try:
                await self.poll(client)
            except APIError as exc:
                failures += 1
                fail(f"poll failed: {error_text(exc, 300, status=True)}")
                if once:
                    return FAILED
                wait = backoff(interval, failures, retry_after(exc, self.now()))
                note(f"Trying again in {format_duration(wait)}.")
                await self.sleep(wait.total_seconds())
                continue
            except OSError as exc:  # NotWritten: what, where and why, in one line
                fail(str(exc))
                return FAILED
            failures = 0
            if once:
                return OK if self.recorded else FAILED
            await self.sleep(interval.total_seconds())


def hooks_of(args: argparse.Namespace, session: Session) -> Hooks | int | None:
    """The webhook receiver's settings, None without `--webhooks`, or the exit code once the problem is said."""
    if args.webhooks is None and args.webhook_key is None:
        return None
    if args.webhooks is None or args.webhook_key is None:
        fail("--webhooks HOST:PORT and --webhook-key FILE go together.")
        return USAGE
    if args.once:
        fail("--webhooks receives deliveries as they come: it does not go with --once.")
        return USAGE
    if session.services.team is None:  # the local record keeps no deliveries (`Offer.DELIVERIES`)
        fail("--webhooks needs the team record (STABLEPAY_RECORD_URL): a delivery is taken once, in the "
             "database, with what it led to, so that a retried one or one sent to two watchers is taken once. "
             "Without a team record, `rfis watch` polls as before.")
        return USAGE
    from stablepay_console.cli.webhooks import load_key
    from stablepay_console.services.webhooks.verify import KeyFileError

    try:
        key = load_key(args.webhook_key)
    except KeyFileError as exc:
        fail(str(exc))
        return USAGE
    return Hooks(args.webhooks, key)


def run_watch(args: argparse.Namespace) -> int:
    from stablepay_console.cli.webhooks import SLOWER_POLL_MINUTES

    session = open_session(args)
    if session is None:
        return USAGE
    hooks = hooks_of(args, session)
    if isinstance(hooks, int):
        return hooks
    out = Output("json" if args.format == "json" else "plain")
    default = timedelta(minutes=SLOWER_POLL_MINUTES if hooks is not None else 5)
    interval: timedelta = args.interval or default
    sweep = args.sweep if args.once else max(args.sweep, interval)
    if not args.once:
        slower = " (slower with webhooks on: deliveries bring them at once)" if hooks and not args.interval else ""
        note(f"Watching the requests of {session.where}: new requests every {format_duration(interval)}{slower}, "
             f"status changes and new rounds every {format_duration(sweep)}; Ctrl+C stops.")
    result = run_async(lambda: Watcher(session, out, sweep=sweep).run(interval, args.once, hooks))
    return result if isinstance(result, int) else FAILED
