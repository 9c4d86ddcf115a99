"""Reading a response body with a cap on its decoded size, while it streams.

httpx would inflate a whole received chunk at once (one 64 KB chunk of a gzip bomb
is 64 MB), so the client asks for `gzip, deflate` only and inflates here, never
producing more than the cap plus one byte.
"""

from __future__ import annotations

import zlib
from typing import Protocol

import httpx

DEFAULT_MAX_BODY = 16 * 1024 * 1024
"""16 MiB of decoded body (see docs/security.md for why)."""

ACCEPT_ENCODING = "gzip, deflate"


class BodyTooLarge(Exception):
    """The decoded body passed the cap; `declared` is the length the answer said it had, if it said one. The
    client writes its own message from the two (Exception keeps the arguments it was raised with as its args)."""

    def __init__(self, cap: int, declared: int | None = None) -> None:
        self.cap = cap
        self.declared = declared


class UnreadableEncoding(Exception):
    """A content encoding this client did not ask for, or a corrupt compressed stream."""


class _Inflater(Protocol):
    def feed(self, data: bytes, room: int) -> tuple[bytes, bytes]:
        """At most `room` bytes of output, and the input not consumed yet."""
        ...


class _Identity:
    def feed(self, data: bytes, room: int) -> tuple[bytes, bytes]:
        return data[:room], data[room:]


class _Zlib:
    """gzip, or deflate (zlib-wrapped as the RFC says, or raw as some servers send it)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        wbits = zlib.MAX_WBITS | 16 if encoding == "gzip" else zlib.MAX_WBITS
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def feed(self, data: bytes, room: int) -> tuple[bytes, bytes]:
        if self._inflate.eof:
            return b"", b""  # trailing bytes after the end of the stream are ignored
        try:
            out = self._inflate.decompress(data, room)
        except zlib.error:
            if self.encoding == "deflate" and not self._started:
                self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                self._started = True
                return self.feed(data, room)
            raise UnreadableEncoding(f"the {self.encoding} stream is corrupt") from None
        self._started = True
        return out, self._inflate.unconsumed_tail

    def finish(self) -> None:
        if self._started and not self._inflate.eof:
            raise UnreadableEncoding(f"the {self.encoding} stream is cut short")


def _inflater(content_encoding: str) -> _Inflater:
    encodings = [e.strip().lower() for e in content_encoding.split(",") if e.strip()]
    encodings = [e for e in encodings if e != "identity"]
    if not encodings:
        return _Identity()
    if len(encodings) == 1 and encodings[0] in ("gzip", "x-gzip", "deflate"):
        return _Zlib("deflate" if encodings[0] == "deflate" else "gzip")
    raise UnreadableEncoding(f"the body is encoded as {content_encoding[:40]!r}, which this client did not ask for")


def _declared_length(response: httpx.Response) -> int | None:
    try:
        value = int(response.headers.get("content-length", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


async def read_capped(response: httpx.Response, cap: int) -> bytes:
    """The decoded body of a streamed response, or BodyTooLarge as soon as it passes `cap` bytes."""
    try:
        # A transport that built its response from bytes (a test double) hands it over already read.
        content = response.content
    except httpx.ResponseNotRead:
        pass
    else:
        if len(content) > cap:
            raise BodyTooLarge(cap)
        return content
    inflater = _inflater(response.headers.get("content-encoding", ""))
    declared = _declared_length(response)
    if declared is not None and declared > cap:
        # Compressed or not, a body declared larger than the cap is refused before it is read.
        raise BodyTooLarge(cap, declared=declared)
    out = bytearray()
    async for raw in response.aiter_raw():
        data = raw
        while data:
            piece, rest = inflater.feed(data, cap - len(out) + 1)
            out += piece
            if len(out) > cap:
                raise BodyTooLarge(cap, declared)
            if rest and not piece:
                raise UnreadableEncoding("the compressed stream makes no progress")
            data = rest
    if isinstance(inflater, _Zlib):
        inflater.finish()
    return bytes(out)


def settled(response: httpx.Response, body: bytes) -> httpx.Response:
    """A plain response holding the decoded body (what the decoding and the errors keep)."""
    skip = {"content-encoding", "content-length", "transfer-encoding"}
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in skip]
    return httpx.Response(response.status_code, headers=headers, content=body, request=response.request)
