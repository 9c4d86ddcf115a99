"""The command table (`cli.commands`): every entry runs something real, and the shell reaches each by its words."""

from __future__ import annotations

import inspect

import pytest

from stablepay_console.cli.commands import COMMANDS, GROUPS, Command, entry_of
from stablepay_console.cli.main import build_parser


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.words)
def test_every_entry_imports_a_runner_that_takes_the_arguments(command: Command) -> None:
    runner = command.runner()
    assert callable(runner), f"{command.words}: {runner!r} cannot be called"
    params = list(inspect.signature(runner).parameters.values())
    assert params and params[0].name == "args", f"{command.words}: its runner takes the parsed arguments first"
    assert all(p.default is not p.empty for p in params[1:]), f"{command.words}: the runner needs more than args"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.words)
def test_the_shell_reaches_every_entry_by_its_words(command: Command, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*command.words.split(), "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: stablepay-console {command.words}")


def test_each_parsed_command_keeps_its_own_entry() -> None:
    parser = build_parser()
    assert entry_of(parser.parse_args(["rfis", "due", "--within", "3d"])) is _entry("rfis due")
    assert entry_of(parser.parse_args(["ping"])) is _entry("ping")
    assert entry_of(parser.parse_args(["record", "policy"])) is _entry("record policy")
    assert entry_of(parser.parse_args([])) is None  # no command: the console


def test_no_two_entries_share_words_and_every_group_has_its_help() -> None:
    words = [c.words for c in COMMANDS]
    assert len(words) == len(set(words))
    assert {c.group for c in COMMANDS if c.group} == set(GROUPS)


def test_only_the_servers_run_until_stopped() -> None:
    assert {c.words for c in COMMANDS if c.serves} == {"sandbox serve", "web"}


def _entry(words: str) -> Command:
    return next(c for c in COMMANDS if c.words == words)
