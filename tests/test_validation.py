"""Invalid arguments are refused with a clear ValueError before any request is sent."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stablepay_console.api import ApiKey, StablePayClient, check_base_url
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.urls import _CANONICAL, base_url_text
from stablepay_console.api.validation import (
    check_kind,
    check_limit,
    check_offset,
    check_status,
    parse_limit,
    parse_uuid,
)
from stablepay_console.sandbox import Sandbox

GOOD = "6f1c2a10-5b7e-4c1d-9a33-000000000050"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (GOOD, GOOD),
        (GOOD.upper(), GOOD),
        (f"  {GOOD}\n", GOOD),
        ("00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"),
    ],
)
def test_parse_uuid_accepts_and_canonicalises(raw: str, expected: str) -> None:
    assert parse_uuid(raw) == expected


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        (GOOD[:-1], "36 characters"),
        (GOOD + "0", "36 characters"),
        (GOOD[:8] + " " + GOOD[9:], "contains spaces"),
        (GOOD[:-1] + "g", "'g', which is not a hexadecimal digit"),
        (GOOD.replace("-", "") + "----", "not a UUID"),
        ("{" + GOOD[1:-1] + "}", "contains '{'"),
        (GOOD[:-5] + "\x1b[31m", "contains '\\x1b'"),
    ],
)
def test_parse_uuid_says_what_is_wrong(raw: str, fragment: str) -> None:
    with pytest.raises(ValueError, match="transfer ID") as caught:
        parse_uuid(raw, "transfer ID")
    assert fragment in str(caught.value)
    assert "\x1b" not in str(caught.value)  # control characters are shown escaped, never raw


def test_parse_uuid_refuses_non_text() -> None:
    with pytest.raises(ValueError, match="must be text"):
        parse_uuid(123)  # type: ignore[arg-type]


def test_parse_uuid_cuts_very_long_input() -> None:
    with pytest.raises(ValueError) as caught:
        parse_uuid("a" * 5000)
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("value", [1, 20, 100])
def test_limit_bounds_accept(value: int) -> None:
    assert check_limit(value) == value


@pytest.mark.parametrize(
    ("value", "fragment"),
    [(0, "between 1 and 100; got 0"), (101, "between 1 and 100; got 101"), (-5, "got -5"),
     (True, "whole number"), (2.5, "whole number"), ("20", "whole number")],
)
def test_limit_bounds_refuse(value: Any, fragment: str) -> None:
    with pytest.raises(ValueError, match="page size") as caught:
        check_limit(value)
    assert fragment in str(caught.value)


def test_offset_bounds() -> None:
    assert check_offset(0) == 0
    assert check_offset(10_000) == 10_000
    with pytest.raises(ValueError, match="cannot be negative; got -1"):
        check_offset(-1)
    with pytest.raises(ValueError, match="whole number"):
        check_offset(1.0)  # type: ignore[arg-type]


def test_status_and_kind_sets() -> None:
    for status in ("issued", "submitted", "resolved", "expired", None):
        assert check_status(status) == status
    for kind in ("onboarding", "transaction", None):
        assert check_kind(kind) == kind
    with pytest.raises(ValueError, match="Unknown status 'open'; choose one of: issued, submitted, resolved, expired"):
        check_status("open")
    with pytest.raises(ValueError, match="Unknown kind 'Onboarding'; choose one of: onboarding, transaction"):
        check_kind("Onboarding")


def test_parse_limit_from_typed_text() -> None:
    assert parse_limit(" 50 ") == 50
    with pytest.raises(ValueError, match="is empty"):
        parse_limit("")
    with pytest.raises(ValueError, match="whole number; got 'ten'"):
        parse_limit("ten")
    with pytest.raises(ValueError, match="between 1 and 100"):
        parse_limit("500")


Call = Callable[[StablePayClient], Awaitable[object]]

REFUSED_CALLS: list[tuple[str, Call, str]] = [
    ("limit 0", lambda c: c.list_rfis(limit=0), "page size"),
    ("limit 101", lambda c: c.list_rfis(limit=101), "page size"),
    ("negative offset", lambda c: c.list_rfis(offset=-1), "offset"),
    ("unknown status", lambda c: c.list_rfis(RfiFilters(status="open")), "Unknown status"),
    ("unknown kind", lambda c: c.list_rfis(RfiFilters(kind="wallet")), "Unknown kind"),
    ("bad user id", lambda c: c.list_rfis(RfiFilters(user_id="user-42")), "user ID"),
    ("bad batch id", lambda c: c.get_batch_transfer("6f1c2a10-5b7e-4c1d-9a33-00000000005"), "transfer ID"),
    ("batch id with space", lambda c: c.get_batch_transfer("6f1c2a10 5b7e-4c1d-9a33-000000000050"), "spaces"),
    ("bad onramp id", lambda c: c.refresh_onramp_quote("not-a-uuid"), "onramp ID"),
    ("bad metric id", lambda c: c.run_metric(""), "metric ID"),
    ("iter with bad page size", lambda c: _drain(c, page_size=0), "page size"),
]


async def _drain(client: StablePayClient, **kw: Any) -> None:
    async for _ in client.iter_rfis(**kw):
        pass


@pytest.mark.parametrize(("name", "call", "fragment"), REFUSED_CALLS, ids=[c[0] for c in REFUSED_CALLS])
async def test_client_refuses_before_sending(
    client: StablePayClient, sandbox: Sandbox, name: str, call: Call, fragment: str
) -> None:
    with pytest.raises(ValueError) as caught:
        await call(client)
    assert fragment in str(caught.value)
    assert sandbox.api_calls() == []
    # The same client still works afterwards, and that request is the only one the sandbox saw.
    await client.ping()
    assert sandbox.api_calls() == [("GET", "/ping")]


async def test_client_sends_canonical_ids(client: StablePayClient, sandbox: Sandbox) -> None:
    await client.get_batch_transfer(f"  {GOOD.upper()} ")
    assert sandbox.api_calls() == [("GET", f"/v2/wallets/transfers/batches/{GOOD}")]


@pytest.mark.parametrize(
    "url",
    [
        "https://api.stablepay.example",
        "https://api.stablepay.example/base/",
        "http://localhost",
        "http://localhost:8787",
        "http://127.0.0.1:8787",
        "http://127.8.9.10",
        "http://[::1]:8787",
    ],
)
def test_base_url_https_or_loopback(url: str) -> None:
    assert check_base_url(url).scheme in ("http", "https")


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://api.stablepay.example", "must use https://"),
        ("http://10.0.0.5:8787", "must use https://"),
        ("http://localhost.evil.example", "must use https://"),
        ("http://sandbox.localhost", "must use https://"),
        ("http://localhost.", "must use https://"),
        ("ftp://api.stablepay.example", "must start with https://"),
        ("api.stablepay.example", "must start with https://"),
        ("https://", "must start with https://"),
        ("https://api.stablepay.example/?key=abc", "must not carry a query"),
        ("https://user:pw@api.stablepay.example", "must not carry"),
        ("https://api.stablepay.example/#frag", "must not carry"),
    ],
)
def test_base_url_refused(url: str, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_base_url(url)
    assert fragment in str(caught.value)
    with pytest.raises(ValueError):
        StablePayClient(url, "sk_test_0123456789abcdef")


@pytest.mark.parametrize(
    ("value", "fragment"),
    [("", "empty"), ("   ", "empty"), ("sk live", "spaces"), ("sk_\x00abc", "control"), ("sk_é_0123456789", "ASCII")],
)
def test_api_key_refuses_unusable_values(value: str, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        ApiKey(value)
    assert fragment in str(caught.value)
    assert value.strip() == "" or value not in str(caught.value)


def _checked(url: str) -> str:
    return str(check_base_url(url)).rstrip("/")


@given(st.from_regex(_CANONICAL, fullmatch=True))
def test_a_base_url_as_a_profile_keeps_it_is_its_own_check(url: str) -> None:
    """A profiles file read back is not checked by httpx again (a start that reads it loads no httpx): every URL
    the short way accepts as it is must be what `check_base_url` makes of it."""
    assert base_url_text(url) == _checked(url)


def test_a_host_name_over_253_characters_is_refused_however_plain() -> None:
    longest = ".".join(["a" * 50] * 4 + ["b" * 49])  # 253 characters of plain labels
    assert base_url_text(f"https://{longest}") == f"https://{longest}"
    with pytest.raises(ValueError, match="longer than 253"):
        base_url_text(f"https://{longest}b")


@given(st.one_of(st.text(max_size=60), st.from_regex(r"https?://[A-Za-z0-9.:/_~%-]{0,40}", fullmatch=True)))
def test_any_base_url_is_kept_as_check_base_url_makes_it_or_refused_the_same(url: str) -> None:
    try:
        expected = _checked(url)
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            base_url_text(url)
    else:
        assert base_url_text(url) == expected


# --- each refusal's words, and how much of what was typed they quote -------------------------------------------


def refusal_of(check: Any, *args: Any) -> str:
    with pytest.raises(ValueError) as refused:
        check(*args)
    return str(refused.value)


def test_what_was_typed_is_quoted_whole_up_to_60_characters_and_cut_after() -> None:
    from stablepay_console.api.validation import check_status

    assert refusal_of(check_status, "x" * 60) == (f"Unknown status {'x' * 60!r}; choose one of: issued, submitted, "
                                                  "resolved, expired.")
    assert refusal_of(check_status, "x" * 61) == (f"Unknown status {'x' * 57 + '...'!r}; choose one of: issued, "
                                                  "submitted, resolved, expired.")


def test_each_uuid_refusal_names_what_and_why() -> None:
    assert refusal_of(parse_uuid, 7) == "The ID must be text."
    assert refusal_of(parse_uuid, " ", "user ID") == "The user ID is empty."
    assert refusal_of(parse_uuid, "a b") == "The ID contains spaces: 'a b'."
    assert refusal_of(parse_uuid, "abc") == ("The ID must be a UUID of 36 characters (8-4-4-4-12); got 3 characters: "
                                             "'abc'.")
    assert refusal_of(parse_uuid, GOOD[:-1] + "g") == "The ID contains 'g', which is not a hexadecimal digit."
    odd = GOOD.replace("-", "") + "----"
    assert refusal_of(parse_uuid, odd) == f"The ID is not a UUID (8-4-4-4-12 hexadecimal digits): {odd!r}."
    moved = GOOD[:7] + "-" + GOOD[7] + GOOD[9:]
    assert len(moved) == 36 and refusal_of(parse_uuid, moved) == (
        f"The ID is not a UUID (8-4-4-4-12 hexadecimal digits): {moved!r}.")
    assert parse_uuid(f"  {GOOD.upper()}\n") == GOOD.lower()
    five = GOOD[:-1] + "-"
    assert refusal_of(parse_uuid, five) == f"The ID is not a UUID (8-4-4-4-12 hexadecimal digits): {five!r}."
    assert refusal_of(parse_uuid, GOOD[:-1] + "X") == "The ID contains 'X', which is not a hexadecimal digit."


def test_each_number_refusal_says_what_is_allowed() -> None:
    from stablepay_console.api.validation import check_day_range, check_kind, check_limit, check_offset, parse_day

    assert refusal_of(check_limit, True) == "The page size must be a whole number."
    assert refusal_of(check_limit, 0) == "The page size must be between 1 and 100; got 0."
    assert refusal_of(check_limit, 101) == "The page size must be between 1 and 100; got 101."
    assert refusal_of(check_offset, 1.0) == "The offset must be a whole number."
    assert refusal_of(check_offset, -1) == "The offset cannot be negative; got -1."
    assert check_offset(0) == 0 and check_kind(None) is None and check_kind("transaction") == "transaction"
    assert refusal_of(check_kind, "other") == "Unknown kind 'other'; choose one of: onboarding, transaction."
    assert refusal_of(parse_limit, " ") == "The page size is empty."
    assert refusal_of(parse_limit, "ten") == "The page size must be a whole number; got 'ten'."
    assert parse_day("  ") is None
    assert refusal_of(parse_day, "2026-1-1", "start day") == (
        "The start day '2026-1-1' is not a day (YYYY-MM-DD, for example 2026-11-01).")
    assert refusal_of(parse_day, "2026-02-30") == ("The day '2026-02-30' is not a day (YYYY-MM-DD, for example "
                                                   "2026-11-01).")
    day = parse_day("2026-11-01")
    assert day == datetime(2026, 11, 1, tzinfo=timezone.utc) and day is not None and day.tzinfo is timezone.utc
    assert refusal_of(check_day_range, day, day) == (
        "2026-11-01 is not before 2026-11-01: the range is empty (the end day itself is left out).")
    check_day_range(day, None)
    check_day_range(None, day)
