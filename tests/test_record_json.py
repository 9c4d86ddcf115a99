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
