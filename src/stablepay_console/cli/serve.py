"""`sandbox serve`: the local API simulator over HTTP on loopback, until Ctrl+C."""

from __future__ import annotations

import argparse


def run_sandbox(args: argparse.Namespace) -> int:
    from stablepay_console.sandbox.faults import Faults
    from stablepay_console.sandbox.serve import serve

    faults = Faults(
        latency=args.latency,
        error_rate=args.error_rate,
        rate_limit_rate=args.rate_limit_rate,
        malformed_rate=args.malformed_rate,
    )
    if (args.webhook_url is None) != (args.webhook_signing_key is None):
        from stablepay_console.cli.output import fail

        fail("--webhook-url URL and --webhook-signing-key FILE go together.")
        return 2
    return serve(host=args.host, port=args.port, seed=args.seed, rfis=args.rfis, faults=faults,
                 ping_path=args.ping_path, webhook_url=args.webhook_url, webhook_signing_key=args.webhook_signing_key)
