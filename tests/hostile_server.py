"""A hostile HTTP server on loopback, for the tests: every case of tests/hostile_cases.py over real HTTP.

    with HostileServer() as server:
        async with StablePayClient(server.url("gzip-bomb"), "key") as client: ...

The base URL of a case is `http://127.0.0.1:PORT/case/<name>`, so the client's own paths
(`/v2/rfis`, `/ping`, ...) work unchanged. The server is bounded: it listens on 127.0.0.1
only, on a free port, stops itself after `lifetime` seconds, serves at most
`max_requests` requests, and every loop (reading a request, streaming a body, trickling)
is bounded in count and in time. Tests use the `hostile_server` fixture, or
`mock_transport(case)` to get the same answers in-process through httpx.MockTransport.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx
import pytest

from tests.hostile_cases import CASES, endpoint_of, reply
from tests.hostile_payloads import Reply

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 409: "Conflict",
           500: "Internal Server Error"}


def split_case(path: str) -> tuple[str, str]:
    """`/case/gzip-bomb/v2/rfis` -> ("gzip-bomb", "/v2/rfis"); anything else is the "normal" case."""
    parts = path.split("/", 3)
    if len(parts) >= 3 and parts[1] == "case":
        return parts[2], "/" + (parts[3] if len(parts) > 3 else "")
    return "normal", path


class HostileServer:
    """The hostile cases over HTTP/1.1 on 127.0.0.1, in a thread with its own event loop."""

    def __init__(self, trickle: float = 2.0, lifetime: float = 300.0, max_requests: int = 5000) -> None:
        self.trickle = trickle
        self.lifetime = lifetime
        self.max_requests = max_requests
        self.port = 0
        self.requests: list[tuple[str, str]] = []
        """(method, path with query) of every request, in arrival order."""
        self.calls: Counter[tuple[str, str]] = Counter()
        self.bytes_sent: Counter[str] = Counter()
        """Body bytes written per case (how far a client read before it gave up)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hostile-server", daemon=True)

    def url(self, case: str = "normal") -> str:
        if case not in CASES:
            raise KeyError(f"no hostile case {case!r}; known: {', '.join(CASES)}")
        return f"http://127.0.0.1:{self.port}/case/{case}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        if not self._ready.wait(10) or not self.port:
            raise RuntimeError("the hostile server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0, limit=1 << 16)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            try:
                await asyncio.wait_for(self._stop.wait(), self.lifetime)
            except TimeoutError:
                pass
            server.close()
        # Handlers still streaming or trickling see `_stop` set and end within one pause.
        self._stop.set()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve_one(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        finally:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), 2)
            except (ConnectionError, TimeoutError):
                pass

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = [*lines[0].split(" "), "", ""][:3]
        headers = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
        length = int({k.strip().lower(): v for k, v in headers.items()}.get("content-length", "0") or 0)
        if 0 < length <= 1 << 16:
            await asyncio.wait_for(reader.readexactly(length), 10)
        if len(self.requests) >= self.max_requests:
            return
        self.requests.append((method, target))
        parts = urlsplit(target)
        case, path = split_case(unquote(parts.path))
        endpoint = endpoint_of(path)
        call = self.calls[(case, endpoint or path)]
        self.calls[(case, endpoint or path)] += 1
        answer = reply(case, endpoint, dict(parse_qsl(parts.query)), call, self.trickle)
        await self._write(writer, answer, case)

    async def _write(self, writer: asyncio.StreamWriter, answer: Reply, case: str) -> None:
        assert self._stop is not None
        length = answer.length if answer.chunks is not None else len(answer.body)
        head = [f"HTTP/1.1 {answer.status} {REASONS.get(answer.status, 'Status')}"]
        head += [f"{k}: {v}" for k, v in answer.headers.items()]
        head += [f"content-length: {length}", "connection: close", "", ""]
        writer.write("\r\n".join(head).encode("latin-1"))
        chunks: Iterator[bytes] = answer.chunks() if answer.chunks is not None else iter([answer.body])
        for chunk in chunks:  # every generator is bounded by its own size
            if self._stop.is_set():
                return
            writer.write(chunk)
            await asyncio.wait_for(writer.drain(), 30)
            self.bytes_sent[case] += len(chunk)
            if answer.pause:
                try:
                    await asyncio.wait_for(self._stop.wait(), answer.pause)
                    return
                except TimeoutError:
                    pass


@pytest.fixture(name="hostile_server")
def hostile_server_fixture() -> Iterator[HostileServer]:
    """A hostile server for one test (trickle: one byte every 2 s)."""
    with HostileServer() as server:
        yield server


# --- in-process -----------------------------------------------------------------------


class _Stream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """The body of a Reply, produced lazily, for a sync or an async client."""

    def __init__(self, answer: Reply) -> None:
        self.answer = answer

    def __iter__(self) -> Iterator[bytes]:
        chunks = self.answer.chunks() if self.answer.chunks is not None else iter([self.answer.body])
        for chunk in chunks:
            yield chunk
            if self.answer.pause:
                time.sleep(self.answer.pause)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self.answer.chunks() if self.answer.chunks is not None else iter([self.answer.body])
        for chunk in chunks:
            yield chunk
            if self.answer.pause:
                await asyncio.sleep(self.answer.pause)


def mock_transport(case: str, trickle: float = 2.0) -> httpx.MockTransport:
    """The same answers as the server, in-process (base URL: any loopback URL, e.g. http://127.0.0.1)."""
    if case not in CASES:
        raise KeyError(f"no hostile case {case!r}")
    calls: Counter[str] = Counter()

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        endpoint = endpoint_of(split_case(path)[1])
        call = calls[endpoint or path]
        calls[endpoint or path] += 1
        answer = reply(case, endpoint, dict(request.url.params), call, trickle)
        # Always a stream: given `content=`, httpx.Response would inflate a gzip body at once.
        length = answer.length if answer.chunks is not None else len(answer.body)
        headers = {**answer.headers, "content-length": str(length)}
        return httpx.Response(answer.status, headers=headers, stream=_Stream(answer))

    return httpx.MockTransport(handler)
