"""`stablepay-console sandbox serve`: the sandbox over real HTTP on loopback."""

from __future__ import annotations

import sys

import uvicorn

from stablepay_console.api.client import is_loopback
from stablepay_console.sandbox.app import Sandbox
from stablepay_console.sandbox.data import SANDBOX_KEY
from stablepay_console.sandbox.faults import Faults


def serve(
    host: str = "127.0.0.1",
    port: int = 8787,
    seed: int = 7,
    rfis: int = 240,
    faults: Faults | None = None,
) -> int:
    if not is_loopback(host):
        print(f"Refusing to serve the sandbox on {host}: loopback addresses only.", file=sys.stderr)
        return 2
    sandbox = Sandbox(seed=seed, rfis=rfis, faults=faults)
    config = uvicorn.Config(sandbox.app, host=host, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    shown_host = f"[{host}]" if ":" in host else host
    # The key printed here is the sandbox's own demo key: it works only against this local simulator.
    print(f"Sandbox serving at http://{shown_host}:{port}", flush=True)
    print(f"Sandbox key: {SANDBOX_KEY}", flush=True)
    print("Press Ctrl+C to stop.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    print("Sandbox stopped.", flush=True)
    return 0
