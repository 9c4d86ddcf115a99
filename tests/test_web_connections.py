"""What a connection may cost the web server before it is anyone's (web/connections.py), in the test process: a
small aiohttp application behind the module's own `CappedSite`, on real loopback and Unix sockets.

- a connection over the cap per address is answered 503 and closed before aiohttp sees a byte of it, and its
  address is served again once its connections close;
- connections through the Unix socket, or from a trusted proxy, count only against the total;
- the total cap, whoever connects;
- `connection_room()` lowers the total to what the process's file limit leaves (its soft limit raised first);
- aiohttp's own limits (a request's head and body within seconds, a line's length) hold on every connection, and
  its flow control and end of connection reach it through the cap;
- one line per kind of trouble per minute, with how many like it were left out.

tests/test_web_limits.py proves the same on the console's own server, and times the head and body limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from stablepay_console.web import connections
from stablepay_console.web.connections import (
    BACKLOG,
    BODY_SECONDS,
    BUSY,
    FILES_KEPT,
    HEAD_SECONDS,
    MAX_CONNECTIONS,
    PER_ADDRESS,
    SERVER_LIMITS,
    TROUBLE_SECONDS,
    CappedSite,
    Limits,
    OncePerMinute,
    connection_room,
)
from stablepay_console.web.settings import proxy_network

BACKSTOP = 20.0
"""Seconds a step may take on a loaded machine before the test gives up on it (never a measure)."""
GET = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
CHUNK = 256 * 1024
CHUNKS = 64
"""/big's answer: 16 MiB, more than loopback's socket buffers hold for a client that does not read."""


@dataclass
class App:
    """What the application behind the cap saw."""

    requests: list[str] = field(default_factory=list)
    handlers: list[web.RequestHandler[Any]] = field(default_factory=list)
    written: list[int] = field(default_factory=lambda: [0])
    ended: list[str] = field(default_factory=list)


def application(seen: App) -> web.Application:
    async def healthz(request: web.Request) -> web.Response:
        seen.requests.append(request.path)
        assert isinstance(request.protocol, web.RequestHandler)
        seen.handlers.append(request.protocol)
        return web.Response(text="ok")

    async def big(request: web.Request) -> web.StreamResponse:
        assert isinstance(request.protocol, web.RequestHandler)
        seen.handlers.append(request.protocol)
        response = web.StreamResponse()
        response.content_length = CHUNK * CHUNKS
        await response.prepare(request)
        for _ in range(CHUNKS):
            await response.write(b"b" * CHUNK)
            seen.written[0] += 1
        await response.write_eof()
        seen.ended.append("written")
        return response

    async def upload(request: web.Request) -> web.Response:
        seen.requests.append(request.path)
        try:
            await request.read()
        except Exception as error:
            seen.ended.append(type(error).__name__)
            raise
        seen.ended.append("read")
        return web.Response(text="read")

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/big", big)
    app.router.add_post("/upload", upload)
    return app


@dataclass
class Served:
    runner: web.AppRunner
    limits: Limits
    seen: App
    port: int = 0
    sock: str = ""


@contextlib.asynccontextmanager
async def capped(limits: Limits, unix: bool = False) -> AsyncIterator[Served]:
    """The application behind `CappedSite` with the server's own aiohttp settings, on a loopback port of its
    choosing (and, with `unix`, on a Unix socket as well)."""
    seen = App()
    runner = web.AppRunner(application(seen), handle_signals=False, access_log=None, **SERVER_LIMITS)
    await runner.setup()
    folder = tempfile.TemporaryDirectory()
    try:
        await CappedSite(runner, limits).start()
        served = Served(runner, limits, seen, port=runner.addresses[0][1])
        if unix:
            served.sock = str(Path(folder.name) / "s")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(served.sock)
            await CappedSite(runner, limits, sock=listener).start()
        yield served
    finally:
        await runner.cleanup()
        folder.cleanup()


async def until(check: Callable[[], bool]) -> bool:
    """Whether `check` comes to hold (the server runs in this event loop meanwhile); False after the backstop."""
    deadline = time.monotonic() + BACKSTOP
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def connect(served: Served, local: str = "127.0.0.1") -> Connection:
    """A connection from `local` ("" for the Unix socket) the server counts in: once it has."""
    before = served.limits.count
    opened = await opening(served, local)
    assert await until(lambda: served.limits.count > before), "not counted in"
    return opened


async def opening(served: Served, local: str = "127.0.0.1") -> Connection:
    if local:
        return await asyncio.open_connection("127.0.0.1", served.port, local_addr=(local, 0))
    return await asyncio.open_unix_connection(served.sock)


class Attempt(asyncio.Protocol):
    """A client that sends its request at once and keeps what it is answered until the server closes (a reset
    after the answer, for a request the server never read, loses none of it)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.answer = bytearray()
        self.closed: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(self.data)

    def data_received(self, data: bytes) -> None:
        self.answer += data

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set_result(bytes(self.answer))


async def attempt(served: Served, local: str = "127.0.0.1", data: bytes = GET) -> bytes:
    """What the server answers a new connection from `local` ("" for the Unix socket) that sends `data`."""
    loop = asyncio.get_running_loop()
    client = Attempt(data)
    if local:
        transport, _ = await loop.create_connection(lambda: client, "127.0.0.1", served.port, local_addr=(local, 0))
    else:
        transport, _ = await loop.create_unix_connection(lambda: client, served.sock)
    try:
        return await asyncio.wait_for(asyncio.shield(client.closed), BACKSTOP)
    finally:
        transport.close()


async def answer(opened: Connection, data: bytes = GET) -> bytes:
    """What the server answers to `data` on `opened`, until it closes the connection."""
    reader, writer = opened
    try:
        with contextlib.suppress(ConnectionError):
            writer.write(data)
            await writer.drain()
        return await asyncio.wait_for(reader.read(), BACKSTOP)
    finally:
        writer.close()


async def close_all(served: Served, held: list[Connection]) -> None:
    """Close `held`, and wait until the server has seen each one go."""
    for _, writer in held:
        writer.close()
    held.clear()
    assert await until(lambda: served.limits.count == 0), served.limits.open


@pytest.fixture
def refusals(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    caplog.set_level(logging.WARNING, logger=connections.log.name)
    return lambda: [r.getMessage() for r in caplog.records if r.name == connections.log.name]


# --- the caps --------------------------------------------------------------------------------------------------


async def test_a_connection_over_the_cap_per_address_is_answered_503_and_closed_before_aiohttp_sees_a_byte(
        refusals: Callable[[], list[str]]) -> None:
    async with capped(Limits(per_address=2)) as served:
        held = [await connect(served, "127.0.0.3") for _ in range(2)]
        refused = await attempt(served, "127.0.0.3")
        assert refused == BUSY
        assert refused.startswith(b"HTTP/1.1 503 ") and refused.endswith(b"Too many connections at once; try again "
                                                                          b"later.")
        assert served.seen.requests == []  # its request never reached the application
        assert refusals() == ["refused a connection: 2 connections are open from its address, the limit"]
        # Another address is served meanwhile, as are the two held.
        assert (await attempt(served, "127.0.0.4")).endswith(b"ok")
        assert (await answer(held.pop())).endswith(b"ok")
        # One of the address's connections gone, the address has room for one again, and only one.
        assert await until(lambda: served.limits.open["127.0.0.3"] == 1)
        held.append(await connect(served, "127.0.0.3"))
        assert await attempt(served, "127.0.0.3") == BUSY
        await close_all(served, held)
        # Its connections closed, the address is served again, up to the cap.
        held = [await connect(served, "127.0.0.3") for _ in range(2)]
        assert await attempt(served, "127.0.0.3") == BUSY
        await close_all(served, held)
        assert len(refusals()) == 3


async def test_connections_closed_are_forgotten_and_refused_ones_were_never_counted() -> None:
    async with capped(Limits(per_address=1)) as served:
        held = [await connect(served, f"127.0.0.{n}") for n in range(10, 13)]
        assert served.limits.count == 3 and served.limits.open == {f"127.0.0.{n}": 1 for n in range(10, 13)}
        for _ in range(3):
            assert await attempt(served, "127.0.0.10") == BUSY
        assert served.limits.count == 3
        await close_all(served, held)
        assert served.limits.open == {}  # no address kept once its connections are gone


async def test_connections_from_a_trusted_proxy_count_only_against_the_total(
        refusals: Callable[[], list[str]]) -> None:
    proxies = (proxy_network("10.9.0.0/16"), proxy_network("127.0.0.9"))
    async with capped(Limits(proxies, per_address=2, total=5)) as served:
        held = [await connect(served, "127.0.0.9") for _ in range(4)]
        assert (await attempt(served, "127.0.0.9")).endswith(b"ok")  # five, more than two
        assert served.seen.requests == ["/healthz"]
        held.append(await connect(served, "127.0.0.9"))
        # Five open: the total is reached, for the proxy as for anyone.
        assert await attempt(served, "127.0.0.9") == BUSY
        assert await attempt(served, "127.0.0.5") == BUSY
        assert refusals() == ["refused a connection: the server has 5 connections open, its limit"] * 2
        await close_all(served, held)
        # An address that is not the proxy's has the cap per address.
        held = [await connect(served, "127.0.0.8") for _ in range(2)]
        assert await attempt(served, "127.0.0.8") == BUSY
        assert refusals()[-1] == "refused a connection: 2 connections are open from its address, the limit"
        await close_all(served, held)


async def test_connections_through_the_unix_socket_count_only_against_the_total() -> None:
    async with capped(Limits(per_address=2, total=6), unix=True) as served:
        held = [await connect(served, "") for _ in range(2)]
        for n in range(3):  # a client may bind its end of the socket to a path of its own: the proxy's all the same
            bound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            bound.bind(str(Path(served.sock).parent / f"client{n}"))
            bound.connect(served.sock)
            before = served.limits.count
            held.append(await asyncio.open_unix_connection(sock=bound))
            assert await until(lambda: served.limits.count > before)  # noqa: B023 - awaited here, in the loop
        assert (await attempt(served, "")).endswith(b"ok")  # six, more than two
        held.append(await connect(served, ""))
        assert await attempt(served, "") == BUSY
        assert await attempt(served, "127.0.0.6") == BUSY  # the same total as the port's
        await close_all(served, held)
        assert (await attempt(served, "")).endswith(b"ok")


async def test_the_total_cap_refuses_the_next_connection_from_anywhere(refusals: Callable[[], list[str]]) -> None:
    async with capped(Limits(per_address=10, total=3)) as served:
        held = [await connect(served, f"127.0.0.{n}") for n in (21, 22, 22)]
        for local in ("127.0.0.23", "127.0.0.21"):
            assert await attempt(served, local) == BUSY
        assert refusals() == ["refused a connection: the server has 3 connections open, its limit"] * 2
        assert served.seen.requests == []
        _, writer = held.pop()
        writer.close()
        assert await until(lambda: served.limits.count == 2)
        assert (await attempt(served, "127.0.0.23")).endswith(b"ok")
        await close_all(served, held)


def test_whose_address_is_the_proxys() -> None:
    limits = Limits((proxy_network("10.0.0.0/8"), proxy_network("fe80::/64")))
    assert limits.is_proxy("")  # the Unix socket
    assert limits.is_proxy("10.1.2.3") and limits.is_proxy("fe80::1") and limits.is_proxy("fe80::1%eth0")
    assert limits.is_proxy("fe80::1%a%b")  # its scope, whatever it holds (Linux lets an interface be named a%b)
    assert not limits.is_proxy("11.0.0.1") and not limits.is_proxy("fe81::1") and not limits.is_proxy("::1")
    assert not limits.is_proxy("not an address") and not limits.is_proxy("/run/console.sock")
    assert not Limits().is_proxy("127.0.0.1")  # no proxy trusted: nobody is one
    assert Limits().per_address == PER_ADDRESS and Limits().total == MAX_CONNECTIONS


def test_the_caps_count_per_address_and_in_all() -> None:
    limits = Limits((proxy_network("10.0.0.1"),), per_address=2, total=4)
    assert limits.admit("10.0.0.2") is None and limits.admit("10.0.0.2") is None
    assert limits.admit("10.0.0.2") == "refused a connection: 2 connections are open from its address, the limit"
    assert limits.admit("10.0.0.1") is None and limits.admit("10.0.0.1") is None
    assert limits.admit("10.0.0.3") == "refused a connection: the server has 4 connections open, its limit"
    assert limits.count == 4 and limits.open == {"10.0.0.2": 2, "10.0.0.1": 2}
    limits.release("10.0.0.2")
    assert limits.count == 3 and limits.open == {"10.0.0.2": 1, "10.0.0.1": 2}
    assert limits.admit("10.0.0.1") is None  # the proxy again, the fourth
    for address in ("10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2"):
        limits.release(address)
    assert limits.count == 0 and limits.open == {}


# --- the site ----------------------------------------------------------------------------------------------------


def backlog(listed: list[str]) -> int:
    """The backlog of the one listening socket `ss` listed (its Send-Q)."""
    [line] = subprocess.run(["ss", "-H", *listed], capture_output=True, text=True, check=True).stdout.splitlines()
    fields = line.split()
    return int(fields[fields.index("LISTEN") + 2])


async def test_the_sites_listen_on_loopback_with_a_backlog_for_a_burst_of_connections() -> None:
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    async with capped(Limits(), unix=True) as served:
        host, port = served.runner.addresses[0][:2]
        assert host == "127.0.0.1"
        assert backlog(["-ltn", f"sport = :{port}"]) == min(BACKLOG, somaxconn)
        assert backlog(["-lx", "src", served.sock]) == min(BACKLOG, somaxconn)
        # With no port given, each site listens on a free one of its own.
        await CappedSite(served.runner, Limits()).start()
        ports = [address[1] for address in served.runner.addresses if isinstance(address, tuple)]
        assert len(ports) == 2 and ports[0] != ports[1] and 0 not in ports


async def test_the_server_listens_again_on_its_port_at_once_after_closing_connections() -> None:
    """A connection the server closed first leaves its port in TIME_WAIT; a server started again on that port
    must not fail with 'address in use'."""
    async with capped(Limits(per_address=0)) as served:
        assert await attempt(served, "127.0.0.1", b"") == BUSY  # the server closes first
    listed = subprocess.run(["ss", "-Htn", "state", "time-wait", f"sport = :{served.port}"], capture_output=True,
                            text=True, check=True).stdout
    assert listed.strip(), "no connection left in TIME_WAIT"
    runner = web.AppRunner(application(App()), handle_signals=False, access_log=None, **SERVER_LIMITS)
    await runner.setup()
    try:
        await CappedSite(runner, Limits(), port=served.port).start()
        assert runner.addresses[0][1] == served.port
    finally:
        await runner.cleanup()


async def test_aiohttps_limits_hold_on_every_connection_behind_the_cap() -> None:
    assert SERVER_LIMITS["keepalive_timeout"] == HEAD_SECONDS and SERVER_LIMITS["lingering_time"] == BODY_SECONDS
    async with capped(Limits()) as served:
        assert (await attempt(served)).endswith(b"ok")
        [handler] = served.seen.handlers
        assert handler.keepalive_timeout == HEAD_SECONDS  # a head not whole within it ends the connection
        long_line = b"GET /healthz?" + b"a" * (SERVER_LIMITS["max_line_size"] + 1) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        assert (await attempt(served, "127.0.0.1", long_line)).startswith(b"HTTP/1.0 400")
        long_field = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * (SERVER_LIMITS["max_field_size"] + 1)
        long_field += b"\r\n\r\n"
        assert (await attempt(served, "127.0.0.1", long_field)).startswith(b"HTTP/1.0 400")
        assert served.seen.requests == ["/healthz"]


async def test_a_client_that_does_not_read_holds_the_answer_back_through_the_cap() -> None:
    """aiohttp's flow control: the transport tells the cap the client has stopped reading, and the cap tells
    aiohttp, whose answer then waits (rather than the server buffering all of it)."""
    async with capped(Limits()) as served:
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.setblocking(False)
        await asyncio.get_running_loop().sock_connect(client, ("127.0.0.1", served.port))
        reader, writer = await asyncio.open_connection(sock=client)
        try:
            writer.write(b"GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            seen = served.seen
            assert await until(lambda: bool(seen.ended) or (bool(seen.handlers) and seen.handlers[0].writing_paused))
            assert not seen.ended and seen.written[0] < CHUNKS, "the whole answer was buffered for a client not reading"
            # Once the client reads, the answer goes on to its end.
            got = await asyncio.wait_for(reader.read(), BACKSTOP)
            assert got.partition(b"\r\n\r\n")[2] == b"b" * (CHUNK * CHUNKS)
            assert seen.ended == ["written"]
        finally:
            writer.close()


async def test_a_client_gone_mid_body_ends_its_request_at_once() -> None:
    async with capped(Limits()) as served:
        _, writer = await connect(served)
        writer.write(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + b"u" * 10)
        await writer.drain()
        assert await until(lambda: served.seen.requests == ["/upload"])  # reading its body
        writer.close()
        assert await until(lambda: bool(served.seen.ended)), "the request still waits for a client long gone"
        assert served.seen.ended != ["read"]
        assert await until(lambda: served.limits.count == 0)


# --- the file limit --------------------------------------------------------------------------------------------


@dataclass
class FileLimit:
    """The process's limit on open files, as `resource` would report and set it."""

    soft: int
    hard: int
    refuse: type[Exception] | None = None
    set_to: list[tuple[int, int]] = field(default_factory=list)

    def getrlimit(self, which: int) -> tuple[int, int]:
        assert which == resource.RLIMIT_NOFILE
        return self.soft, self.hard

    def setrlimit(self, which: int, limits: tuple[int, int]) -> None:
        assert which == resource.RLIMIT_NOFILE
        if self.refuse is not None:
            raise self.refuse("not permitted")
        self.set_to.append(limits)
        self.soft, self.hard = limits


@pytest.fixture
def file_limit(monkeypatch: pytest.MonkeyPatch) -> Callable[..., FileLimit]:
    def given(soft: int, hard: int, refuse: type[Exception] | None = None) -> FileLimit:
        limit = FileLimit(soft, hard, refuse)
        monkeypatch.setattr(resource, "getrlimit", limit.getrlimit)
        monkeypatch.setattr(resource, "setrlimit", limit.setrlimit)
        return limit

    return given


WANTED = MAX_CONNECTIONS + FILES_KEPT
INFINITY = resource.RLIM_INFINITY


def test_connection_room_is_the_cap_when_the_process_may_open_enough_files(
        file_limit: Callable[..., FileLimit]) -> None:
    for soft, hard in ((WANTED, WANTED), (WANTED, INFINITY), (100_000, 100_000), (INFINITY, INFINITY)):
        limit = file_limit(soft, hard)
        assert connection_room() == MAX_CONNECTIONS
        assert limit.set_to == [], (soft, hard)  # a limit that is enough (or none) is left alone


def test_connection_room_raises_the_soft_file_limit_first(file_limit: Callable[..., FileLimit]) -> None:
    limit = file_limit(1024, INFINITY)
    assert connection_room() == MAX_CONNECTIONS
    assert limit.set_to == [(WANTED, INFINITY)]
    limit = file_limit(1024, 1_000_000)
    assert connection_room() == MAX_CONNECTIONS
    assert limit.set_to == [(WANTED, 1_000_000)]
    limit = file_limit(WANTED - 1, WANTED + 1)
    assert connection_room() == MAX_CONNECTIONS
    assert limit.set_to == [(WANTED, WANTED + 1)]


def test_connection_room_is_lowered_to_what_the_hard_file_limit_leaves(file_limit: Callable[..., FileLimit]) -> None:
    limit = file_limit(1024, 2048)
    assert connection_room() == 2048 - FILES_KEPT
    assert limit.set_to == [(2048, 2048)]
    limit = file_limit(1024, 1024)
    assert connection_room() == 1024 - FILES_KEPT
    limit = file_limit(100, FILES_KEPT + 1)
    assert connection_room() == 1
    limit = file_limit(100, 200)
    assert connection_room() == 1  # never none at all


def test_connection_room_is_lowered_to_the_soft_file_limit_it_may_not_raise(
        file_limit: Callable[..., FileLimit]) -> None:
    for refusal in (ValueError, OSError, PermissionError):
        file_limit(1024, INFINITY, refuse=refusal)
        assert connection_room() == 1024 - FILES_KEPT
    file_limit(300, 10_000, refuse=OSError)
    assert connection_room() == 300 - FILES_KEPT


def test_connection_room_on_this_process() -> None:
    room = connection_room()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert 1 <= room <= MAX_CONNECTIONS
    if hard == INFINITY or hard >= WANTED:
        assert room == MAX_CONNECTIONS and (soft == INFINITY or soft >= WANTED)
    else:
        assert room == max(1, hard - FILES_KEPT) and soft == hard


# --- one line per kind of trouble per minute -------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(message: str = "Error handling request from %s", *args: object, name: str = "aiohttp.server",
           failure: BaseException | None = None, level: int = logging.ERROR) -> logging.LogRecord:
    exc_info = (type(failure), failure, None) if failure is not None else None
    return logging.LogRecord(name, level, __file__, 1, message, args or ("10.0.0.1",) * message.count("%s"), exc_info)


def shown(once: OncePerMinute, made: logging.LogRecord) -> str | None:
    """The record's line if the filter lets it through, else None."""
    return made.getMessage() if once.filter(made) else None


def test_trouble_of_one_kind_is_one_line_per_minute_then_says_how_many_were_left_out() -> None:
    clock = Clock()
    once = OncePerMinute(clock=clock)
    assert shown(once, record("Error handling request from %s", "10.0.0.1")) == "Error handling request from 10.0.0.1"
    for n in range(5):
        clock.now += 10
        assert shown(once, record("Error handling request from %s", f"10.0.0.{n}")) is None  # same kind
    clock.now = 1000.0 + TROUBLE_SECONDS - 0.001
    assert shown(once, record()) is None
    clock.now = 1000.0 + TROUBLE_SECONDS  # a minute after the last line shown
    assert shown(once, record("Error handling request from %s", "10.0.0.7")) == (
        "Error handling request from 10.0.0.7 (and 6 more like it in the last minute, not shown)")
    clock.now += TROUBLE_SECONDS
    assert shown(once, record()) == "Error handling request from 10.0.0.1"  # none left out since: no note


def test_a_kind_of_trouble_is_its_logger_its_template_and_its_errors_type() -> None:
    clock = Clock()
    once = OncePerMinute(seconds=5, clock=clock)
    reset, refused = ConnectionResetError("peer reset"), ConnectionRefusedError("no")
    assert shown(once, record(failure=reset)) is not None
    assert shown(once, record(failure=ConnectionResetError("other words"))) is None
    assert shown(once, record(failure=refused)) is not None
    assert shown(once, record()) is not None  # no error
    assert shown(once, record(failure=None)) is None
    no_error = record()
    no_error.exc_info = (None, None, None)  # exc_info=True outside an exception: no error either
    assert shown(once, no_error) is None
    assert shown(once, record(name="asyncio", failure=reset)) is not None
    assert shown(once, record("Fatal read error on socket transport", failure=reset)) is not None
    clock.now += 4.5
    assert shown(once, record(failure=reset)) is None
    clock.now += 0.5
    assert shown(once, record(failure=reset)) == (
        "Error handling request from 10.0.0.1 (and 2 more like it in the last minute, not shown)")
    assert shown(once, record(failure=refused)) == "Error handling request from 10.0.0.1"


def test_lines_the_filter_passes_are_never_counted_as_trouble() -> None:
    clock = Clock()
    once = OncePerMinute(passes=lambda made: made.name == "stablepay_console.web.access", clock=clock)
    for n in range(100):
        made = record("refused GET / from=%s", f"10.0.0.{n}", name="stablepay_console.web.access",
                      level=logging.INFO)
        assert shown(once, made) == f"refused GET / from=10.0.0.{n}"
    assert shown(once, record("refused GET / from=%s")) == "refused GET / from=10.0.0.1"  # another logger's
    assert shown(once, record("refused GET / from=%s")) is None
    assert shown(OncePerMinute(clock=clock), record()) is not None  # by default, no line passes of itself
    by_default = OncePerMinute(clock=clock)
    by_default.filter(record())
    assert by_default.filter(record(name="stablepay_console.web.access"))
    assert not by_default.filter(record(name="stablepay_console.web.access"))


def test_the_kinds_remembered_are_forgotten_past_a_thousand() -> None:
    clock = Clock()
    once = OncePerMinute(clock=clock)
    for n in range(1001):
        assert shown(once, record(f"trouble {n} from %s")) is not None
    assert shown(once, record("trouble 0 from %s")) is None  # 1,001 kinds remembered: still within its minute
    assert shown(once, record("trouble 1001 from %s")) is not None  # the next new one: the rest forgotten
    assert shown(once, record("trouble 0 from %s")) == "trouble 0 from 10.0.0.1 (and 1 more like it in the last " \
                                                       "minute, not shown)"
    assert shown(once, record("trouble 1001 from %s")) is None


def test_the_minute_is_the_default() -> None:
    once = OncePerMinute()
    assert once.seconds == TROUBLE_SECONDS == 60.0
    assert shown(once, record()) is not None
    assert shown(once, record()) is None
