"""The values the RFI list accepts as filters (spec 4.1), importable without pydantic or httpx.

The command line offers them as choices before anything else is loaded: `--help` and a usage
error must start as fast as a small script.
"""

from __future__ import annotations

RFI_STATUSES = ("issued", "submitted", "resolved", "expired")
RFI_KINDS = ("onboarding", "transaction")
