"""Every shell command in one table: its words, the function that builds its arguments, and its runner.

    Command("rfis show", parsers.add_show, lambda: cli("rfis").run_show),
    Command("rfis due", parsers.add_due, lambda: cli("due").run_due)

A new command is one more line here: its parser builder (import-light: argparse and the small argument checks),
and its runner, which is imported only when that command runs, so `--help`, a usage error and every other
command start without it. `tests/test_cli_registry.py` imports every runner and checks it can be called.

The first word names a group (`rfis`, `record`, …) when the command has two: the group's parser is made once,
with its help from `GROUPS`, in the order the table first names it (the order `--help` lists them).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from stablepay_console.cli import arguments as a
from stablepay_console.cli import parsers, profile_commands, record_commands, record_team, triage_commands
from stablepay_console.storage.triage_steps import STEPS

Runner = Callable[[argparse.Namespace], int]
"""What runs a parsed command: its exit code."""
ENTRY = "command_entry"
"""Where the parsed arguments keep the table's entry of the command they name."""


def cli(name: str) -> ModuleType:
    """`stablepay_console.cli.<name>`, imported when a command runs (a runner's module may load httpx,
    pydantic, the record: nothing a `--help` should pay for)."""
    return importlib.import_module(f"stablepay_console.cli.{name}")


@dataclass(frozen=True)
class Command:
    words: str
    """How the shell types it: `rfis due`, `ping`."""
    add: Callable[[a.Commands, a.Parser], a.Parser]
    """Adds its parser (arguments, help) to its group's sub-commands; `common` is `--profile`."""
    runner: Callable[[], Runner]
    """Imports and returns what runs it."""
    serves: bool = False
    """Runs until stopped (a server): no record to wait for at the end, Python's own thread switching."""

    @property
    def group(self) -> str:
        return self.words.split()[0] if " " in self.words else ""

    @property
    def name(self) -> str:
        return self.words.split()[-1]


GROUPS: dict[str, dict[str, str]] = {
    "sandbox": {"help": "the local API simulator"},
    "profile": {"help": profile_commands.PROFILE},
    "rfis": {"help": "requests for information: list, show, due, watch; history, note, claim, evidence"},
    "batch": {"help": "batch crypto transfers"},
    "quote": {"help": "onramp quotes"},
    "metrics": {"help": "saved reporting metrics"},
    "audit": {"help": record_commands.AUDIT, "description": record_commands.AUDIT[0].upper() + record_commands.AUDIT[1:]
              + "."},
    "record": {"help": record_team.RECORD},
}
"""A group's `--help` line (and description), by its word."""

COMMANDS: tuple[Command, ...] = (
    Command("sandbox serve", parsers.add_sandbox_serve, lambda: cli("serve").run_sandbox, serves=True),
    Command("web", parsers.add_web, lambda: cli("web").run_web, serves=True),
    Command("profile list", profile_commands.add_list, lambda: cli("profile_runs").run_list),
    Command("profile add", profile_commands.add_add, lambda: cli("profile_runs").run_add),
    Command("profile edit", profile_commands.add_edit, lambda: cli("profile_runs").run_edit),
    Command("profile remove", profile_commands.add_remove, lambda: cli("profile_runs").run_remove),
    Command("profile use", profile_commands.add_use, lambda: cli("profile_runs").run_use),
    Command("profile status", profile_commands.add_status, lambda: cli("profile_status").run_status),
    Command("rfis list", parsers.add_list, lambda: cli("rfis").run_list),
    Command("rfis show", parsers.add_show, lambda: cli("rfis").run_show),
    Command("rfis due", parsers.add_due, lambda: cli("due").run_due),
    Command("rfis watch", parsers.add_watch, lambda: cli("watch").run_watch),
    Command("rfis history", record_commands.add_history, lambda: cli("record_runs").run_history),
    Command("rfis note", record_commands.add_note, lambda: cli("record_runs").run_note),
    Command("rfis claim", record_commands.add_claim, lambda: cli("record_runs").run_claim),
    Command("rfis release", record_commands.add_release, lambda: cli("record_runs").run_release),
    Command("rfis evidence", record_commands.add_evidence, lambda: cli("record_runs").run_evidence),
    *(Command(f"rfis {step.name}", triage_commands.add_step(step.name), lambda: cli("triage_runs").run_step)
      for step in STEPS),
    Command("rfis assign", triage_commands.add_assign, lambda: cli("triage_runs").run_assign),
    Command("rfis report", triage_commands.add_report, lambda: cli("triage_runs").run_report),
    Command("batch get", parsers.add_batch_get, lambda: cli("lookups").run_batch),
    Command("quote refresh", parsers.add_quote_refresh, lambda: cli("lookups").run_quote),
    Command("metrics run", parsers.add_metrics_run, lambda: cli("lookups").run_metric),
    Command("ping", parsers.add_ping, lambda: cli("lookups").run_ping),
    Command("audit verify", record_commands.add_audit_verify, lambda: cli("record_runs").run_verify),
    Command("audit log", record_commands.add_audit_log, lambda: cli("record_runs").run_log),
    Command("record init", record_team.add_init, lambda: cli("record_team").run_init),
    Command("record status", record_team.add_status, lambda: cli("record_team").run_status),
    Command("record use", record_team.add_use, lambda: cli("record_team").run_use),
    Command("record import", record_team.add_import, lambda: cli("record_team").run_import),
    Command("record policy", triage_commands.add_policy, lambda: cli("triage_runs").run_policy),
    Command("keys", parsers.add_keys, lambda: cli("keys").run_keys),
    Command("export", parsers.add_export, lambda: cli("export").run_export),
)
"""Every command, in the order `--help` lists them."""


def add_commands(parser: a.Parser, commands: tuple[Command, ...] = COMMANDS) -> None:
    """Every command's parser into `parser` (the program's), each group's made once; each parsed command keeps
    its entry (`entry_of`)."""
    top = parser.add_subparsers(dest="command")
    common = parsers.profile_option()
    groups: dict[str, a.Commands] = {}
    for command in commands:
        into = top
        if command.group:
            if command.group not in groups:
                group = top.add_parser(command.group, **GROUPS[command.group])  # type: ignore[arg-type]
                groups[command.group] = group.add_subparsers(dest=f"{command.group}_command", required=True)
            into = groups[command.group]
        command.add(into, common).set_defaults(**{ENTRY: command})


def entry_of(args: argparse.Namespace) -> Command | None:
    """The table's entry of the command `args` were parsed for; None: no command (the console)."""
    found = getattr(args, ENTRY, None)
    return found if isinstance(found, Command) else None
