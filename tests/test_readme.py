"""The README's two commands are the ones CI and users actually run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```(?:sh|bash|console)\n(.*?)\n```", text, flags=re.S)


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    match = re.search(r"^TEST_COMMAND='(.*)'$", ci, flags=re.M)
    assert match, ".ci/run must define TEST_COMMAND"
    assert match.group(1) in _readme_commands()


def test_readme_starts_the_installed_console() -> None:
    starts = [c for c in _readme_commands() if c.endswith("stablepay-console")]
    assert starts, "the README must show the one command that installs and starts the console"
    assert "pip install" in starts[0]


def test_the_readme_never_names_an_old_schema_number() -> None:
    from stablepay_console.storage.team.schema import LATEST

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    named = {int(n) for n in re.findall(r"\bschema (?:version )?(\d+)\b", text)}
    assert named <= {LATEST}, f"the README names schema {sorted(named)}; the newest migration is {LATEST}"


def test_audit_help_names_the_team_record_too() -> None:
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "stablepay_console", "audit", "--help"], capture_output=True,
                           text=True, timeout=60, check=True).stdout
    listed = subprocess.run([sys.executable, "-m", "stablepay_console", "--help"], capture_output=True,
                            text=True, timeout=60, check=True).stdout
    for text in (shown, " ".join(listed.split())):
        assert "the team's with a team record" in " ".join(text.split()), text
    assert "audit log of this machine" not in " ".join(listed.split())
