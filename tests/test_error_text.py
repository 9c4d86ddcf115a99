"""Error texts read once: no "Not authorized: Not authorized", no ".).", no doubled punctuation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stablepay_console.api.error_text import error_text, sentence, trim
from stablepay_console.api.errors import (
    APIError,
    FieldError,
    MalformedResponse,
    ServerError,
    StatusError,
    TransportError,
    Unauthorized,
    ValidationFailed,
)

SRC = Path(__file__).resolve().parent.parent / "src" / "stablepay_console"


@pytest.mark.parametrize(
    ("error", "plain", "with_status"),
    [
        (Unauthorized("Not authorized", status=401), "Not authorized", "Not authorized: HTTP 401"),
        (Unauthorized("Not authorized.", status=401), "Not authorized", "Not authorized: HTTP 401"),
        (Unauthorized("Unauthorized: Missing or invalid API key", status=401),
         "Not authorized: Missing or invalid API key", "Not authorized: HTTP 401: Missing or invalid API key"),
        (Unauthorized("Unauthorized: Unauthorized", status=401), "Not authorized", "Not authorized: HTTP 401"),
        (ServerError("Simulated internal failure.", status=500),
         "Server error: Simulated internal failure", "Server error: HTTP 500: Simulated internal failure"),
        (StatusError("No batch transfer with ID x", status=404),
         "Refused: No batch transfer with ID x", "Refused: HTTP 404: No batch transfer with ID x"),
        (TransportError("GET /ping: the connection failed (ConnectError)."),
         "Network error: GET /ping: the connection failed (ConnectError)",
         "Network error: GET /ping: the connection failed (ConnectError)"),
        (MalformedResponse("", status=502), "Unreadable response", "Unreadable response: HTTP 502"),
    ],
)
def test_each_error_reads_once(error: APIError, plain: str, with_status: str) -> None:
    assert error_text(error) == plain
    assert error_text(error, status=True) == with_status
    assert f"({error_text(error)})." .count(".).") == 0


def test_validation_fields_are_listed_once_without_stray_full_stops() -> None:
    error = ValidationFailed(
        "Invalid query parameters.",
        fields=[FieldError("limit", "limit must be between 1 and 100.", "out_of_range"), FieldError("x", "bad")],
        status=400,
    )
    assert error_text(error, status=True) == (
        "Invalid request: HTTP 400: Invalid query parameters (limit: limit must be between 1 and 100; x: bad)"
    )
    assert error_text(error, fields=False) == "Invalid request: Invalid query parameters"


def test_the_servers_text_is_cleaned_and_cut() -> None:
    text = error_text(Unauthorized("\x1b]52;c;aGk=\x07" + "x" * 500, status=401), limit=50)
    assert "\x1b" not in text and "\x07" not in text and len(text) < 80


def test_sentence_and_trim() -> None:
    assert sentence("It failed.") == "It failed."
    assert sentence("It failed..") == "It failed."
    assert sentence("Really?") == "Really?"
    assert trim("done. ") == "done"


HAND_BUILT = re.compile(r"\{[\w.]*\bkind\}: \{")
"""`f"{exc.kind}: {exc}"` and the like: the way "Not authorized: Not authorized" was made."""


def test_no_module_builds_kind_and_message_by_hand() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{n}"
        for path in SRC.rglob("*.py")
        if path.name != "error_text.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HAND_BUILT.search(line)
    ]
    assert offenders == [], "use api.error_text.error_text(exc) instead"


# --- the edges: cuts, counts, punctuation (each a rule a reader sees) --------------------------------------------


def test_the_servers_message_is_cut_at_200_by_default_and_at_the_limit_given() -> None:
    from stablepay_console.api.errors import ServerError

    said = "x" * 201
    assert error_text(ServerError(said)) == "Server error: " + "x" * 199 + "…"
    assert error_text(ServerError("x" * 200)) == "Server error: " + "x" * 200
    assert error_text(ServerError(said), 300) == "Server error: " + said


def test_a_message_that_repeats_the_kind_before_a_colon_says_only_the_rest_even_with_more_colons() -> None:
    from stablepay_console.api.errors import Unauthorized

    assert error_text(Unauthorized("Not authorized: key revoked: since 2026-11")) == (
        "Not authorized: key revoked: since 2026-11")


def test_ten_field_problems_are_named_cut_and_the_rest_counted() -> None:
    from stablepay_console.api.errors import FieldError, ValidationFailed

    problems = [FieldError(f"f{n}", f"bad {n}.") for n in range(12)]
    text = error_text(ValidationFailed("Invalid request", fields=problems))
    assert text == ("Invalid request (" + "; ".join(f"f{n}: bad {n}" for n in range(10)) + "; and 2 more)")
    ten = error_text(ValidationFailed("Invalid request", fields=problems[:10]))
    assert ten.endswith("f9: bad 9)") and "more" not in ten
    eleven = error_text(ValidationFailed("Invalid request", fields=problems[:11]))
    assert eleven.endswith("f9: bad 9; and 1 more)")
    long = error_text(ValidationFailed("Invalid request", fields=[FieldError("f" * 61, "m" * 121 + ".")]))
    assert long == f"Invalid request ({'f' * 59}…: {'m' * 119}…)"


def test_error_lines_put_each_field_problem_on_its_own_line_with_its_code() -> None:
    from stablepay_console.api.error_text import error_lines
    from stablepay_console.api.errors import FieldError, ServerError, ValidationFailed

    problems = [FieldError("limit", "must be at most 100", "max"), FieldError("status", "unknown")]
    failed = ValidationFailed("Invalid request: " + "y" * 400, status=400, fields=problems)
    assert error_lines(failed) == ("Invalid request: " + "y" * 282 + "…\n"
                                   "  • limit: must be at most 100 (max)\n"
                                   "  • status: unknown")
    assert error_lines(ServerError("z" * 400, status=503)) == "Server error: HTTP 503: " + "z" * 299 + "…"


def test_trim_and_sentence_touch_only_the_end() -> None:
    assert trim("  indented.  ") == "  indented"
    assert trim("TAX. ") == "TAX"
    assert sentence("Say X") == "Say X." and sentence("Why?") == "Why?" and sentence("So…") == "So…"
