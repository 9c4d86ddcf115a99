"""What every headless command shares: the profile it runs against, its client, its exit codes.

Exit codes are the same for every command:

- 0 success;
- 1 the server refused or failed (the typed error's kind and message on stderr);
- 2 bad usage or bad input: nothing was sent (argparse's own errors exit 2 too);
- 3 and 4 for `rfis due` (something due / overdue) and `profile status` (rotation due / overdue or
  a failed ping);
- 130 interrupted (Ctrl+C).
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from stablepay_console.cli.output import fail

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.profiles.model import Profile
    from stablepay_console.wiring import Services

OK, FAILED, USAGE, DUE, OVERDUE, INTERRUPTED = 0, 1, 2, 3, 4, 130

T = TypeVar("T")


@dataclass
class Session:
    profile: Profile
    services: Services

    def client(self) -> StablePayClient:
        return self.services.client_for(self.profile)

    def ask(self, request: Callable[[StablePayClient], Awaitable[T]]) -> T | int:
        """One exchange with this profile's client: the answer, or the exit code once the failure is said."""

        async def exchange() -> T:
            async with self.client() as client:
                return await request(client)

        answer = run_async(exchange)
        # What the exchange received goes to the record's thread now (it would wait for a quiet second, or
        # for the exit): written while the command prints, not after.
        self.services.history.push()
        return answer

    @property
    def where(self) -> str:
        return f"profile {self.profile.name} · {self.profile.environment} · {self.profile.where}"


def services_for(args: argparse.Namespace) -> Services:
    from stablepay_console.wiring import Services

    return Services(sandbox_rfis=getattr(args, "sandbox_rfis", 240), sandbox_seed=getattr(args, "sandbox_seed", 7))


def setup_logging() -> None:
    """The console's log file (method, path and status only: never a key)."""
    from stablepay_console.cli.logs import setup_logging as start_log

    start_log()


def pick_profile(services: Services, name: str | None) -> Profile:
    """`--profile NAME`, else the profile the console would start on. Raises ValueError-like store errors."""
    book = services.book
    if name is None:
        return book.start_profile()
    found = book.find(name)
    if found is None:
        from stablepay_console.profiles.store import ProfileStoreError

        known = ", ".join(p.name for p in book.profiles())
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise ProfileStoreError(f"There is no profile named {shown!r} (profiles: {known}).")
    return found


def open_session(args: argparse.Namespace) -> Session | None:
    """The profile and its wiring, or None after a message on stderr (no usable key, no such profile)."""
    from stablepay_console.profiles.keys import KeyStoreError
    from stablepay_console.profiles.store import ProfileStoreError

    setup_logging()
    services = services_for(args)
    try:
        profile = pick_profile(services, getattr(args, "profile", None))
        status = services.book.key_status(profile)
        if not status.usable:
            raise KeyStoreError(f"Profile {profile.name!r} has no usable key. {status.note}")
    except (ProfileStoreError, KeyStoreError, LookupError, ValueError) as exc:
        fail(str(exc))
        return None
    return Session(profile, services)


def run_async(work: Callable[[], Awaitable[T]]) -> T | int:
    """Run `work`; an API failure becomes exit 1 (its kind and message on stderr), Ctrl+C exit 130."""
    import asyncio  # here: a command the record answers (`rfis due` from the team watcher) starts no loop

    from stablepay_console.api.errors import APIError

    try:
        return asyncio.run(_call(work)).value
    except APIError as exc:
        from stablepay_console.api.error_text import error_text

        fail(error_text(exc, 300, status=True))
        return FAILED
    except KeyboardInterrupt:
        fail("interrupted.")
        return INTERRUPTED


class _Kept(Generic[T]):
    """The command's result, with a repr of a few bytes: on the way out `asyncio.run` restores the SIGINT
    handler, and Python 3.11 formats the main task's repr there, its result included (a `rfis due` of
    9,000 requests took 2.4 s to describe itself for nothing)."""

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<result>"


async def _call(work: Callable[[], Awaitable[T]]) -> _Kept[T]:
    from stablepay_console.api.gate import serving_no_person

    serving_no_person()  # a walk of pages has every place of the server's gate: nobody here asks for one
    return _Kept(await work())
