"""The one parser of JSON read back from a record: its nesting bound is exact, whatever brackets strings hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stablepay_console.storage.record_json import UnreadableJson, depth_within, loads

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="ab[]{}\"\\", max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="k[{", max_size=3), inner, max_size=3),
    max_leaves=30,
)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


@given(VALUES, st.integers(min_value=0, max_value=8))
def test_the_bound_holds_exactly_at_every_depth(value: Any, most: int) -> None:
    assert depth_within(json.dumps(value), most) == (depth(value) <= most)


@pytest.mark.parametrize("text", ["[" * 100_000, "{" * 5_000 + "}" * 5_000, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]"])
def test_text_nested_past_the_bound_is_unreadable_not_a_recursion(text: str) -> None:
    with pytest.raises(UnreadableJson):
        loads(text, max_depth=20)


def test_text_within_the_bound_is_read() -> None:
    text = "[" * 20 + "]" * 20
    assert loads(text, max_depth=20) == json.loads(text)
    assert loads('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[["}', max_depth=1) == {"a": "[" * 26}


def test_text_is_read_up_to_its_character_bound_and_no_further() -> None:
    assert loads('"' + "x" * 8 + '"', max_chars=10) == "x" * 8
    with pytest.raises(UnreadableJson) as refused:
        loads('"' + "x" * 9 + '"', max_chars=10)
    assert str(refused.value) == "11 characters, over 10"


def test_the_default_bounds_are_four_million_characters_and_64_levels() -> None:
    assert loads("[" * 64 + "]" * 64) == json.loads("[" * 64 + "]" * 64)
    with pytest.raises(UnreadableJson) as refused:
        loads("[" * 65 + "]" * 65)
    assert str(refused.value) == "nested deeper than 64"
    big = '"' + "x" * 3_999_998 + '"'
    assert len(loads(big)) == 3_999_998
    with pytest.raises(UnreadableJson):
        loads(big + " ")


def test_bytes_are_read_as_utf8_and_anything_else_is_unreadable() -> None:
    from stablepay_console.storage.record_json import loads_object, object_or_unreadable

    assert loads(b'{"caf\xc3\xa9": 1}') == {"café": 1} and loads(bytearray(b"[1]")) == [1]  # type: ignore[arg-type]
    with pytest.raises(UnreadableJson) as refused:
        loads(b'"\xff"')
    assert str(refused.value) == "not UTF-8"
    with pytest.raises(UnreadableJson) as refused:
        loads(7)  # type: ignore[arg-type]
    assert str(refused.value) == "not text (int)"
    with pytest.raises(UnreadableJson) as refused:
        loads("{nope")
    assert str(refused.value).startswith("Expecting property name")
    assert loads_object('{"a": 1}') == {"a": 1} and loads_object("[1]") is None and loads_object("{") is None
    assert loads_object('[[["deep"]]]', max_depth=2) is None
    assert object_or_unreadable("[1]") == {"unreadable": "unreadable entry"}
    assert object_or_unreadable('{"a": [1]}', max_depth=1) == {"unreadable": "unreadable entry"}
    assert object_or_unreadable('{"a": 1}') == {"a": 1}


def test_unmatched_brackets_count_against_the_bound_as_the_parser_would_recurse() -> None:
    assert depth_within("[[[", 3) is True  # three openings: within three, no pass needed
    assert depth_within("[[[[", 3) is False
    assert depth_within("[[]][[[[", 5) is False and depth_within("[[]][[[", 6) is True
    assert depth_within("]]]]", 3) is True  # no opening bracket: the parser never goes down
    assert depth_within("[][][[[", 4) is True and depth_within("[][][[[", 3) is False  # one pass, then three open
