"""`export`: every RFI matching the filters to a CSV or JSON file (all pages), without the console."""

from __future__ import annotations

import argparse
import sys

from stablepay_console.cli.arguments import filters_of, quoted, say
from stablepay_console.cli.export_flags import range_of
from stablepay_console.cli.output import to_stderr


def run_export(args: argparse.Namespace) -> int:
    import asyncio
    from datetime import datetime, timezone

    from stablepay_console.api import APIError
    from stablepay_console.api.error_text import error_text
    from stablepay_console.api.sanitize import has_control
    from stablepay_console.cli.console import start_profile
    from stablepay_console.cli.session import setup_logging
    from stablepay_console.services.export.requests import (
        ExportResult,
        default_export_name,
        export_rfis,
        resolve_export_path,
    )

    setup_logging()
    started = start_profile(args)
    if started is None:
        return 2
    profile, services = started
    filters = filters_of(args)
    created_after, created_before = range_of(args)
    name = default_export_name(filters, args.format, datetime.now(timezone.utc))
    try:
        if has_control(args.output):
            raise ValueError(f"The output path holds control characters or escape sequences: {quoted(args.output)}.")
        path = resolve_export_path(args.output, args.format, name)
    except ValueError as exc:
        to_stderr(f"stablepay-console: {say(str(exc))}")
        return 2

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            to_stderr(f"\rExported {done} of {total}", end="")

    async def export() -> ExportResult:
        async with services.client_for(profile) as client:
            return await export_rfis(client, path, args.format, filters, progress, created_after=created_after,
                                     created_before=created_before, stop_on_sigterm=True)

    to_stderr(f"Exporting RFIs ({filters.describe()}) from profile {profile.name} ({profile.environment})…")
    try:
        result = asyncio.run(export())
    except APIError as exc:
        to_stderr(f"\nstablepay-console: export failed, nothing was written. {say(error_text(exc, status=True))}")
        services.audit.exported(profile, filters, path, None, f"failed: {exc.kind}")
        return 1
    except KeyboardInterrupt:
        to_stderr("\nstablepay-console: export cancelled, nothing was written.")
        return 130
    except OSError as exc:  # NotWritten: a full, read-only or forbidden disk; no partial file is left
        to_stderr(f"\nstablepay-console: export failed, nothing was written. {say(str(exc))}")
        services.audit.exported(profile, filters, path, None, "failed: not written")
        return 1
    if sys.stderr.isatty():
        to_stderr("")
    to_stderr(result.summary())
    if result.warning() is not None:
        to_stderr(f"Warning: {result.warning()}")
    print(f"Exported {result.count} requests to {path}")
    services.audit.exported(profile, filters, path, result.count)
    return 0
