"""The one guard every CSV cell the project writes goes through, header cells included.

A cell is written so that `cat` shows it safely and a spreadsheet never runs it:

- unsafe characters (ESC and other C0/C1 controls, bidi overrides, line separators,
  zero-width characters) are shown as visible escapes by `api.sanitize.clean`;
- text a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, tab,
  carriage return, or their full-width forms, after any leading spaces) gets a
  leading apostrophe;
- numbers (Decimal, int) are written exactly (`-12.50`, `1E+400`): never rounded, never
  a billion digits, and never prefixed (a number is not a formula). Text that merely looks
  like a number (`-12` in a text field) is text, and is guarded like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from decimal import Decimal

from stablepay_console.api.numbers import number_text
from stablepay_console.api.sanitize import clean

FORMULA_START = frozenset("=+-@\t\r\uff1d\uff0b\uff0d\uff20")


def guard_text(text: str) -> str:
    """Cleaned text that no spreadsheet runs as a formula."""
    shown = clean(text)
    stripped = shown.lstrip(" ")
    if stripped and stripped[0] in FORMULA_START:
        return "'" + shown
    return shown


def guard_cell(value: object) -> str:
    """The CSV text of one value: None empty, booleans `true`/`false`, numbers exact, times ISO, text guarded."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return number_text(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return guard_text(str(value))


def guard_row(values: Sequence[object]) -> list[str]:
    return [guard_cell(v) for v in values]
