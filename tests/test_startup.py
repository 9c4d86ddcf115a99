"""What a command's start leaves out: httpx's own command line."""

from __future__ import annotations

import subprocess
import sys


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
