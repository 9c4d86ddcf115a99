"""RSA keys and signed deliveries for the webhook tests: made here, in the test run, never kept in the repository."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import time
import uuid
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey


@functools.cache
def _made(which: str) -> RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def private_key(which: str = "provider") -> RSAPrivateKey:
    """One 2048-bit key per name and test process (`provider`: the dashboard's; `other`: anyone else's)."""
    return _made(which)


def public_pem(which: str = "provider") -> bytes:
    return private_key(which).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def private_pem(which: str = "provider") -> bytes:
    return private_key(which).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def write_keys(folder: Path) -> tuple[Path, Path]:
    """(public key file, private key file) of the provider's key, in a test's own folder."""
    public, private = folder / "webhook-public.pem", folder / "webhook-signing.pem"
    public.write_bytes(public_pem())
    private.write_bytes(private_pem())
    private.chmod(0o600)
    return public, private


def envelope(event_type: str = "ONRAMP.RFI.OPEN", transfer_id: str | None = None, user_id: str | None = None,
             event_id: str | None = None) -> dict[str, Any]:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {
        "eventId": event_id or str(uuid.uuid4()),
        "eventCategory": event_type.split(".")[0],
        "eventType": event_type,
        "eventAction": event_type.rsplit(".", 1)[-1],
        "data": {"transferType": event_type.split(".")[0],
                 "transferDetails": {"id": transfer_id or str(uuid.uuid4()),
                                     "source": {"userId": user_id or str(uuid.uuid4())}}},
        "createdAt": now,
        "timestamp": now,
        "version": "v2",
    }


def body_of(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def token(body: bytes, *, which: str = "provider", iat: float | None = None, exp: float | None = None,
          claims: dict[str, Any] | None = None) -> str:
    import jwt

    moment = time.time() if iat is None else iat
    payload = {"iat": int(moment), "exp": int(moment + 300 if exp is None else exp),
               "bodySha256": hashlib.sha256(body).hexdigest(), **(claims or {})}
    return jwt.encode(payload, private_key(which), algorithm="RS256")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(body: bytes) -> str:
    """`alg: none`: a token with no signature at all."""
    header = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    payload = _b64(json.dumps({"iat": int(time.time()), "bodySha256": hashlib.sha256(body).hexdigest()}).encode())
    return f"{header}.{payload}."


def hs256_with_public_key(body: bytes) -> str:
    """HS256 "signed" with the public key's PEM as the HMAC secret: the classic algorithm confusion."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64(json.dumps({"iat": int(time.time()), "bodySha256": hashlib.sha256(body).hexdigest()}).encode())
    signature = hmac.new(public_pem(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{_b64(signature)}"
