"""Argument types and the parser class: checks that run before anything is sent, and import nothing heavy.

`--help` and a usage error must start like a small script: nothing here (or in what it imports)
loads httpx, pydantic, Textual or Starlette.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import timedelta
from typing import NoReturn

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.sanitize import clean
from stablepay_console.cli.durations import format_duration, parse_duration

MIN_WATCH_INTERVAL = timedelta(seconds=30)


def say(message: str) -> str:
    """A message safe for the terminal, kept on its lines (control characters and escapes shown escaped)."""
    return "\n".join(clean(line) for line in message.split("\n"))


def quoted(text: str) -> str:
    """An argument quoted for a message: escaped, and cut when long."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


class Parser(argparse.ArgumentParser):
    """argparse echoes what it could not parse: keep the user's escape sequences off the terminal."""

    def error(self, message: str) -> NoReturn:
        super().error(say(message))


Commands = argparse._SubParsersAction
"""A command group's sub-commands (`add_subparsers`), into which each command's parser is added."""


def host(text: str) -> str:
    from stablepay_console.api.urls import is_loopback

    if not is_loopback(text):
        raise argparse.ArgumentTypeError(f"{quoted(text)}: loopback addresses only (127.0.0.1, ::1, localhost)")
    return text


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)} must not be negative")
    return value


def how_many(text: str) -> int | None:
    """A count of things to list: a whole number from 1, or `all` (None: no limit)."""
    if text.strip().lower() == "all":
        return None
    value = positive(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: list at least 1, or all")
    return value


def port(text: str) -> int:
    value = positive(text)
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a port (1-65535)")
    return value


def page_size(text: str) -> int:
    value = positive(text)
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: the page size is 1 to 100")
    return value


def bounded_number(text: str, low: float, high: float, unit: str = "") -> float:
    """A number from `low` to `high`; `unit` ("seconds") names it in the messages."""
    unit = f" {unit}" if unit else ""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number{' of' + unit if unit else ''}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{quoted(text)} must be between {low:g} and {high:g}{unit}")
    return value


def rate(text: str) -> float:
    return bounded_number(text, 0.0, 1.0)


def seconds(text: str) -> float:
    return bounded_number(text, 0.0, 60.0, "seconds")


def duration(text: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(clean(str(exc))) from None


def interval(text: str) -> timedelta:
    value = duration(text)
    if value < MIN_WATCH_INTERVAL:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is too often: poll at most every {format_duration(MIN_WATCH_INTERVAL)}"
        )
    return value


def uuid_of(what: str) -> Callable[[str], str]:
    """An argument type for one kind of ID: the canonical UUID, or the same message the console gives."""

    def parse(text: str) -> str:
        from stablepay_console.api.validation import parse_uuid

        try:
            return parse_uuid(text, what)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = what.replace(" ", "_")
    return parse


def filters_of(args: argparse.Namespace) -> RfiFilters:
    """The RFI list's filters a command was given (`--status`, `--kind`, `--user-id`): every command reads them
    here."""
    return RfiFilters(status=args.status, kind=args.kind, user_id=args.user_id)
