"""Block explorers: where a person can read a transaction of a given chain.

Headless on purpose (no Textual, no network): the TUI asks it for a URL and the
CLI or a report may do the same. An unknown chain has no explorer; callers say so
rather than guess one.
"""

from __future__ import annotations

import re

TRANSACTION_URLS: dict[str, str] = {
    "POLYGON": "https://polygonscan.com/tx/{hash}",
    "ETHEREUM": "https://etherscan.io/tx/{hash}",
    "BASE": "https://basescan.org/tx/{hash}",
    "ARBITRUM": "https://arbiscan.io/tx/{hash}",
    "OPTIMISM": "https://optimistic.etherscan.io/tx/{hash}",
    "AVALANCHE": "https://snowtrace.io/tx/{hash}",
    "BSC": "https://bscscan.com/tx/{hash}",
    "SOLANA": "https://solscan.io/tx/{hash}",
    "TRON": "https://tronscan.org/#/transaction/{hash}",
}
"""Chain name (upper case, as the API sends it) -> transaction URL template."""

_ALIASES = {
    "ETH": "ETHEREUM",
    "MATIC": "POLYGON",
    "ARB": "ARBITRUM",
    "AVAX": "AVALANCHE",
    "BNB": "BSC",
    "SOL": "SOLANA",
}

# A transaction hash is hex (EVM) or base58 (Solana, Tron): letters and digits only.
# Anything else is not put into a URL, so server text can never steer where a link points.
_SAFE_HASH = re.compile(r"[0-9A-Za-z]{8,128}")


def known_chain(chain: str | None) -> str | None:
    """The canonical chain name if an explorer is known for it, else None."""
    if not chain:
        return None
    name = chain.strip().upper()
    name = _ALIASES.get(name, name)
    return name if name in TRANSACTION_URLS else None


def transaction_url(chain: str | None, tx_hash: str | None) -> str | None:
    """The explorer URL of `tx_hash` on `chain`; None for an unknown chain or an unusable hash."""
    name = known_chain(chain)
    if name is None or not tx_hash:
        return None
    value = tx_hash.strip()
    if not _SAFE_HASH.fullmatch(value):
        return None
    return TRANSACTION_URLS[name].format(hash=value)
