"""`stablepay-console profile list|add|remove|use`: profiles from the command line, keys never in argv."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TextIO

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import ENV_KEY, ENV_PROFILE, KeyStoreError
from stablepay_console.profiles.store import ProfileStoreError, make_profile


def read_key(stdin: TextIO) -> ApiKey:
    """From a hidden prompt on a terminal, else the first line of standard input."""
    if stdin.isatty():
        return ApiKey(getpass.getpass("API key (hidden): "))
    return ApiKey(stdin.readline())


def list_profiles(book: ProfileBook, out: TextIO) -> int:
    default = book.default_name()
    rows = [("", "PROFILE", "ENVIRONMENT", "BASE URL", "KEY", "KEY AGE")]
    for profile in book.configured():
        status = book.key_status(profile)
        rows.append((
            "*" if profile.name == default else "",
            profile.name,
            profile.environment,
            profile.base_url,
            status.label,
            book.age(profile).short,
        ))
    if len(rows) == 1:
        print("No profiles yet: the console opens on the built-in sandbox. Add one with "
              "`stablepay-console profile add NAME --environment … --base-url …`.", file=out)
        return 0
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip(), file=out)
    problem = book.keys.problem
    if problem:
        print(f"\nNote: {problem}", file=out)
    return 0


def add_profile(book: ProfileBook, args: argparse.Namespace, stdin: TextIO, out: TextIO) -> int:
    profile = make_profile(args.name, args.environment, args.base_url)
    key = None
    problem = book.keys.problem
    if not args.no_key:
        if problem:
            print(f"stablepay-console: the key cannot be kept on this machine. {problem}", file=sys.stderr)
            print(f"Add the profile without a key with --no-key, then run with {ENV_PROFILE}={profile.name} "
                  f"and {ENV_KEY} set.", file=sys.stderr)
            return 2
        key = read_key(stdin)
    book.add(profile, key, make_default=args.default)
    where = f"its key {key.masked} is in the OS keyring" if key else f"no key kept: set {ENV_PROFILE} and {ENV_KEY}"
    print(f"Added profile {profile.name} ({profile.environment}, {profile.base_url}); {where}.", file=out)
    return 0


def run(args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    book = ProfileBook()
    try:
        if args.profile_command == "list":
            return list_profiles(book, out)
        if args.profile_command == "add":
            return add_profile(book, args, stdin, out)
        profile = next((p for p in book.configured() if p.name == args.name), None)
        if profile is None:
            name = args.name if len(args.name) <= 60 else args.name[:57] + "..."
            raise ProfileStoreError(f"There is no profile named {name!r}.")
        if args.profile_command == "remove":
            book.remove(profile)
            print(f"Removed profile {profile.name} and forgot its keys. Delete the key in the dashboard "
                  "(Developer, then API Keys) if it is no longer used.", file=out)
        else:
            book.set_default(profile.name)
            print(f"The console now starts on {profile.name} ({profile.environment}).", file=out)
        return 0
    except (ValueError, ProfileStoreError, KeyStoreError) as exc:
        print(f"stablepay-console: {exc}", file=sys.stderr)
        return 2
