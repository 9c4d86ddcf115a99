"""The StablePay API client: usable as a library on its own (no UI, no keyring, no files).

Names are loaded on first use: `from stablepay_console.api import StablePayClient` works as usual,
but importing a light module of this package (`urls`, `validation`, `sanitize`) does not pull in
httpx and pydantic, so `--help` and argument checks start as fast as a small script.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

# httpx loads its own command-line client (click, pygments and more) whenever click is
# installed, and uvicorn installs click. The console never runs it: leave it out.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient, default_retry
    from stablepay_console.api.errors import (
        APIError,
        DeadlineExceeded,
        FieldError,
        MalformedResponse,
        ResponseTooLarge,
        ServerError,
        StatusError,
        TransportError,
        Unauthorized,
        ValidationFailed,
    )
    from stablepay_console.api.models import (
        BatchTransfer,
        MetricResult,
        OnrampTransfer,
        Pagination,
        Pong,
        QuoteInformation,
        Rfi,
        RfiItem,
        RfiPage,
        RfiRound,
    )
    from stablepay_console.api.secret import ApiKey
    from stablepay_console.api.urls import check_base_url

_HOMES = {
    "StablePayClient": "client",
    "default_retry": "client",
    "check_base_url": "urls",
    "ApiKey": "secret",
    **dict.fromkeys(
        (
            "APIError",
            "DeadlineExceeded",
            "FieldError",
            "MalformedResponse",
            "ResponseTooLarge",
            "ServerError",
            "StatusError",
            "TransportError",
            "Unauthorized",
            "ValidationFailed",
        ),
        "errors",
    ),
    **dict.fromkeys(
        (
            "BatchTransfer",
            "MetricResult",
            "OnrampTransfer",
            "Pagination",
            "Pong",
            "QuoteInformation",
            "Rfi",
            "RfiItem",
            "RfiPage",
            "RfiRound",
        ),
        "models",
    ),
}

__all__ = [
    "APIError",
    "ApiKey",
    "BatchTransfer",
    "DeadlineExceeded",
    "FieldError",
    "MalformedResponse",
    "MetricResult",
    "OnrampTransfer",
    "Pagination",
    "Pong",
    "QuoteInformation",
    "ResponseTooLarge",
    "Rfi",
    "RfiItem",
    "RfiPage",
    "RfiRound",
    "ServerError",
    "StablePayClient",
    "StatusError",
    "TransportError",
    "Unauthorized",
    "ValidationFailed",
    "check_base_url",
    "default_retry",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
