"""Well-known IDs and keys of the sandbox, so the README, the screenshots, the tests and a new user can name them."""

from __future__ import annotations

BATCH_50_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000050"
BATCH_SMALL_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000003"
BATCH_UNKNOWN_CHAIN_ID = "6f1c2a10-5b7e-4c1d-9a33-0000000000aa"
BATCH_FAILED_ID = "6f1c2a10-5b7e-4c1d-9a33-0000000000f1"
BATCH_PENDING_ID = "6f1c2a10-5b7e-4c1d-9a33-0000000000e1"
ONRAMP_OPEN_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a001"
ONRAMP_OPEN_NO_EXPIRY_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a002"
ONRAMP_COMPLETED_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000c001"
METRIC_DAILY_VOLUME_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000d1"
METRIC_TX_COUNT_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000b2"
METRIC_MONTHLY_VOLUME_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000a3"
METRIC_HOURLY_VOLUME_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000e4"
METRIC_EMPTY_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000f5"

BOOKMARKED_METRICS = (
    ("Daily gross volume", METRIC_DAILY_VOLUME_ID),
    ("Transaction count by type and status", METRIC_TX_COUNT_ID),
    ("Monthly gross volume", METRIC_MONTHLY_VOLUME_ID),
    ("Hourly gross volume", METRIC_HOURLY_VOLUME_ID),
)
"""What a new user of the built-in sandbox finds bookmarked on the metrics screen."""

SAMPLE_IDS = (
    ("batch", "50 recipients", BATCH_50_ID),
    ("batch", "failed (status FAILED, no transaction hash)", BATCH_FAILED_ID),
    ("batch", "pending (status PENDING, not yet on chain)", BATCH_PENDING_ID),
    ("batch", "3 recipients", BATCH_SMALL_ID),
    ("batch", "a chain with no known explorer", BATCH_UNKNOWN_CHAIN_ID),
    ("onramp", "open quote", ONRAMP_OPEN_ID),
    ("onramp", "open quote, no expiry", ONRAMP_OPEN_NO_EXPIRY_ID),
    ("onramp", "completed: cannot be refreshed", ONRAMP_COMPLETED_ID),
)
"""(kind, what case it shows, ID): one ID per interesting case, to try on the batch and quote screens.
Every one exists in the data (a test looks each up and checks it shows its case)."""

SANDBOX_KEY = "sk_sandbox_7f3a9c2e5d1b4a6f8e0c2d4b6a8f0e1c"
"""The key the embedded sandbox accepts out of the box (sandbox only: it moves no money)."""

UNKNOWN_DOC_TYPE = "utility_bill_scan"
"""A docType the spec does not list: clients must show it as an untyped document request."""
