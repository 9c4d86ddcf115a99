"""The one sanitiser: every dangerous character of the whole Unicode range comes out escaped, nothing else changes."""

from __future__ import annotations

import json
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from stablepay_console.api.sanitize import clean, has_control, is_unsafe, json_safe
from tests.hostile_payloads import HOSTILE, RAW_CHARS

# Written out independently of the module: what the issue names, by code point.
C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [*"\u202a\u202b\u202c\u202d\u202e", *"\u2066\u2067\u2068\u2069", "\u200e", "\u200f", "\u061c"]
SEPARATORS = ["\u2028", "\u2029"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e"]
NAMED = [*C0, "\x7f", *C1, *BIDI, *SEPARATORS, *ZERO_WIDTH]
DANGEROUS_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}


def every_code_point() -> list[str]:
    return [chr(c) for c in range(sys.maxunicode + 1)]


def test_every_named_character_is_shown_as_an_escape() -> None:
    for ch in NAMED:
        shown = clean(f"a{ch}b")
        assert ch not in shown, repr(ch)
        assert shown.startswith("a\\") and shown.endswith("b"), shown
        assert has_control(ch)


def test_escapes_are_visible_and_readable() -> None:
    assert clean("\x1b[2J") == "\\x1b[2J"
    assert clean("\x9b31m") == "\\x9b31m"
    assert clean("abc\u202edef") == "abc\\u202edef"
    assert clean("line\u2028next") == "line\\u2028next"
    assert clean("zero\u200bwidth") == "zero\\u200bwidth"
    assert clean("a\nb\tc") == "a\\nb\\tc"
    assert clean("\U000f0000") == "\\U000f0000"
    assert clean("\ud800") == "\\ud800"


def test_across_the_whole_unicode_range_exactly_the_dangerous_categories_are_escaped() -> None:
    changed = []
    for ch in every_code_point():
        out = clean(ch)
        dangerous = unicodedata.category(ch) in DANGEROUS_CATEGORIES
        if dangerous:
            assert out.isascii() and out.isprintable() and out.startswith("\\"), repr(ch)
        elif out != ch:
            changed.append(ch)
    # Besides those categories only the invisible Hangul fillers are escaped.
    assert changed == ["\u115f", "\u1160", "\u3164", "\uffa0"]


def test_ordinary_text_of_any_script_passes_unchanged() -> None:
    samples = ("Proof of address", "Überweisung €1,000.00", "שלום", "مرحبا", "日本語の書類", "🙂 ok", "a b\u00a0c", "")
    for text in samples:
        assert clean(text) == text
        assert not has_control(text)


def test_the_hostile_string_comes_out_with_nothing_raw_and_cleaning_twice_changes_nothing() -> None:
    shown = clean(HOSTILE)
    assert not set(shown) & RAW_CHARS
    assert shown.isprintable()
    assert clean(shown) == shown
    assert "\\x1b]52;c;" in shown  # the user can still see what was attempted


def test_non_text_values_and_none() -> None:
    assert clean(None) == ""
    assert clean(42) == "42"


def test_max_len_cuts_with_an_ellipsis_after_escaping() -> None:
    assert clean("abcdef", 4) == "abc…"
    assert clean("abc", 3) == "abc"
    assert len(clean("\x1b" * 50, 10)) == 10
    assert clean("abcdef", 0) == "a…"


def test_has_control_respects_allow() -> None:
    assert not has_control("a\tb\nc", allow="\t\n")
    assert has_control("a\tb\x1b", allow="\t\n")


@given(st.text())
def test_random_text_never_keeps_a_dangerous_character(text: str) -> None:
    shown = clean(text)
    assert not any(unicodedata.category(ch) in DANGEROUS_CATEGORIES for ch in shown)
    assert clean(shown) == shown


@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=10))
def test_json_safe_keeps_the_exact_value_and_no_dangerous_character(value: object) -> None:
    text = json_safe(json.dumps(value, ensure_ascii=False))
    assert not any(is_unsafe(ch) for ch in text)
    assert json.loads(text) == value


def test_json_safe_on_the_hostile_string_and_astral_private_use() -> None:
    value = {"label" + HOSTILE: HOSTILE + "\U000f0001\ud800"}
    text = json_safe(json.dumps(value, ensure_ascii=False))
    assert not set(text) & RAW_CHARS and text.isprintable()
    assert json.loads(text) == value
    assert "\\u202e" in text and "\\udb80\\udc01" in text
    plain = json.dumps({"name": "Überweisung 日本"}, ensure_ascii=False)
    assert json_safe(plain) == plain
