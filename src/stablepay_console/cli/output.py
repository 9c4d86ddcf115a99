"""Where a command's data goes: stdout only, as a table, plain text, JSON or CSV.

- A terminal gets a Rich table; a pipe, a file or `NO_COLOR` get plain text columns (no colour, no
  box drawing), one record a line.
- `--json` prints the API's own field names (camelCase), exact numbers (see `cli.wire`).
- `--csv` prints the same columns as the matching export.

Every cell is cleaned (control characters and escape sequences shown escaped); messages go to stderr
through `note` and `fail`, never to stdout.
"""

from __future__ import annotations

import csv
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from stablepay_console.api.sanitize import clean, is_plain
from stablepay_console.cli.arguments import say

PROG = "stablepay-console"


_STDERR = threading.Lock()


def to_stderr(line: str, end: str = "\n") -> None:
    """One whole line on standard error, in one write under a lock: the record's writer thread says what it could not
    save while the command's own thread writes its summary, and `print`'s separate write of the newline let the
    two lines run together. Every message of `cli/` goes out here (`end=""` for a prompt or a progress line)."""
    with _STDERR:
        sys.stderr.write(line + end)
        sys.stderr.flush()


def note(message: str) -> None:
    """A message for the person (progress, summaries): stderr, cleaned."""
    to_stderr(say(message))


def fail(message: str) -> None:
    """An error: stderr, cleaned, prefixed with the program's name."""
    to_stderr(f"{PROG}: {say(message)}")


def no_color() -> bool:
    """https://no-color.org: present and not empty."""
    return bool(os.environ.get("NO_COLOR"))


def clean_rows(rows: Iterable[Sequence[Any]]) -> list[Sequence[str]]:
    """Every cell as cleaned text (`None` as empty). Rows of plain text, nearly all of them, are taken as
    they are, not copied: one look at the whole table instead of one a cell (`rfis due` prints tens of
    thousands)."""
    given = rows if isinstance(rows, list) else list(rows)
    try:
        plain = is_plain("".join(map("".join, given)))  # a TypeError: a cell that is not text
    except TypeError:
        plain = False
    if plain:
        return given
    return [[clean(cell) if cell is not None else "" for cell in row] for row in given]


RICH_ROWS = 1000
"""The longest table drawn with Rich on a terminal. Rich lays out a whole table at once: `rfis due` on a terminal,
tens of thousands of rows at 100,000 requests, took over a minute and three times the memory of a pipe; plain
columns take a moment."""


class Output:
    """The data of one command, in the format asked for (`json`, `csv`, or text: `table` or `plain`)."""

    def __init__(self, fmt: str = "text", stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        is_tty = bool(getattr(self.stream, "isatty", lambda: False)())
        if fmt == "text":
            fmt = "table" if is_tty and not no_color() else "plain"
        self.fmt = fmt
        self.indented = is_tty
        """JSON indented for a person on a terminal; into a pipe or a file, compact (as gh prints it)."""

    @property
    def is_text(self) -> bool:
        return self.fmt in ("table", "plain")

    def write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def json(self, value: Any, *, one_line: bool = False) -> None:
        from stablepay_console.cli.wire import dumps

        self.write(dumps(value, indent=2 if self.indented and not one_line else None) + "\n")

    def json_texts(self, texts: Iterable[str]) -> None:
        """A JSON list of requests kept as their JSON text, printed as `json` prints their models: one item at a
        time (no list of models, no text of the whole list: `rfis due --json` prints thousands). Compact, each
        text is printed as it is kept, made safe: no parse, no layout."""
        from stablepay_console.cli.kept_json import compact_text, dumps_text

        write = self.stream.write
        opening, between, closing = ("[\n  ", ",\n  ", "\n]\n") if self.indented else ("[", ",", "]\n")
        count = 0
        for text in texts:
            write((between if count else opening)
                  + (dumps_text(text).replace("\n", "\n  ") if self.indented else compact_text(text)))
            count += 1
        write(closing if count else "[]\n")
        self.stream.flush()

    def csv(self, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        writer = csv.writer(self.stream, lineterminator="\n")
        writer.writerow([clean(h) for h in header])
        for row in rows:
            writer.writerow([clean(cell) for cell in row])
        self.stream.flush()

    def table(self, header: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str = "",
              right: Sequence[str] = ()) -> None:
        """Columns of cleaned text; `right` names the columns to align right (amounts). On a terminal a table of
        up to `RICH_ROWS` rows is drawn with Rich; a longer one is laid out as plain columns under its title."""
        cells = clean_rows(rows)
        if self.fmt == "table" and len(cells) <= RICH_ROWS:
            self._rich(header, cells, title, right)
            return
        if self.fmt == "table" and title:
            self.write(f"{clean(title)}\n")
        self._plain(header, cells, right)

    def fields(self, pairs: Iterable[tuple[str, Any]], *, title: str = "") -> None:
        """One record as `name: value` lines (a two-column grid on a terminal)."""
        rows = [(name, value) for name, value in pairs]
        if self.fmt == "table":
            self._rich(("", ""), [[clean(n), clean(v) if v is not None else ""] for n, v in rows], title, (),
                       grid=True)
            return
        width = max((len(name) for name, _ in rows), default=0)
        for name, value in rows:
            line = f"{clean(name) + ':':<{width + 1}} {clean(value) if value is not None else ''}"
            self.write(line.rstrip() + "\n")

    def blank(self) -> None:
        if self.is_text:
            self.write("\n")

    def _plain(self, header: Sequence[str], cells: list[Sequence[str]], right: Sequence[str]) -> None:
        rows = [[h.upper() for h in header], *cells]
        widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
        # printf-style, quicker than `str.format` for a row (every cell is text here).
        line = "  ".join(f"%{'' if name in right else '-'}{w}s" for name, w in zip(header, widths, strict=True))
        # One write: a flush per line cost a system call per request listed.
        self.write("\n".join([(line % tuple(row)).rstrip() for row in rows]) + "\n")

    def _rich(self, header: Sequence[str], cells: list[Sequence[str]], title: str, right: Sequence[str],
              grid: bool = False) -> None:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        console = Console(file=self.stream, highlight=False, soft_wrap=False)
        table = Table.grid(padding=(0, 2)) if grid else Table(title=title or None, header_style="bold")
        for i, name in enumerate(header):
            if grid:
                table.add_column(style="bold" if i == 0 else "")
            else:
                table.add_column(name, justify="right" if name in right else "left", overflow="fold")
        for row in cells:
            table.add_row(*(Text(cell) for cell in row))  # text, never markup
        if grid and title:
            console.print(Text(title, style="bold"))
        console.print(table)
        self.stream.flush()
