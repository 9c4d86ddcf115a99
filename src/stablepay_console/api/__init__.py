"""The StablePay API client: usable as a library on its own (no UI, no keyring, no files)."""

from stablepay_console.api.client import StablePayClient, check_base_url, default_retry
from stablepay_console.api.errors import (
    APIError,
    FieldError,
    MalformedResponse,
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

__all__ = [
    "APIError",
    "ApiKey",
    "BatchTransfer",
    "FieldError",
    "MalformedResponse",
    "MetricResult",
    "OnrampTransfer",
    "Pagination",
    "Pong",
    "QuoteInformation",
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
