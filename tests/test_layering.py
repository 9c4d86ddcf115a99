"""The layers hold: the API client and the sandbox load without Textual or keyring."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules_after(statement: str) -> list[str]:
    """Every name in sys.modules after running `statement` in a fresh interpreter."""
    loaded = "sorted(n for n, m in sys.modules.items() if m is not None)"  # None: marked not importable
    code = f"import json, sys\n{statement}\nprint(json.dumps({loaded}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout.strip().splitlines()[-1]))


def top_level(modules: list[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


@pytest.mark.parametrize(
    "statement",
    [
        "import stablepay_console.api.client",
        "from stablepay_console.api import StablePayClient, RfiPage, APIError, ApiKey",
        "import stablepay_console.api.client, stablepay_console.api.models, stablepay_console.api.validation",
    ],
)
def test_api_pulls_in_neither_textual_nor_keyring(statement: str) -> None:
    loaded = top_level(modules_after(statement))
    assert {"stablepay_console", "httpx", "pydantic"} <= loaded  # the check looks at a real import
    assert not [m for m in loaded if m.startswith(("textual", "keyring"))]
    assert "platformdirs" not in loaded  # no files either


def test_api_imports_nothing_of_the_layers_above_it() -> None:
    ours = [m for m in modules_after("import stablepay_console.api.client") if m.startswith("stablepay_console")]
    assert "stablepay_console.api.client" in ours
    assert all(m == "stablepay_console" or m.startswith("stablepay_console.api") for m in ours), ours


def test_sandbox_pulls_in_no_textual() -> None:
    modules = modules_after("import stablepay_console.sandbox, stablepay_console.sandbox.serve")
    loaded = top_level(modules)
    assert {"starlette", "uvicorn"} <= loaded
    assert not [m for m in loaded if m.startswith(("textual", "keyring"))]
    ours = [m for m in modules if m.startswith("stablepay_console.")]
    assert all(m.startswith(("stablepay_console.api", "stablepay_console.sandbox")) for m in ours), ours


def test_import_linter_contracts_hold() -> None:
    """The layer rules of pyproject.toml: api at the bottom, cli on top, the screens never reach the sandbox."""
    linter = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(linter)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert "Contracts:" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout[-3000:]


def test_environment_variables_are_named_in_one_module() -> None:
    """Each variable is spelled once, in storage/variables.py: a rename cannot leave a reader behind."""
    import re

    src = ROOT / "src" / "stablepay_console"
    spelled = {str(path.relative_to(src)): sorted(set(re.findall(r"[\"']STABLEPAY_[A-Z_]+[\"']", text)))
               for path in src.rglob("*.py") if (text := path.read_text(encoding="utf-8"))}
    elsewhere = {path: names for path, names in spelled.items() if names and path != "storage/variables.py"}
    assert spelled["storage/variables.py"] and elsewhere == {}
