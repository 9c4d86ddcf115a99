"""`stablepay-console sandbox serve`: the sandbox over real HTTP on loopback."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import uvicorn

from stablepay_console.api.urls import is_loopback
from stablepay_console.sandbox.app import Sandbox
from stablepay_console.sandbox.faults import Faults
from stablepay_console.sandbox.ids import SAMPLE_IDS, SANDBOX_KEY


def serve(
    host: str = "127.0.0.1",
    port: int = 8787,
    seed: int = 7,
    rfis: int = 240,
    faults: Faults | None = None,
    ping_path: str = "/ping",
    webhook_url: str | None = None,
    webhook_signing_key: Path | None = None,
) -> int:
    if not is_loopback(host):
        print(f"Refusing to serve the sandbox on {host}: loopback addresses only.", file=sys.stderr)
        return 2
    sandbox = Sandbox(seed=seed, rfis=rfis, faults=faults, ping_path=ping_path)
    said: list[str] = []
    if webhook_url is not None and webhook_signing_key is not None:
        from stablepay_console.sandbox.webhooks import WebhookSender, load_signing_key

        try:
            key = load_signing_key(webhook_signing_key)
        except ValueError as exc:
            print(f"stablepay-console: {exc}", file=sys.stderr)
            return 2
        sandbox.state.on_rfi_changed = WebhookSender(webhook_url, key).announce
        said.append(f"Webhook deliveries go to {webhook_url} (signed RS256; each one's outcome printed here).")
    config = uvicorn.Config(sandbox.app, host=host, port=port, log_level="warning", lifespan="off")
    shown_host = f"[{host}]" if ":" in host else host
    server = _AnnouncingServer(config, f"http://{shown_host}:{port}", said)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    print("Sandbox stopped.", flush=True)
    return 0


def sample_lines() -> list[str]:
    """The sample IDs, one per interesting case, with what each shows and where to use it."""
    width = max(len(label) for _, label, _ in SAMPLE_IDS)
    lines = ["Sample IDs to try (batch lookup, screen 2; quote refresh, screen 3):"]
    for kind, label, value in SAMPLE_IDS:
        lines.append(f"  {kind:<6}  {label:<{width}}  {value}")
    lines.append("  (over HTTP: GET /v2/wallets/transfers/batches/ID, POST /v2/onramps/ID/quote/refresh)")
    return lines


class _AnnouncingServer(uvicorn.Server):
    """Prints the base URL once the socket is listening, so whoever waits for the line can connect at once."""

    def __init__(self, config: uvicorn.Config, base_url: str, said: list[str]) -> None:
        super().__init__(config)
        self.base_url = base_url
        self.said = said

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(f"Sandbox serving at {self.base_url}", flush=True)
            # The key printed here is the sandbox's own demo key: it works only against this local simulator.
            print(f"Sandbox key: {SANDBOX_KEY}", flush=True)
            for line in self.said:
                print(line, flush=True)
            for line in sample_lines():
                print(line, flush=True)
            print("Press Ctrl+C to stop.", flush=True)
