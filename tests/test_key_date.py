"""When a key was created (profiles/key_date.py) and how old that makes it (profiles/age.py): the date a person
gives (a real day, not in the future, not before 2000), else a JWT key's own `iat` when it is a date anyone meant,
else today; rotation is due from 11 months and overdue from 12."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone

import pytest

from stablepay_console.api import ApiKey
from stablepay_console.profiles.age import add_months, key_age, months_between
from stablepay_console.profiles.key_date import jwt_issued_at, key_created, parse_key_created

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


HEADER = b64(b'{"alg": "HS256"}')


def jwt_with(payload: object, *, raw: str | None = None) -> ApiKey:
    middle = raw if raw is not None else b64(json.dumps(payload).encode())
    return ApiKey(f"{HEADER}.{middle}.c2lnbmF0dXJl")


def test_a_jwt_keys_iat_is_its_creation_instant_in_utc() -> None:
    at = int((NOW - timedelta(days=40)).timestamp())
    assert jwt_issued_at(jwt_with({"iat": at}), NOW) == datetime.fromtimestamp(at, timezone.utc)
    assert jwt_issued_at(jwt_with({"iat": at + 0.75}), NOW) == datetime.fromtimestamp(at, timezone.utc)
    assert jwt_issued_at(jwt_with({"iat": int(NOW.timestamp())}), NOW) == NOW
    assert jwt_issued_at(jwt_with({"iat": int(EARLIEST.timestamp())}), NOW) == EARLIEST
    assert jwt_issued_at(jwt_with({"iat": at})) == datetime.fromtimestamp(at, timezone.utc)  # against the clock
    unsigned = ApiKey(jwt_with({"iat": at}).reveal().rpartition(".")[0] + ".")  # only decoded, never verified
    assert jwt_issued_at(unsigned, NOW) == datetime.fromtimestamp(at, timezone.utc)


def test_an_iat_nobody_meant_says_nothing_of_the_keys_age() -> None:
    for iat in (int(EARLIEST.timestamp()) - 1, int(NOW.timestamp()) + 1, 10**20, True, "1700000000", None, -1e400):
        assert jwt_issued_at(jwt_with({"iat": iat}), NOW) is None, iat
    assert jwt_issued_at(jwt_with({"sub": "x"}), NOW) is None
    assert jwt_issued_at(jwt_with([1700000000]), NOW) is None
    assert jwt_issued_at(jwt_with({"iat": int(NOW.timestamp()) + 3600}), NOW + timedelta(hours=2)) is not None


def test_a_key_that_is_no_jwt_has_no_iat() -> None:
    at = int((NOW - timedelta(days=1)).timestamp())
    good = b64(json.dumps({"iat": at}).encode())
    for key in ("sk_sandbox_plain_key", f"a.{good}", f"a.{good}.b.c", "a..b", f"a.{good[:-1]}!.b", "a.e30K.b",
                "a." + b64(b"{not json") + ".b", "a." + b64(b"\xff\xfe") + ".b",
                "a." + b64(b"[" * 1500 + b"]" * 1500) + ".b"):
        assert jwt_issued_at(ApiKey(key), NOW) is None, key


def test_a_given_creation_date_is_a_real_day_not_in_the_future_nor_before_2000() -> None:
    assert parse_key_created(" 2026-01-31 ", NOW) == datetime(2026, 1, 31, tzinfo=timezone.utc)
    assert parse_key_created("2026-11-20", NOW) == datetime(2026, 11, 20, tzinfo=timezone.utc)
    assert parse_key_created("2000-01-01", NOW) == EARLIEST
    with pytest.raises(ValueError) as refused:
        parse_key_created("2026-11-21", NOW)
    assert str(refused.value) == "The key's creation date 2026-11-21 is in the future."
    with pytest.raises(ValueError) as refused:
        parse_key_created("1999-12-31", NOW)
    assert str(refused.value) == "The key's creation date 1999-12-31 is before 2000; check the year."


def test_a_creation_date_that_is_no_date_is_refused_with_an_example_and_what_was_typed_cut_to_30() -> None:
    for typed, shown in (("31/01/2026", "31/01/2026"), ("x" * 30, "x" * 30), ("y" * 31, "y" * 29 + "…")):
        with pytest.raises(ValueError) as refused:
            parse_key_created(typed, NOW)
        assert str(refused.value) == (
            f"The key's creation date is a date as YYYY-MM-DD (for example 2026-01-31), not {shown!r}."
        ), typed


def test_the_creation_date_is_the_given_one_else_the_keys_iat_else_today() -> None:
    at = datetime(2026, 3, 1, tzinfo=timezone.utc)
    key = jwt_with({"iat": int(at.timestamp())})
    given = datetime(2026, 2, 1, tzinfo=timezone.utc)
    assert key_created(key, given, NOW) == (given, "as given")
    assert key_created(key, None, NOW) == (at, "from the key's own issue date (iat)")
    assert key_created(ApiKey("sk_sandbox_plain_key"), None, NOW) == (NOW, "today (no date was given)")
    assert key_created(None, None, NOW) == (NOW, "today (no date was given)")
    future = jwt_with({"iat": int(NOW.timestamp()) + 60})
    assert key_created(future, None, NOW) == (NOW, "today (no date was given)")


def test_months_are_calendar_months_the_last_day_standing_in_for_a_missing_one() -> None:
    assert add_months(datetime(2026, 1, 31, 8, tzinfo=timezone.utc), 1) == datetime(2026, 2, 28, 8, tzinfo=timezone.utc)
    assert add_months(datetime(2027, 12, 31, tzinfo=timezone.utc), 2) == datetime(2028, 2, 29, tzinfo=timezone.utc)
    assert add_months(datetime(2026, 11, 20, tzinfo=timezone.utc), 12) == datetime(2027, 11, 20, tzinfo=timezone.utc)
    assert add_months(datetime(2026, 12, 5, tzinfo=timezone.utc), 1) == datetime(2027, 1, 5, tzinfo=timezone.utc)
    start = datetime(2026, 1, 31, tzinfo=timezone.utc)
    assert months_between(start, datetime(2026, 2, 27, tzinfo=timezone.utc)) == 0
    assert months_between(start, datetime(2026, 2, 28, tzinfo=timezone.utc)) == 1
    assert months_between(start, datetime(2027, 1, 30, tzinfo=timezone.utc)) == 11
    assert months_between(start, datetime(2027, 1, 31, tzinfo=timezone.utc)) == 12
    assert months_between(start, datetime(2025, 6, 1, tzinfo=timezone.utc)) == 0


def test_rotation_is_due_from_eleven_months_and_overdue_from_twelve() -> None:
    since = datetime(2025, 11, 20, 9, 30, tzinfo=timezone.utc)
    assert key_age(None, NOW).level == "unknown"
    assert (key_age(since, add_months(since, 11) - timedelta(seconds=1)).level,
            key_age(since, add_months(since, 11) - timedelta(seconds=1)).months) == ("ok", 10)
    assert (key_age(since, add_months(since, 11)).level, key_age(since, add_months(since, 11)).months) == ("due", 11)
    due = key_age(since, add_months(since, 11))
    assert due.short == "Rotation due: 11 months"
    assert due.sentence == "The key is 11 months old (created 2025-11-20): rotate it before 2026-11-20."
    assert key_age(since, NOW - timedelta(seconds=1)).level == "due"
    assert (key_age(since, NOW).level, key_age(since, NOW).months, key_age(since, NOW).since) == ("overdue", 12, since)
    assert key_age(since, since).level == "ok"
