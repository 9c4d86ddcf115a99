"""A sandbox served over loopback HTTP by the installed console (`sandbox serve`) in a child process."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from common import bench_env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served_sandbox(rfis: int, latency: float) -> Iterator[tuple[str, str]]:
    """(base URL, key) of a sandbox served by the installed console in a child process."""
    port = free_port()
    argv = [sys.executable, "-m", "stablepay_console", "sandbox", "serve", "--rfis", str(rfis)]
    argv += ["--latency", str(latency), "--port", str(port)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=bench_env())
    try:
        assert proc.stdout is not None
        key = None
        for line in proc.stdout:
            if line.startswith("Sandbox key: "):
                key = line.removeprefix("Sandbox key: ").strip()
                break
        if key is None:
            raise RuntimeError(f"sandbox serve exited with {proc.wait()}")
        deadline = time.monotonic() + 30
        while True:  # older versions printed the line just before uvicorn bound the port
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", key
    finally:
        proc.terminate()
        proc.wait(10)
