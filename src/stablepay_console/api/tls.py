"""TLS for the API client: one verified context for every https client of the process; none for loopback http."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def verified_tls() -> ssl.SSLContext:
    """The TLS settings of every https client of this process: the trusted roots (certifi's, or the system's
    where `SSL_CERT_FILE` / `SSL_CERT_DIR` say), a certificate and host name checked on every connection.

    Made once: loading the roots costs CPU that httpx would spend again for every client
    (each command, each profile switch, each check of the rotation wizard). One context serves any number of
    connections and threads."""
    return httpx.create_ssl_context()


def tls_for(url: httpx.URL) -> ssl.SSLContext:
    """`verified_tls()` for https. Plain http is for loopback only (`check_base_url`) and redirects are never
    followed, so such a client never speaks TLS: it gets a context that trusts no root at all, which would
    refuse any certificate, and costs nothing to make."""
    if url.scheme == "https":
        return verified_tls()
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
