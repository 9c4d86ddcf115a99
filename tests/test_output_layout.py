"""How a command's rows look where a person reads them (cli/output.py): every row printed however it is handed over,
a missing value empty, amounts aligned right on a terminal, a long ID shown whole, a title once, and the JSON of
kept requests laid out as `json.dumps` lays out the list."""

from __future__ import annotations

import io
import json
import re

import pytest

from stablepay_console.cli.output import RICH_ROWS, Output
from stablepay_console.sandbox import Sandbox
from tests.test_cli_output import Tty

STYLE = re.compile(r"\x1b\[[0-9;]*m")


class Writer:
    """A stream with no `isatty` at all (some file-like objects have none): taken for a pipe."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("NO_COLOR", raising=False)


def shown(stream: io.StringIO) -> list[str]:
    return [STYLE.sub("", line).rstrip() for line in stream.getvalue().splitlines()]


@pytest.mark.parametrize("fmt", ["plain", "table"])
def test_rows_handed_over_one_at_a_time_are_all_printed(fmt: str) -> None:
    out = Tty() if fmt == "table" else io.StringIO()
    Output(fmt, out).table(("id", "round"), (row for row in [["rfi-1", "1"], ["rfi-2", "2"]]))
    text = "\n".join(shown(out))
    assert "rfi-1" in text and "rfi-2" in text


def test_a_missing_value_beside_a_hostile_one_is_empty_not_none() -> None:
    out = io.StringIO()
    Output("plain", out).table(("id", "note"), [["rfi-1", None], ["rfi-2\x1b[2J", "x"]])
    assert out.getvalue().splitlines() == ["ID            NOTE", "rfi-1", "rfi-2\\x1b[2J  x"]


def test_with_no_format_named_a_terminal_gets_a_table_and_anything_else_plain_columns() -> None:
    assert Output(stream=Tty()).fmt == "table"
    assert Output(stream=io.StringIO()).fmt == "plain"
    writer = Writer()
    out = Output(stream=writer)  # type: ignore[arg-type]
    assert out.fmt == "plain" and not out.indented
    out.table(("id",), [["rfi-1"]])
    assert "".join(writer.parts) == "ID\nrfi-1\n"


def test_amounts_are_aligned_right_on_a_terminal_too() -> None:
    out = Tty()
    Output("table", out).table(("user", "amount"), [["a", "1.00 USDC"], ["bb", "20.00 USDC"]], right=("amount",))
    lines = shown(out)
    one = next(line for line in lines if " a " in line)
    twenty = next(line for line in lines if " bb " in line)
    assert one.index("1.00 USDC") + len("1.00 USDC") == twenty.index("20.00 USDC") + len("20.00 USDC")
    user = next(line for line in lines if "user" in line)
    assert user.index("user") == one.index("a"), "the other columns start at the left"


def test_a_long_id_on_a_terminal_is_folded_whole_never_cut_short() -> None:
    long_id = "rfi-" + "0123456789" * 12
    out = Tty()
    Output("table", out).table(("id", "status"), [[long_id, "issued"]])
    text = out.getvalue()
    assert shown(out)[0].startswith("┏"), "no title asked, none printed: the table's top comes first"
    assert "…" not in text
    cells = "".join(re.findall(r"[│┃]\s*([0-9a-z-]+)\s*[│┃]", STYLE.sub("", text)))
    assert long_id in cells


def test_a_title_is_printed_once_on_a_terminal_and_not_at_all_into_a_pipe() -> None:
    out = Tty()
    Output("table", out).table(("id",), [["rfi-1"]], title="Due soon")
    assert sum(line.strip() == "Due soon" for line in shown(out)) == 1
    piped = io.StringIO()
    Output("plain", piped).table(("id",), [["rfi-1"]], title="Due soon")
    assert piped.getvalue() == "ID\nrfi-1\n"


def test_a_table_of_exactly_the_rich_limit_is_still_drawn_as_a_table() -> None:
    out = Tty()
    Output("table", out).table(("id",), [[f"rfi-{n}"] for n in range(RICH_ROWS)])
    assert "│" in out.getvalue() or "┃" in out.getvalue()


def test_a_record_on_a_terminal_shows_a_missing_value_as_nothing() -> None:
    out = Tty()
    Output("table", out).fields([("Status", "issued"), ("Note", None)])
    assert shown(out) == ["Status  issued", "Note"]
    assert "None" not in out.getvalue()


def test_a_record_with_no_fields_prints_nothing_rather_than_failing() -> None:
    out = io.StringIO()
    Output("plain", out).fields([])
    assert out.getvalue() == ""


def test_kept_requests_on_a_terminal_are_laid_out_as_json_lays_out_the_list() -> None:
    rfis = Sandbox().data.rfis[:2]
    kept = [rfi.model_dump_json(by_alias=True) for rfi in rfis]
    out = Tty()
    Output("json", out).json_texts(kept)
    assert out.getvalue() == json.dumps([json.loads(text) for text in kept], indent=2, ensure_ascii=False) + "\n"
    one = Tty()
    Output("json", one).json_texts(kept[:1])
    assert one.getvalue() == json.dumps([json.loads(kept[0])], indent=2, ensure_ascii=False) + "\n"
