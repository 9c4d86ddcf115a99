"""The README's two commands are the ones CI and users actually run, and the docs hold together."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 300
"""A user reads the README in ten minutes; the rest lives in docs/, benchmarks/README.md and CONTRIBUTING.md."""


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def _readme_commands() -> list[str]:
    return re.findall(r"```(?:sh|bash|console)\n(.*?)\n```", _readme(), flags=re.S)


def _ci_test_command() -> str:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    match = re.search(r"^TEST_COMMAND='(.*)'$", ci, flags=re.M)
    assert match, ".ci/run must define TEST_COMMAND"
    return match.group(1)


def _project_docs() -> list[Path]:
    """Every Markdown page of the project: the README, CONTRIBUTING, docs/ and benchmarks/README.md."""
    pages = sorted(ROOT.glob("*.md")) + sorted((ROOT / "docs").rglob("*.md"))
    pages += sorted((ROOT / "benchmarks").glob("*.md"))
    assert ROOT / "README.md" in pages and len(pages) > 2
    return pages


def _prose(text: str) -> str:
    """`text` without its fenced code blocks and inline code, where `](` is not a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def test_ci_runs_the_readme_test_command() -> None:
    assert _ci_test_command() in _readme_commands()


def test_readme_starts_the_installed_console() -> None:
    starts = [c for c in _readme_commands() if c.endswith("stablepay-console")]
    assert starts, "the README must show the one command that installs and starts the console"
    assert "pip install" in starts[0]


def test_readme_is_short_and_its_two_commands_come_first() -> None:
    text = _readme()
    lines = text.count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/"
    blocks = re.findall(r"^```[a-z]*\n(.*?)\n```", text, flags=re.S | re.M)
    assert len(blocks) >= 2
    start, test = blocks[:2]
    assert "pip install" in start and start.endswith("stablepay-console"), f"the first code block is {start!r}"
    assert test == _ci_test_command(), f"the second code block is {test!r}, not the test command"


def test_every_relative_link_in_the_docs_points_to_a_file() -> None:
    broken = []
    for page in _project_docs():
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL, or a heading of the same page
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.is_file() or not path.is_relative_to(ROOT):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, f"links to no file of the project: {broken}"


def test_no_project_doc_points_outside_the_project() -> None:
    outside = [f"{page.relative_to(ROOT)}: {word}" for page in _project_docs()
               for word in ("../shared", "/work/") if word in page.read_text(encoding="utf-8")]
    assert not outside, f"the project's docs must stand alone: {outside}"


def test_the_readme_never_names_an_old_schema_number() -> None:
    from stablepay_console.storage.postgres.schema import LATEST

    text = "".join((ROOT / page).read_text(encoding="utf-8") for page in ("README.md", "docs/team-record.md"))
    named = {int(n) for n in re.findall(r"\bschema (?:version )?(\d+)\b", text)}
    assert named <= {LATEST}, f"the team record's pages name schema {sorted(named)}; the newest migration is {LATEST}"


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
