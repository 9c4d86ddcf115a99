"""A request-counting HTTP proxy on loopback, in its own process: what the console costs a provider.

    python counting_proxy.py UPSTREAM_PORT        # prints "Proxy port: N", then forwards 127.0.0.1:N -> UPSTREAM_PORT

Every HTTP/1.1 request is forwarded byte for byte to the upstream (a `sandbox serve`) and counted by
its path and query. The proxy answers two paths itself, never forwarded: `GET /_count` (the counts as
JSON: total, and per path with its `status` filter) and `POST /_count/reset`. `ProxyCounter` runs it as
a child process for a benchmark and reads the counts.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlsplit

import httpx

counts: Counter[str] = Counter()


def label(target: str) -> str:
    """`GET /v2/rfis?status=issued&offset=300` -> `/v2/rfis status=issued`; the offset and limit are not kept."""
    parts = urlsplit(target)
    query = dict(parse_qsl(parts.query))
    kept = " ".join(f"{k}={query[k]}" for k in ("status", "kind") if k in query)
    if "userId" in query:
        kept += " userId=…"
    return f"{parts.path} {kept}".strip()


async def read_head(reader: asyncio.StreamReader) -> bytes:
    return await reader.readuntil(b"\r\n\r\n")


def content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip() or 0)
    return 0


async def answer_self(writer: asyncio.StreamWriter, method: str, path: str) -> None:
    if method == "POST" and path == "/_count/reset":
        counts.clear()
    body = json.dumps({"total": sum(counts.values()), "by": dict(counts)}).encode()
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                 + str(len(body)).encode() + b"\r\n\r\n" + body)
    await writer.drain()


async def pipe_response(upstream: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One response from upstream to the client (content-length bodies; `sandbox serve` sends those)."""
    head = await read_head(upstream)
    writer.write(head)
    length = content_length(head)
    while length > 0:
        chunk = await upstream.read(min(length, 1 << 16))
        if not chunk:
            raise ConnectionError("upstream closed mid-body")
        writer.write(chunk)
        length -= len(chunk)
    await writer.drain()


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, upstream_port: int) -> None:
    up_reader: asyncio.StreamReader | None = None
    up_writer: asyncio.StreamWriter | None = None
    try:
        while True:
            try:
                head = await read_head(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            method, target, _ = [*head.split(b"\r\n", 1)[0].decode("latin-1").split(" "), "", ""][:3]
            body = await reader.readexactly(content_length(head))
            path = urlsplit(target).path
            if path.startswith("/_count"):
                await answer_self(writer, method, path)
                continue
            counts[label(target)] += 1
            if up_writer is None:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
            assert up_reader is not None
            up_writer.write(head + body)
            await up_writer.drain()
            await pipe_response(up_reader, writer)
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        if up_writer is not None:
            up_writer.close()
        writer.close()


async def main(upstream_port: int) -> None:
    server = await asyncio.start_server(lambda r, w: handle(r, w, upstream_port), "127.0.0.1", 0, limit=1 << 20)
    print(f"Proxy port: {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


class ProxyCounter:
    """The proxy's base URL and its counts, from the benchmark's side."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def counts(self) -> dict[str, int]:
        body = httpx.get(self.base_url + "/_count").json()
        return {"total": body["total"], **body["by"]}

    def total(self) -> int:
        return int(httpx.get(self.base_url + "/_count").json()["total"])

    def reset(self) -> None:
        httpx.post(self.base_url + "/_count/reset")


@contextmanager
def counting_proxy(upstream: str) -> Iterator[ProxyCounter]:
    """A counting proxy in front of `upstream` (http://127.0.0.1:PORT), in a child process."""
    port = urlsplit(upstream).port
    proc = subprocess.Popen([sys.executable, __file__, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("Proxy port: "):
            raise RuntimeError(f"the counting proxy did not start ({proc.wait()})")
        yield ProxyCounter(f"http://127.0.0.1:{int(line.removeprefix('Proxy port: '))}")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    try:
        asyncio.run(main(int(sys.argv[1])))
    except KeyboardInterrupt:
        pass
