"""What a command's start leaves out (httpx's own command line) and its end (the last garbage collection)."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest


def test_a_command_never_loads_httpxs_own_command_line(tmp_path: object) -> None:
    """httpx loads click and rich for its command line whenever click is installed (uvicorn installs it): about
    60 ms of every command's start. `stablepay_console.api` leaves it out, before anything imports httpx."""
    probe = ("import sys; from stablepay_console.cli.main import run; code = run(); "
             "print(sorted(m for m in ('click', 'rich', 'pygments') if m in sys.modules), file=sys.stderr)")
    env = {"STABLEPAY_CONFIG_DIR": str(tmp_path), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe, "rfis", "due", "--within", "1h"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 3, 4), done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr[-2000:]


def test_the_process_freezes_what_its_command_made_instead_of_a_last_collection(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The entry (`cli.main.run`) ends by freezing what the command made, so the interpreter's last collection
    walks none of it (`no-last-collection`, benchmarks/README.md); `main` alone, as a test calls it, does not."""
    import importlib

    entry = importlib.import_module("stablepay_console.cli.main")  # the module (the package's `main` is the function)
    from stablepay_console.services import gc_pause

    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("frozen"))
    monkeypatch.setattr(gc_pause, "_process_ends", False)
    assert entry.main(["profile", "list"]) == 0
    assert frozen == [] and not gc_pause._process_ends
    monkeypatch.setattr(sys, "argv", ["stablepay-console", "profile", "list"])
    assert entry.run() == 0
    assert frozen == ["frozen"] and gc_pause._process_ends, "the entry left the last collection to walk everything"
    capsys.readouterr()
