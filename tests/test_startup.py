"""The start-time tricks (`cli/startup.py`): each can be left out by name, and what they promise holds."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from stablepay_console.cli import startup


def test_a_trick_left_out_is_off_and_an_unknown_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(startup, "_skipped", set())
    assert all(startup.on(name) for name in startup.TRICKS)
    startup.skip("no-last-collection")
    assert not startup.on("no-last-collection") and startup.on("gc-off-while-starting")
    with pytest.raises(ValueError, match="no such trick"):
        startup.skip("switch-1ms")


def test_the_process_freezes_what_it_made_instead_of_a_last_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("frozen"))
    monkeypatch.setattr(startup, "_skipped", set())
    startup.process_ends()
    startup.skip("no-last-collection")
    startup.process_ends()
    assert frozen == ["frozen"]


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
