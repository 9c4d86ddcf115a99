"""TLS: every https client of a process shares one verifying context, and a certificate it cannot trust is refused.

The context is made once a process (loading the trusted roots costs about 75 ms of CPU a client otherwise); these
tests prove that sharing it kept every check: against a real TLS server on loopback whose certificate no root signs.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from stablepay_console.api import StablePayClient, TransportError
from stablepay_console.api.tls import tls_for, verified_tls
from tests.ci import in_ci

KEY = "sk_sandbox_tls_test_key_0000000000000000"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """(certificate, key) for 127.0.0.1, signed by itself: trusted by no root."""
    openssl = shutil.which("openssl")
    if openssl is None:
        if in_ci():
            pytest.fail("openssl is needed to make the test server's certificate")
        pytest.skip("openssl is not installed: no certificate for the test server")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30,
    )
    return cert, key


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, list[bytes]]]:
    """(https base URL, what each connection sent once its handshake finished) of a one-thread TLS server."""
    cert, key = self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            raw.settimeout(5)
            try:
                with context.wrap_socket(raw, server_side=True) as conn:
                    received.append(conn.recv(65536))
                    conn.sendall(b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 19\r\n'
                                 b'connection: close\r\n\r\n{"message": "pong"}')
            except (ssl.SSLError, OSError):  # the client refused the certificate and hung up
                raw.close()

    thread = threading.Thread(target=serve, name="tls-test-server", daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{listener.getsockname()[1]}", received
    finally:
        stop.set()
        listener.close()
        thread.join(5)


async def test_a_certificate_no_root_signs_is_refused_and_the_request_never_sent(
    tls_server: tuple[str, list[bytes]],
) -> None:
    base_url, received = tls_server
    async with StablePayClient(base_url, KEY) as client:
        with pytest.raises(TransportError) as refused:
            await client.ping()
    assert "could not connect" in str(refused.value)
    assert received == []  # nothing (no key above all) crossed a connection whose certificate failed
    assert KEY not in str(refused.value)


async def test_the_same_server_answers_a_client_that_trusts_its_certificate(
    tls_server: tuple[str, list[bytes]], tmp_path: Path
) -> None:
    """The refusal above is the certificate's doing, not a broken server: trusted, the same server answers."""
    base_url, received = tls_server
    trusting = ssl.create_default_context(cafile=tmp_path / "cert.pem")
    transport = httpx.AsyncHTTPTransport(verify=trusting)
    async with StablePayClient(base_url, KEY, transport=transport) as client:
        pong = await client.ping()
    assert pong.message == "pong"
    assert received and received[0].startswith(b"GET /ping ")


def test_every_https_client_shares_one_context_that_checks_certificates_and_host_names() -> None:
    first, second = tls_for(httpx.URL("https://api.example.com")), tls_for(httpx.URL("https://other.example.org"))
    assert first is second is verified_tls()
    assert first.verify_mode == ssl.CERT_REQUIRED
    assert first.check_hostname
    assert first.cert_store_stats()["x509_ca"] > 0  # the trusted roots are loaded


def test_a_plain_http_client_gets_a_context_that_would_trust_nothing() -> None:
    """Loopback http never speaks TLS (no redirects are followed); were it ever to, no certificate would pass."""
    context = tls_for(httpx.URL("http://127.0.0.1:8080"))
    assert context is not verified_tls()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0
