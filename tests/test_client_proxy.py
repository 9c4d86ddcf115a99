"""The client through a real forward proxy (tinyproxy): HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are honoured,
NO_PROXY decides what goes direct, and a proxy that is down or refuses is said in one line.

tinyproxy logs every request it takes with its URL ("Request (file descriptor 5): GET http://...");
that log is how each test knows whether a request went through the proxy or past it.
"""

from __future__ import annotations

import base64
import logging
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from httpx_retries import Retry
from rich.pretty import pretty_repr

from stablepay_console.api import MalformedResponse, StablePayClient, TransportError
from stablepay_console.api.proxies import bypassed, proxy_for
from tests.ci import missing
from tests.cli_e2e import Result, Server, add_profile, command_env, console, free_port, serve
from tests.postgres import wait_for
from tests.test_cli_commands import failed
from tests.test_tls import tls_server

__all__ = ["tls_server"]  # a fixture of the TLS tests, used here through a proxy

PROXY_VARIABLES = [f"{scheme}_proxy" for scheme in ("http", "https", "all", "no")]
PROXY_VARIABLES += [name.upper() for name in PROXY_VARIABLES]
USER, PASSWORD = "operator", "pr0xy-canary-Zq8Wm3Kd7"
"""The guarded proxy's credentials: the password must show up nowhere but on the wire to the proxy."""
NO_RETRY = Retry(total=0)


@dataclass(frozen=True)
class Tinyproxy:
    port: int
    log: Path

    @property
    def where(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, credentials: str = "") -> str:
        return f"http://{credentials}{'@' if credentials else ''}{self.where}"

    def requests(self) -> list[str]:
        """The request lines the proxy took, in order ("GET http://127.0.0.1:8787/ping HTTP/1.1")."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [line.split("): ", 1)[1] for line in text.splitlines() if "Request (file descriptor" in line]


@contextmanager
def tinyproxy(folder: Path, *settings: str) -> Iterator[Tinyproxy]:
    """tinyproxy in the foreground on a free loopback port, with its own configuration and log in `folder`."""
    program = shutil.which("tinyproxy")
    if program is None:
        missing("tinyproxy is not installed", "apt-get install tinyproxy")
    folder.mkdir(parents=True, exist_ok=True)
    port, log, conf = free_port(), folder / "tinyproxy.log", folder / "tinyproxy.conf"
    # LogLevel Connect logs each request line; no ConnectPort line: CONNECT may reach any port (the loopback
    # test servers'); Allow: only this machine may use it.
    conf.write_text("\n".join([f"Port {port}", "Listen 127.0.0.1", "Timeout 30", f'LogFile "{log}"',
                               "LogLevel Connect", "MaxClients 20", "Allow 127.0.0.1", *settings, ""]))
    process = subprocess.Popen([program, "-d", "-c", str(conf)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        if not wait_for(lambda: process.poll() is not None or _listening(port), seconds=10) or process.poll():
            raise AssertionError(f"tinyproxy did not start: {process.communicate(timeout=5)[1]!r}")
        yield Tinyproxy(port, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


@pytest.fixture(scope="session")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tinyproxy]:
    with tinyproxy(tmp_path_factory.mktemp("proxy")) as running:
        yield running


@pytest.fixture(scope="session")
def guarded_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tinyproxy]:
    """A proxy that asks for a user name and password (407 without them)."""
    with tinyproxy(tmp_path_factory.mktemp("guarded"), f"BasicAuth {USER} {PASSWORD}") as running:
        yield running


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """`stablepay-console sandbox serve` on loopback, as a user starts it."""
    with serve("--rfis", "5") as served:
        yield served


@pytest.fixture
def no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """None of this machine's own proxy settings: each test sets the ones it means."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    return free_port()


def ping_command(server: Server, **settings: str) -> Result:
    """`stablepay-console ping` as its own process, with exactly these proxy settings."""
    add_profile("local", "sandbox", server.base_url)
    env = command_env("local", server.key)
    for name in PROXY_VARIABLES:
        env.pop(name, None)
    env.update(settings)
    done = subprocess.run([*console(), "ping"], capture_output=True, text=True, timeout=120, env=env)
    return Result(done.returncode, done.stdout, done.stderr)


# --- a headless command -----------------------------------------------------------------------------------


def test_a_command_goes_through_the_proxy_http_proxy_names(server: Server, proxy: Tinyproxy) -> None:
    before = len(proxy.requests())
    result = ping_command(server, HTTP_PROXY=proxy.url())
    assert (result.code, result.out) == (0, "pong\n"), result
    assert proxy.requests()[before:] == [f"GET {server.base_url}/ping HTTP/1.1"]


def test_no_proxy_sends_the_command_past_the_proxy(server: Server, proxy: Tinyproxy) -> None:
    before = len(proxy.requests())
    result = ping_command(server, HTTP_PROXY=proxy.url(), NO_PROXY="127.0.0.1")
    assert (result.code, result.out) == (0, "pong\n"), result
    assert proxy.requests()[before:] == []


def test_a_proxy_that_is_not_running_is_one_clean_line(server: Server) -> None:
    port = closed_port()
    result = ping_command(server, HTTP_PROXY=f"http://127.0.0.1:{port}")
    failed(result, 1, f"could not connect to {server.base_url}: the proxy at 127.0.0.1:{port} refused the connection")


# --- which setting, for which server ----------------------------------------------------------------------


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
async def test_each_setting_that_names_a_proxy_for_http_is_honoured(
    server: Server, proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch, variable: str
) -> None:
    no_proxy_settings.setenv(variable, proxy.where)  # no scheme: an http proxy, as curl reads it
    before = len(proxy.requests())
    async with StablePayClient(server.base_url, server.key) as client:
        assert (await client.ping()).message == "pong"
        assert repr(client).endswith(f"proxy='{proxy.where}')")
    assert proxy.requests()[before:] == [f"GET {server.base_url}/ping HTTP/1.1"]


async def test_lower_case_wins_and_https_proxy_is_only_for_https(
    server: Server, proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch
) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}"
    no_proxy_settings.setenv("HTTP_PROXY", nowhere)
    no_proxy_settings.setenv("http_proxy", proxy.url())
    no_proxy_settings.setenv("HTTPS_PROXY", nowhere)
    before = len(proxy.requests())
    async with StablePayClient(server.base_url, server.key, retry=NO_RETRY) as client:
        assert (await client.ping()).message == "pong"
    assert proxy.requests()[before:] == [f"GET {server.base_url}/ping HTTP/1.1"]
    no_proxy_settings.delenv("http_proxy")
    no_proxy_settings.delenv("HTTP_PROXY")
    async with StablePayClient(server.base_url, server.key, retry=NO_RETRY) as client:
        assert (await client.ping()).message == "pong"  # HTTPS_PROXY's dead proxy is not asked for http
        assert client.proxy is None


@pytest.mark.parametrize(
    ("variable", "value"),
    [("no_proxy", "example.com, 10.0.0.0/8 127.0.0.0/8"), ("NO_PROXY", "*"), ("NO_PROXY", "localhost,127.0.0.1")],
)
async def test_no_proxy_naming_the_server_goes_past_the_proxy(
    server: Server, proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    no_proxy_settings.setenv("HTTP_PROXY", proxy.url())
    no_proxy_settings.setenv(variable, value)
    before = len(proxy.requests())
    async with StablePayClient(server.base_url, server.key) as client:
        assert (await client.ping()).message == "pong"
        assert client.proxy is None and "proxy" not in repr(client)
    assert proxy.requests()[before:] == []


async def test_no_proxy_that_names_other_hosts_leaves_the_proxy_in_the_way(
    server: Server, proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch
) -> None:
    no_proxy_settings.setenv("HTTP_PROXY", proxy.url())
    no_proxy_settings.setenv("NO_PROXY", "localhost,.example.com,10.0.0.0/8,::1,127.0.0.2")
    before = len(proxy.requests())
    async with StablePayClient(server.base_url, server.key) as client:
        assert (await client.ping()).message == "pong"
    assert proxy.requests()[before:] == [f"GET {server.base_url}/ping HTTP/1.1"]


@pytest.mark.parametrize(
    ("host", "no_proxy", "direct"),
    [
        ("api.example.com", "example.com", True),
        ("example.com", ".example.com", True),  # curl: a leading dot is allowed and changes nothing
        ("API.Example.COM.", "example.com", True),
        ("badexample.com", "example.com", False),
        ("example.com.evil.net", "example.com", False),
        ("127.0.0.1", "127.0.0.1", True),
        ("127.0.0.1", "127.0.0.0/8", True),
        ("127.0.0.1", "127.0.0.10", False),
        ("127.0.0.1", "localhost", False),  # no name is looked up: the address is not "localhost"
        ("localhost", "127.0.0.1", False),
        ("::1", "::1", True),
        ("::1", "[::1]", True),
        ("::1", "::/0", True),
        ("10.1.2.3", "example.com, 10.0.0.0/8", True),
        ("anything.test", "*", True),
        ("anything.test", "", False),
        ("anything.test", " , ,", False),
    ],
)
def test_no_proxy_is_read_as_curl_reads_it(host: str, no_proxy: str, direct: bool) -> None:
    assert bypassed(host, no_proxy) is direct


def test_loopback_gets_no_exception_of_its_own() -> None:
    """The local sandbox over HTTP goes through a proxy too, unless NO_PROXY lists it: NO_PROXY decides."""
    settings = {"http": "http://proxy.corp:3128"}
    chosen = proxy_for(httpx.URL("http://127.0.0.1:8787"), settings)
    assert chosen is not None and chosen.where == "proxy.corp:3128" and chosen.variable == "HTTP_PROXY"
    assert proxy_for(httpx.URL("http://127.0.0.1:8787"), {**settings, "no": "localhost,127.0.0.1"}) is None
    assert proxy_for(httpx.URL("http://[::1]:8787"), {**settings, "no": "::1"}) is None
    tls = proxy_for(httpx.URL("https://api.example.com"), {"all": "https://proxy.corp"})
    assert tls is not None and tls.where == "proxy.corp:443" and tls.variable == "ALL_PROXY"


# --- refusals -----------------------------------------------------------------------------------------------


async def test_the_proxy_refusing_a_tunnel_says_so_with_its_reason(
    proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch
) -> None:
    """An https server goes through a CONNECT tunnel: the proxy cannot reach this one and answers 500."""
    base_url = f"https://127.0.0.1:{closed_port()}"
    no_proxy_settings.setenv("HTTPS_PROXY", proxy.url())
    async with StablePayClient(base_url, "sk_sandbox_not_sent_0000000000000000", retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as refused:
            await client.ping()
    assert str(refused.value) == (f"GET /ping: the proxy at {proxy.where} would not connect to {base_url} "
                                  "(500 Unable to connect).")
    assert proxy.requests()[-1] == f"CONNECT {base_url.removeprefix('https://')} HTTP/1.1"


async def test_a_tunnel_keeps_the_certificate_check(
    tls_server: tuple[str, list[bytes]], proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch
) -> None:
    """Through the proxy's tunnel the server's certificate is checked as it is directly: one no root signs is
    refused, and nothing (no key) crosses the connection."""
    base_url, received = tls_server
    no_proxy_settings.setenv("HTTPS_PROXY", proxy.url())
    async with StablePayClient(base_url, "sk_sandbox_tls_test_key_0000000000000000", retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as refused:
            await client.ping()
    assert f"a TLS handshake failed on the way through the proxy at {proxy.where}" in str(refused.value)
    assert proxy.requests()[-1] == f"CONNECT {base_url.removeprefix('https://')} HTTP/1.1"
    assert received == []


async def test_a_proxy_wanting_credentials_says_where_they_go(
    server: Server, guarded_proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch
) -> None:
    no_proxy_settings.setenv("HTTP_PROXY", guarded_proxy.url())
    async with StablePayClient(server.base_url, server.key, retry=NO_RETRY) as client:
        with pytest.raises(MalformedResponse) as refused:
            await client.ping()
    assert str(refused.value) == (
        f"HTTP 407: The proxy at {guarded_proxy.where} refused the request (407 Proxy Authentication Required); "
        f"it wants a user name and password: HTTP_PROXY=http://USER:PASSWORD@{guarded_proxy.where}."
    )


async def test_an_unusable_proxy_setting_fails_every_request_rather_than_going_direct(
    server: Server, no_proxy_settings: pytest.MonkeyPatch
) -> None:
    no_proxy_settings.setenv("HTTP_PROXY", f"socks5://{USER}:{PASSWORD}@127.0.0.1:1080")
    async with StablePayClient(server.base_url, server.key, retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as refused:
            await client.ping()
        shown = [str(refused.value), repr(refused.value), repr(client), pretty_repr(vars(client))]
    assert str(refused.value) == ("GET /ping: HTTP_PROXY names a proxy at 127.0.0.1:1080 this console cannot use: "
                                  "it must be an http:// or https:// URL.")
    assert not any(PASSWORD in text for text in shown)


# --- the proxy's password --------------------------------------------------------------------------------------


def shows_password(text: str) -> bool:
    """The password, or the Basic credentials it travels in, anywhere in `text`."""
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    return PASSWORD in text or PASSWORD[-8:] in text or basic in text or basic[-12:] in text


async def test_the_proxy_password_is_used_and_shown_nowhere(
    server: Server, guarded_proxy: Tinyproxy, no_proxy_settings: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "httpx_retries", "stablepay_console"):
        caplog.set_level(logging.DEBUG, logger=name)
    no_proxy_settings.setenv("HTTP_PROXY", guarded_proxy.url(f"{USER}:{PASSWORD}"))
    before = len(guarded_proxy.requests())
    async with StablePayClient(server.base_url, server.key, retry=NO_RETRY) as client:
        assert (await client.ping()).message == "pong"  # the proxy wants the password: it was sent
        shown = [repr(client), str(client), pretty_repr(vars(client)), repr(client.proxy), str(client.proxy)]
    assert guarded_proxy.requests()[before:] == [f"GET {server.base_url}/ping HTTP/1.1"]
    no_proxy_settings.setenv("HTTP_PROXY", guarded_proxy.url(f"{USER}:not-{PASSWORD}"))
    async with StablePayClient(server.base_url, server.key, retry=NO_RETRY) as client:
        with pytest.raises(MalformedResponse) as refused:
            await client.ping()
    assert "it refused the user name and password in HTTP_PROXY" in str(refused.value)
    shown += [str(refused.value), repr(refused.value), caplog.text]
    shown += [f"{record.getMessage()} {record.args!r} {record.__dict__!r}" for record in caplog.records]
    assert any(record.name.startswith("httpcore") for record in caplog.records), "nothing logged: nothing proven"
    for text in shown:
        assert not shows_password(text), text


def test_a_command_through_a_guarded_proxy_never_prints_the_password(
    server: Server, guarded_proxy: Tinyproxy
) -> None:
    result = ping_command(server, HTTP_PROXY=guarded_proxy.url(f"{USER}:wrong-{PASSWORD}"))
    failed(result, 1, f"the proxy at {guarded_proxy.where}", "refused the user name and password in HTTP_PROXY")
    assert not shows_password(result.out + result.err)
