"""`stablepay-console sandbox serve`: the sandbox over real HTTP on loopback."""

from __future__ import annotations

import socket
import sys

import uvicorn

from stablepay_console.api.urls import is_loopback
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
    shown_host = f"[{host}]" if ":" in host else host
    server = _AnnouncingServer(config, f"http://{shown_host}:{port}")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    print("Sandbox stopped.", flush=True)
    return 0


class _AnnouncingServer(uvicorn.Server):
    """Prints the base URL once the socket is listening, so whoever waits for the line can connect at once."""

    def __init__(self, config: uvicorn.Config, base_url: str) -> None:
        super().__init__(config)
        self.base_url = base_url

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(f"Sandbox serving at {self.base_url}", flush=True)
            # The key printed here is the sandbox's own demo key: it works only against this local simulator.
            print(f"Sandbox key: {SANDBOX_KEY}", flush=True)
            print("Press Ctrl+C to stop.", flush=True)
