"""The pieces under the shell commands: durations, exact JSON, the output formats, hostile text."""

from __future__ import annotations

import io
import json
import sys
import threading
from datetime import timedelta
from decimal import Decimal

import pytest

from stablepay_console.api.models import BatchTransfer, MetricResult, OnrampTransfer, Rfi
from stablepay_console.cli.durations import format_duration, parse_duration
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.wire import dumps
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import BATCH_SMALL_ID, METRIC_TX_COUNT_ID, ONRAMP_OPEN_ID

EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202eevil\u2028next"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("90m", timedelta(minutes=90)), ("24h", timedelta(hours=24)), ("3d", timedelta(days=3)),
     ("30s", timedelta(seconds=30)), ("1h30m", timedelta(minutes=90)), (" 2D ", timedelta(days=2)),
     ("0m", timedelta(0))],
)
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "24", "h", "1.5h", "-1h", "24 h", "1w", "1h 30m", "9999999d", "366d1s"])
def test_bad_durations_say_what_is_accepted(text: str) -> None:
    with pytest.raises(ValueError, match=r"duration|longer than a year"):
        parse_duration(text)


def test_durations_read_back_as_written() -> None:
    for text in ("24h", "36h", "3d", "1h30m", "45s", "2d"):
        assert format_duration(parse_duration(text)) == text
    assert format_duration(timedelta(days=1)) == "24h"


def sandbox_models() -> tuple[BatchTransfer, OnrampTransfer, MetricResult]:
    data = Sandbox().data
    return data.batches[BATCH_SMALL_ID], data.onramps[ONRAMP_OPEN_ID], MetricResult.model_validate(
        data.metrics[METRIC_TX_COUNT_ID])


def test_json_keeps_wire_names_and_exact_numbers() -> None:
    batch, onramp, metric = sandbox_models()
    for model in (batch, onramp, metric):
        text = dumps(model)
        assert json.loads(text) == json.loads(dumps(model, indent=None))
        assert "_" not in "".join(json.loads(text)), "top-level names are camelCase"
    wire = json.loads(dumps(onramp), parse_float=Decimal)
    assert wire["transferDetails"]["source"]["amount"] == Decimal("1000.00")
    assert wire["transferDetails"]["quoteInformation"]["rate"] == str(onramp.quote.rate)  # type: ignore[union-attr]
    assert json.loads(dumps(batch))["transferDetails"]["destination"]["batch"][0]["amount"] == str(
        batch.details.destination.batch[0].amount)
    body = '{"data": [{"periodStart": "2026-11-20", "v": 12345678901234567890.01}]}'
    big = MetricResult.model_validate(json.loads(body, parse_float=Decimal))  # as the client reads it
    assert '"v": 12345678901234567890.01' in dumps(big), "no trip through float"
    assert dumps(Rfi.model_validate({"id": "x", "kind": "k", "status": "s", "subjectType": "t",
                                     "createdAt": "2026-11-20T09:30:00Z", "futureField": [1, {"a": None}]}),
                 indent=None).count('"futureField":[1,{"a":null}]') == 1


def test_json_and_csv_never_put_escape_sequences_on_the_terminal() -> None:
    rfi = Rfi.model_validate({"id": EVIL, "kind": "k", "status": EVIL, "subjectType": "t",
                              "createdAt": "2026-11-20T09:30:00Z"})
    text = dumps(rfi)
    for raw in ("\x1b", "\x07", "\u202e", "\u2028"):
        assert raw not in text
    assert json.loads(text)["status"] == EVIL, "the value itself is kept exactly"
    out = io.StringIO()
    Output("csv", out).csv(["id"], [[EVIL]])
    assert "\x1b" not in out.getvalue() and "\u202e" not in out.getvalue()


def test_plain_and_table_text_are_cleaned() -> None:
    for fmt in ("plain", "table"):
        out = io.StringIO()
        Output(fmt, out).table(("id", "amount"), [[EVIL, "1.00"], ["b", "20.00"]], right=("amount",))
        Output(fmt, out).fields([("Name", EVIL)])
        assert "\x1b" not in out.getvalue() and "\u202e" not in out.getvalue(), fmt
        assert "\\x1b" in out.getvalue()


def test_one_hostile_cell_among_thousands_of_plain_rows_is_cleaned() -> None:
    rows: list[list[object]] = [[f"rfi-{n}", str(n)] for n in range(5000)]
    rows[2500] = [EVIL, None]
    rows[4000] = ["numbers", 7]
    for fmt in ("plain", "table"):
        out = io.StringIO()
        Output(fmt, out).table(("id", "round"), rows)
        text = out.getvalue()
        assert "\x1b" not in text and "\u202e" not in text and "\u2028" not in text, fmt
        assert "\\x1b]52;c;ZXZpbA==" in text and "numbers" in text and "rfi-4999" in text, fmt
    plain = io.StringIO()
    Output("plain", plain).table(("id", "round"), rows)
    lines = plain.getvalue().splitlines()
    assert len(lines) == 5001 and lines[4001].split() == ["numbers", "7"] and "None" not in lines[2501]


def test_plain_text_aligns_amounts_right() -> None:
    out = io.StringIO()
    Output("plain", out).table(("user", "amount"), [["a", "1.00 USDC"], ["bb", "20.00 USDC"]], right=("amount",))
    assert out.getvalue().splitlines() == ["USER      AMOUNT", "a      1.00 USDC", "bb    20.00 USDC"]


def test_text_mode_follows_the_terminal_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert Output("text", Tty()).fmt == "table"
    assert Output("text", io.StringIO()).fmt == "plain"
    monkeypatch.setenv("NO_COLOR", "1")
    assert Output("text", Tty()).fmt == "plain"
    monkeypatch.setenv("NO_COLOR", "")
    assert Output("text", Tty()).fmt == "table", "an empty NO_COLOR does not count (no-color.org)"
    assert Output("json", Tty()).fmt == "json"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_is_indented_on_a_terminal_and_one_compact_line_into_a_pipe() -> None:
    batch, _, _ = sandbox_models()
    shown, piped = Tty(), io.StringIO()
    Output("json", shown).json(batch)
    Output("json", piped).json(batch)
    assert shown.getvalue().startswith('{\n  "') and shown.getvalue().count("\n") > 10
    assert piped.getvalue().count("\n") == 1 and ", " not in piped.getvalue().replace('", "', "")
    assert json.loads(piped.getvalue()) == json.loads(shown.getvalue())


def test_kept_requests_print_into_a_pipe_as_their_models_do_and_safe() -> None:
    """`rfis due --json` prints the requests the record keeps as text: compact, each as it is kept, the same JSON as
    their models give, and no escape sequence reaches the pipe (a terminal may read it)."""
    rfis = Sandbox().data.rfis[:3]
    hostile = Rfi.model_validate({"id": "x", "kind": "k", "status": EVIL, "subjectType": "t",
                                  "createdAt": "2026-11-20T09:30:00Z"})
    kept = [rfi.model_dump_json(by_alias=True) for rfi in [*rfis, hostile]]
    piped, shown = io.StringIO(), Tty()
    Output("json", piped).json_texts(kept)
    Output("json", shown).json_texts(kept)
    assert piped.getvalue().count("\n") == 1
    assert json.loads(piped.getvalue()) == json.loads(shown.getvalue()) == json.loads(dumps([*rfis, hostile]))
    for raw in ("\x1b", "\x07", "\u202e", "\u2028"):
        assert raw not in piped.getvalue()
    assert json.loads(piped.getvalue())[-1]["status"] == EVIL
    empty = io.StringIO()
    Output("json", empty).json_texts([])
    assert empty.getvalue() == "[]\n"


def test_a_terminal_draws_a_short_table_with_rich_and_lays_out_a_long_one_as_plain_columns() -> None:
    from stablepay_console.cli.output import RICH_ROWS

    short, long_ = io.StringIO(), io.StringIO()
    Output("table", short).table(("id", "round"), [["rfi-1", "2"]], title="Due")
    Output("table", long_).table(("id", "round"), [[f"rfi-{n}", "2"] for n in range(RICH_ROWS + 1)], title="Due")
    assert "┃" in short.getvalue() or "│" in short.getvalue(), "a short table keeps its box"
    lines = long_.getvalue().splitlines()
    assert lines[:3] == ["Due", "ID        ROUND", "rfi-0     2"] and len(lines) == RICH_ROWS + 3
    assert not any(ch in long_.getvalue() for ch in "┃│━─"), "every row, one a line, no box to lay out"


def test_messages_go_to_standard_error_cleaned_and_an_error_names_the_program(
        capsys: pytest.CaptureFixture[str]) -> None:
    from stablepay_console.cli.output import fail, note

    note("1 request \x1b[31mred")
    fail("no such profile \x1b]0;title\x07")
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "1 request \\x1b[31mred\nstablepay-console: no such profile \\x1b]0;title\\x07\n"


def test_one_record_is_name_value_lines_aligned_and_cleaned_in_plain_text() -> None:
    plain = io.StringIO()
    out = Output("text", plain)
    out.fields([("ID", "abc"), ("Status", "issued\x1b[31m"), ("Note", None)])
    out.blank()
    assert plain.getvalue() == "ID:     abc\nStatus: issued\\x1b[31m\nNote:\n\n"
    piped = io.StringIO()
    Output("json", piped).blank()
    assert piped.getvalue() == "", "no blank line in JSON"


def test_csv_cells_and_headers_are_cleaned_and_a_missing_value_is_empty() -> None:
    piped = io.StringIO()
    Output("csv", piped).csv(["id", "no\x1bte"], [["a", "x\x1b[2J"], ["b", None]])
    assert piped.getvalue() == "id,no\\x1bte\na,x\\x1b[2J\nb,\n"


def test_one_record_on_a_terminal_is_a_grid_of_text_never_markup() -> None:
    shown = Tty()
    Output("text", shown).fields([("Note", "[bold]x[/bold]"), ("Empty", None)], title="Request [red]1[/red]")
    import re

    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in shown.getvalue().splitlines()]  # Rich's bold
    assert lines[0] == "Request [red]1[/red]"
    assert lines[1] == "Note   [bold]x[/bold]" and lines[2].rstrip() == "Empty"


class HalfLineStream(io.StringIO):
    """Standard error that pauses inside any write not ending a line, until the other thread has written: the moment
    a second writer would slip in between a message and its newline."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.other_wrote = threading.Event()

    def write(self, text: str) -> int:
        self.entered.set()
        written = super().write(text)
        if not text.endswith("\n"):
            self.other_wrote.wait(0.5)
        return written


def test_a_message_from_the_records_writer_thread_never_runs_into_the_commands_own_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk's "Not recorded" line comes from the record's writer thread while the command prints its summary:
    each stays a whole line of its own."""
    stream = HalfLineStream()
    monkeypatch.setattr(sys, "stderr", stream)
    writer = threading.Thread(target=fail, args=("Could not write to the record: the disk is full.",))
    writer.start()
    assert stream.entered.wait(5)
    note("Requests 1-100 of 240.")
    stream.other_wrote.set()
    writer.join(5)
    assert sorted(stream.getvalue().splitlines()) == [
        "Requests 1-100 of 240.", "stablepay-console: Could not write to the record: the disk is full."]


def test_every_message_of_a_command_goes_out_as_one_whole_line() -> None:
    """The rule above holds only if no command writes to standard error past `to_stderr`: `print(..., file=sys.stderr)`
    writes the newline apart, and a writer thread's line can land between."""
    import ast
    from pathlib import Path

    import stablepay_console.cli as cli

    folder = Path(cli.__file__).parent
    direct = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "output.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in {"write", "writelines"} and \
                    ast.unparse(node.value) == "sys.stderr":
                direct.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Call) and any(k.arg == "file" and ast.unparse(k.value) == "sys.stderr"
                                                  for k in node.keywords):
                direct.append(f"{path.name}:{node.lineno}")
    assert len(list(folder.glob("*.py"))) > 20
    assert direct == []
