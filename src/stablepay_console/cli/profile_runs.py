"""`stablepay-console profile list|add|edit|remove|use`: profiles from the command line, keys never in argv.

`add` (and `edit --new-key`) checks the key with `/ping` against the profile's base URL before
saving it; `--no-verify` skips the check and says so. `--key-created YYYY-MM-DD` dates the key
(default: a JWT key's own `iat`, else today), so its age counts from its creation.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TextIO

from stablepay_console.api import ApiKey, StablePayClient
from stablepay_console.api.sanitize import clean
from stablepay_console.cli.output import to_stderr
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.key_date import key_created, parse_key_created
from stablepay_console.profiles.keys import ENV_KEY, ENV_PROFILE, ENV_ROUTE, KeyStoreError
from stablepay_console.profiles.model import EMBEDDED_PROFILES, Profile
from stablepay_console.profiles.rotation import STEP_TITLES
from stablepay_console.profiles.store import ProfilesNotSaved, ProfileStoreError, make_profile
from stablepay_console.profiles.verify import check_key

ClientFor = Callable[[Profile, ApiKey], StablePayClient]

REFUSED = 1
"""Exit code when the server refused the key (or could not check it): nothing was saved."""


def network_client(profile: Profile, key: ApiKey) -> StablePayClient:
    return StablePayClient(profile.base_url, key)


def read_key(stdin: TextIO, prompt: str = "API key (hidden): ") -> ApiKey:
    """From a hidden prompt on a terminal, else the first line of standard input."""
    if stdin.isatty():
        return ApiKey(getpass.getpass(prompt))
    return ApiKey(stdin.readline())


def list_profiles(book: ProfileBook, out: TextIO) -> int:
    """Every profile the console can start on, the built-in ones first (marked built-in), the start one starred."""
    start = book.default_name() or (book.embedded[0].name if book.embedded else "")
    rows = [("", "PROFILE", "ENVIRONMENT", "BASE URL", "KEY", "KEY AGE")]
    for profile in book.embedded:
        rows.append(("*" if profile.name == start else "", profile.name, profile.environment,
                     clean(profile.where, 80), "built-in", "-"))
    due = []
    for profile in book.configured():
        status = book.key_status(profile)
        age = book.age(profile)
        rows.append((
            "*" if profile.name == start else "",
            profile.name,
            profile.environment,
            clean(profile.base_url, 80),
            clean(status.label, 60),
            age.short,
        ))
        if age.level in ("due", "overdue"):
            due.append(f"{profile.name}: {age.sentence}")
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip(), file=out)
    print(f"\n* the console starts on {start} (`stablepay-console profile use NAME` changes it; {ENV_PROFILE} "
          "overrides it).", file=out)
    if not book.configured():
        print("Built-in profiles are in-process simulations, always there. Add your own with "
              "`stablepay-console profile add NAME --environment … --base-url …`.", file=out)
    if due:
        print("\nRotation due (rotate at least every 12 months; `r` on Profiles & keys in the console):", file=out)
        for line in due:
            print(f"  {line}", file=out)
    pending = [(p, s) for p, s in book.pending_rotations() if not p.embedded]
    for profile, step in pending:
        print(f"\nA key rotation of {profile.name} is pending: it stopped at step {step.value} of 6 "
              f"({STEP_TITLES[step]}). Resume it with `r` on Profiles & keys.", file=out)
    problem = book.keys.problem
    if problem and book.configured():
        print(f"\nNote: {problem}", file=out)
    return 0


def given_date(args: argparse.Namespace, book: ProfileBook) -> datetime | None:
    text = getattr(args, "key_created", None)
    return parse_key_created(text, book.clock()) if text else None


def verified(profile: Profile, key: ApiKey, args: argparse.Namespace, client_for: ClientFor, out: TextIO) -> bool:
    """Whether the key may be saved: it answered `/ping`, or `--no-verify` was given (and this is said)."""
    if args.no_verify:
        print(f"Not checked: with --no-verify the key was not tried against {clean(profile.base_url, 80)}. "
              "It may be mistyped or belong to the other environment.", file=out)
        return True
    verdict = asyncio.run(check_key(client_for(profile, key), profile.base_url))
    if verdict.ok:
        print(verdict.message, file=out)
        return True
    to_stderr(f"stablepay-console: {verdict.message}")
    if verdict.refused:
        to_stderr(f"Is it a key of the {profile.environment} environment, copied whole?")
    else:
        to_stderr("Nothing was saved. To save it without the check, add --no-verify.")
    return False


def dated(key: ApiKey | None, given: datetime | None, book: ProfileBook) -> str:
    if key is None and given is None:
        return ""
    when, source = key_created(key, given, book.clock())
    return f" The key's age counts from {when:%Y-%m-%d} ({source})."


def add_profile(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor) -> int:
    profile = make_profile(args.name, args.environment, args.base_url)
    given = given_date(args, book)
    if book.store.get(profile.name) is not None:
        raise ProfileStoreError(f"A profile named {profile.name!r} already exists.")
    key = None
    problem = book.keys.problem
    if not args.no_key:
        if problem:
            # Said once: the keyring's reason, then the one way round (its own advice says the same at more length).
            reason = problem.removesuffix(ENV_ROUTE).strip()
            to_stderr(f"stablepay-console: the key cannot be kept on this machine. {reason}")
            to_stderr(f"Add the profile without a key with --no-key, then run with {ENV_PROFILE}={profile.name} "
                      f"and {ENV_KEY} set (the console does not write the key to a file).")
            return 2
        key = read_key(stdin)
        if not verified(profile, key, args, client_for, out):
            return REFUSED
    book.add(profile, key, make_default=args.default, key_since=given)
    where = (f"its key {key.masked} is in the OS keyring" if key
             else f"no key kept: run with {ENV_PROFILE}={profile.name} and {ENV_KEY} set")
    print(f"Added profile {profile.name} ({profile.environment}, {profile.base_url}); {where}."
          f"{dated(key, given, book)}", file=out)
    if not args.default:
        start = book.default_name() or (book.embedded[0].name if book.embedded else "embedded")
        print(f"The console still starts on {start}; `stablepay-console profile use {profile.name}` (or --default "
              "when adding) makes it start on this one.", file=out)
    return 0


def edit_profile(
    book: ProfileBook, old: Profile, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor
) -> int:
    profile = make_profile(old.name, args.environment or old.environment, args.base_url or old.base_url)
    given = given_date(args, book)
    key = None
    if args.new_key:
        if book.keys.problem:
            raise KeyStoreError(book.keys.problem)
        key = read_key(stdin, "New API key (hidden): ")
        if not verified(profile, key, args, client_for, out):
            return REFUSED
    book.edit(profile, key, key_since=given)
    changed = f"; its new key {key.masked} is in the OS keyring" if key else ""
    print(f"Saved profile {profile.name} ({profile.environment}, {profile.base_url}){changed}."
          f"{dated(key, given, book)}", file=out)
    return 0


Act = Callable[[ProfileBook, argparse.Namespace, TextIO, TextIO, ClientFor], int]


def profile_run(act: Act) -> Callable[..., int]:
    """`act` as a command's runner: the book of profiles, standard input and output by default, and what went wrong
    said in one line (exit 1 when the disk refused, 2 for a usage error)."""

    def run(
        args: argparse.Namespace,
        stdin: TextIO | None = None,
        out: TextIO | None = None,
        *,
        book: ProfileBook | None = None,
        client_for: ClientFor = network_client,
    ) -> int:
        try:
            return act(book or ProfileBook(embedded=EMBEDDED_PROFILES), args, stdin or sys.stdin, out or sys.stdout,
                       client_for)
        except ProfilesNotSaved as exc:  # the disk refused: not a usage error
            to_stderr(f"stablepay-console: {clean(str(exc), 600)}")
            return 1
        except (ValueError, ProfileStoreError, KeyStoreError) as exc:
            to_stderr(f"stablepay-console: {clean(str(exc), 600)}")
            return 2

    # Named after `act`, with `run`'s own signature (functools.wraps would have it read as `act`'s).
    run.__name__, run.__qualname__, run.__doc__ = act.__name__, act.__qualname__, act.__doc__
    return run


def named(book: ProfileBook, name: str, *, editable: bool) -> Profile:
    """The profile called `name`; a built-in one only where it is not to be changed (`use`)."""
    profile = book.find(name)
    if profile is None:
        names = ", ".join(p.name for p in book.profiles())
        raise ProfileStoreError(f"There is no profile named {clean(name, 60)!r} (there are: {names}).")
    if profile.embedded and editable:
        raise ProfileStoreError(f"{profile.name!r} is a built-in profile: it cannot be edited or removed.")
    return profile


@profile_run
def run_list(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor) -> int:
    return list_profiles(book, out)


@profile_run
def run_add(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor) -> int:
    return add_profile(book, args, stdin, out, client_for)


@profile_run
def run_edit(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor) -> int:
    return edit_profile(book, named(book, args.name, editable=True), args, stdin, out, client_for)


@profile_run
def run_remove(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor) -> int:
    profile = named(book, args.name, editable=True)
    book.remove(profile)
    print(f"Removed profile {profile.name} and forgot its keys. Delete the key in the dashboard "
          "(Developer, then API Keys) if it is no longer used.", file=out)
    return 0


@profile_run
def run_use(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO, client_for: ClientFor) -> int:
    profile = named(book, args.name, editable=False)
    book.set_default(profile.name)
    print(f"The console now starts on {profile.name} ({profile.environment}).", file=out)
    return 0
