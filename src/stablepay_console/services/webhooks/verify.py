"""Is this delivery the provider's? The signature is checked before a byte of the body is parsed.

A delivery carries `Authorization: Bearer <JWT>` signed RS256 with the key the dashboard shows (its public
half is the `--webhook-key` file). Only RS256 is accepted: `alg: none`, HS256 (with the public key as the
secret, the classic confusion) and any other algorithm are refused by name, before the signature is looked
at. Which claims the provider puts in the token is not published, so each is checked where present: `exp`
and `iat` (`nbf` too) with `LEEWAY` of clock skew, and `bodySha256`, the hex SHA-256 of the raw body,
which must match the body received. Anything else refused is a `Refused` with a reason safe to print.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

ALGORITHM = "RS256"
LEEWAY = 30
"""Seconds of clock skew allowed on `exp`, `iat` and `nbf`."""
MAX_TOKEN = 8 * 1024
"""A longer Authorization header is not a token the provider sends."""
BODY_CLAIM = "bodySha256"


class Refused(Exception):
    """Not the provider's delivery (or not one this receiver can trust). `reason` is plain ASCII, safe to print."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class KeyFileError(ValueError):
    """The `--webhook-key` file is not an RSA public key in PEM."""


def load_public_key(path: Path) -> RSAPublicKey:
    """The dashboard's webhook public key from a PEM file (`-----BEGIN PUBLIC KEY-----`, or a certificate)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"Cannot read the webhook key {path}: {exc.strerror or exc}.") from None
    if len(data) > 64 * 1024:
        raise KeyFileError(f"The webhook key {path} is not a PEM public key (it is over 64 KiB).")
    if b"PRIVATE KEY" in data:
        raise KeyFileError(f"The webhook key {path} holds a private key: give the public key the dashboard shows.")
    try:
        if b"BEGIN CERTIFICATE" in data:
            key: Any = x509.load_pem_x509_certificate(data).public_key()
        else:
            key = load_pem_public_key(data)
    except ValueError:
        raise KeyFileError(f"The webhook key {path} is not a PEM public key.") from None
    if not isinstance(key, RSAPublicKey):
        raise KeyFileError(f"The webhook key {path} is not an RSA key (the provider signs RS256).")
    if key.key_size < 2048:
        raise KeyFileError(f"The webhook key {path} is a {key.key_size}-bit RSA key: 2048 bits at least.")
    return key


def bearer(authorization: str | None) -> str:
    """The token of `Authorization: Bearer <token>`; Refused when there is none."""
    if not authorization:
        raise Refused("no Authorization header")
    if len(authorization) > MAX_TOKEN:
        raise Refused("Authorization header too long")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused("Authorization is not a Bearer token")
    return token.strip()


@dataclass(frozen=True)
class Verified:
    """A token whose signature is the provider's: its claims, to check the body against once it is read."""

    claims: dict[str, Any]

    def check_body(self, body: bytes) -> None:
        """The body must be the one signed, where the token says which (`bodySha256`)."""
        expected = self.claims.get(BODY_CLAIM)
        if expected is None:
            return
        if not isinstance(expected, str):
            raise Refused(f"{BODY_CLAIM} claim is not text")
        actual = hashlib.sha256(body).hexdigest()
        if not hmac.compare_digest(expected.strip().lower().encode("ascii", "replace"), actual.encode("ascii")):
            raise Refused(f"{BODY_CLAIM} does not match the body")


def verify_token(token: str, key: RSAPublicKey) -> Verified:
    """The token's header and signature (RS256 with `key` only) and its time claims; Refused otherwise."""
    import jwt

    try:
        header = jwt.get_unverified_header(token)
    except jwt.exceptions.DecodeError:
        raise Refused("the token is not a JWT") from None
    alg = header.get("alg")
    if alg != ALGORITHM:  # PyJWT refuses it too (algorithms=[RS256]); this says which one came
        shown = alg if isinstance(alg, str) and alg.isascii() and alg.isprintable() else "?"
        raise Refused(f"algorithm {shown[:20]} is refused (RS256 only)")
    try:
        claims: dict[str, Any] = jwt.decode(
            token, key, algorithms=[ALGORITHM], leeway=LEEWAY,
            # the claims are not published: none is required, each present is checked
            options={"require": [], "verify_signature": True, "verify_exp": True, "verify_iat": True,
                     "verify_nbf": True, "verify_aud": False, "verify_iss": False},
        )
    except jwt.exceptions.InvalidSignatureError:
        raise Refused("the signature is not the provider's") from None
    except jwt.exceptions.ExpiredSignatureError:
        raise Refused("the token has expired") from None
    except jwt.exceptions.ImmatureSignatureError:
        raise Refused("the token is not valid yet (iat or nbf in the future)") from None
    except jwt.exceptions.InvalidTokenError as exc:
        raise Refused(f"the token is invalid ({type(exc).__name__})") from None
    return Verified(claims)
