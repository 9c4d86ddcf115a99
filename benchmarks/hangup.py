"""How long the console takes to end when its terminal is closed, at random moments from mid-start to mid-use.

Each trial starts the installed `stablepay-console` in a tmux pane of its own (80x24), optionally
pages and switches screens, waits a random time, and closes the terminal (`tmux kill-server`: the
tty hangs up, SIGHUP and SIGCONT arrive). It measures the time until the process is gone (or a zombie
waiting to be reaped), and counts consoles still running after 10 s (hung). Run it on its own:
`python benchmarks/hangup.py [TRIALS]`, or through run.py (`--only hangup`).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, bench_env, ms, percentile

TARGET_SECONDS = 2.0
GIVE_UP_SECONDS = 10.0
CONSOLE = Path(sys.executable).parent / "stablepay-console"


def state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def trial(rng: random.Random) -> float | None:
    """Seconds from closing the terminal to the console's end; None when it was still running after 10 s."""
    socket = f"bench-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket]
    with tempfile.TemporaryDirectory(prefix="stablepay-hangup-") as config:
        env = bench_env(STABLEPAY_CONFIG_DIR=config, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
        subprocess.run([*tmux, "new-session", "-d", "-s", "c", "-x", "80", "-y", "24", f"exec {CONSOLE}"],
                       env=env, check=True)
        pid = int(subprocess.run([*tmux, "display-message", "-p", "-t", "c", "#{pane_pid}"],
                                 capture_output=True, text=True, check=True).stdout)
        if rng.random() < 0.5:  # mid-use: wait for the rows, then page and switch screens
            deadline = time.monotonic() + 20
            while "Page 1 of" not in subprocess.run([*tmux, "capture-pane", "-p", "-t", "c"],
                                                    capture_output=True, text=True).stdout:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            subprocess.run([*tmux, "send-keys", "-t", "c", *rng.sample(["n", "p", "2", "1", "Enter", "Escape"], 3)])
            time.sleep(rng.uniform(0.0, 0.3))
        else:  # mid-start
            time.sleep(rng.uniform(0.0, 1.5))
        closed = time.perf_counter()
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        while state(pid) not in ("", "Z"):
            if time.perf_counter() - closed > GIVE_UP_SECONDS:
                subprocess.run(["kill", "-9", str(pid)], capture_output=True)
                return None
            time.sleep(0.01)
        return time.perf_counter() - closed


def measure(trials: int = 40, seed: int = 21) -> list[Row]:
    if shutil.which("tmux") is None or not CONSOLE.exists():
        return [Row("terminal closed: console ends", "-", "-", "-", "tmux and the installed console needed", None)]
    rng = random.Random(seed)
    times: list[float] = []
    hung = 0
    for _ in range(trials):
        took = trial(rng)
        if took is None:
            hung += 1
        else:
            times.append(took)
    worst = max(times) if times else float("nan")
    within = hung == 0 and worst <= TARGET_SECONDS
    return [
        Row(f"terminal closed: consoles still running after 10 s ({trials} trials)", str(hung), "-", "-", "0",
            hung == 0),
        Row("terminal closed: time to end, p50", ms(percentile(times, 50)) if times else "-", "-", "-", "-", None),
        Row("terminal closed: time to end, max", ms(worst) if times else "-", "-", "-",
            f"< {TARGET_SECONDS:.0f} s", within),
    ]


if __name__ == "__main__":
    from common import render

    print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 40)))
