"""`profile status`: every profile's environment, key age, rotation and ping, with exit codes for cron.

Exit 0 when every key is fine, 3 when a key is due for rotation (11 months or more), 4 when a key
is past 12 months or fails its ping (no usable key counts as failing). Without `--profile` it covers
every configured profile (the built-in sandbox when none is configured).
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stablepay_console.cli.output import Output, fail
from stablepay_console.cli.session import DUE, OK, OVERDUE, USAGE, pick_profile, run_async, services_for, setup_logging

if TYPE_CHECKING:
    from stablepay_console.profiles.age import KeyAge
    from stablepay_console.profiles.model import Profile
    from stablepay_console.wiring import Services


@dataclass(frozen=True)
class Status:
    profile: Profile
    default: bool
    key_source: str
    key: str
    age: KeyAge
    ping_ok: bool
    ping: str

    @property
    def rotation(self) -> str:
        if self.age.level == "unknown":
            return "date unknown"
        by = self.age.rotate_by.strftime("%Y-%m-%d") if self.age.rotate_by else "?"
        return {"overdue": f"OVERDUE (was due by {by})", "due": f"due: rotate before {by}"}.get(
            self.age.level, f"rotate by {by}"
        )

    def to_json(self) -> dict[str, Any]:
        since = self.age.since
        return {
            "profile": self.profile.name,
            "environment": self.profile.environment,
            "baseUrl": self.profile.base_url,
            "default": self.default,
            "keySource": self.key_source,
            "key": self.key,
            "keySince": since.isoformat().replace("+00:00", "Z") if since else None,
            "keyAgeMonths": self.age.months if since else None,
            "rotation": self.age.level,
            "rotateBy": self.age.rotate_by.isoformat().replace("+00:00", "Z") if self.age.rotate_by else None,
            "ping": "ok" if self.ping_ok else "failed",
            "pingMessage": self.ping,
        }


async def _ping(services: Services, profile: Profile) -> tuple[bool, str]:
    from stablepay_console.api.error_text import error_text
    from stablepay_console.api.errors import APIError
    from stablepay_console.api.sanitize import clean
    from stablepay_console.profiles.keys import KeyStoreError

    status = services.book.key_status(profile)
    if not status.usable:
        return False, f"no usable key: {status.note}"
    try:
        async with services.client_for(profile) as client:
            pong = await client.ping()
    except APIError as exc:
        return False, error_text(exc, 120)
    except (KeyStoreError, LookupError, ValueError) as exc:
        return False, clean(str(exc), 200)
    return True, clean(pong.message, 40)


async def statuses(services: Services, profiles: list[Profile]) -> list[Status]:
    book = services.book
    pings = await asyncio.gather(*(_ping(services, p) for p in profiles))
    default = book.default_name()
    found = []
    for profile, (ok, said) in zip(profiles, pings, strict=True):
        key = book.key_status(profile)
        found.append(Status(profile, profile.name == default, key.source, key.masked, book.age(profile), ok, said))
    return found


def exit_code(found: list[Status]) -> int:
    if any(s.age.level == "overdue" or not s.ping_ok for s in found):
        return OVERDUE
    return DUE if any(s.age.level == "due" for s in found) else OK


def run_status(args: argparse.Namespace) -> int:
    from stablepay_console.profiles.store import ProfileStoreError

    setup_logging()
    services = services_for(args)
    try:
        if args.profile is not None:
            profiles = [pick_profile(services, args.profile)]
        else:
            profiles = services.book.configured() or [services.book.start_profile()]
    except ProfileStoreError as exc:
        fail(str(exc))
        return USAGE
    out = Output(args.format)
    found = run_async(lambda: statuses(services, profiles))
    if isinstance(found, int):
        return found
    if out.fmt == "json":
        out.json([s.to_json() for s in found])
    else:
        out.table(
            ("profile", "environment", "key", "key age", "rotation", "ping"),
            ([("* " if s.default else "") + s.profile.name, s.profile.environment,
              f"{s.key} ({s.key_source})" if s.key else s.key_source, s.age.short, s.rotation,
              ("ok: " if s.ping_ok else "FAILED: ") + s.ping] for s in found),
        )
    return exit_code(found)
