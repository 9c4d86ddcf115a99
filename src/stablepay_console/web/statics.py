"""The page's static files (textual-serve's terminal script and its style sheet): compressed once, and cached by
the browser.

The script is 514 kB; gzipped, 124 kB. The page names each file with a version (`?v=` and the first hex digits
of its SHA-256), and a versioned request is cached by the browser for a year (`immutable`): a second visit reads
the script from its cache, an upgrade of textual-serve changes the name. Anything else is revalidated by its
ETag. Only files under the static folder are served, and only to a signed-in request (the guard is in front).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

COMPRESSED = frozenset({".js", ".css", ".svg", ".json", ".ttf"})
CACHED_FOR = "private, max-age=31536000, immutable"
REVALIDATED = "private, no-cache"


@dataclass(frozen=True)
class StaticFile:
    data: bytes
    gzipped: bytes | None
    content_type: str
    version: str

    @property
    def etag(self) -> str:
        return f'"{self.version}"'


class Statics:
    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder).resolve()
        self._files: dict[str, StaticFile] = {}

    def find(self, name: str) -> StaticFile | None:
        """The file `name` (`js/textual.js`) under the folder, read and compressed once; None if there is none."""
        if name in self._files:
            return self._files[name]
        path = (self.folder / name).resolve()
        if not path.is_relative_to(self.folder) or not path.is_file():
            return None
        data = path.read_bytes()
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        gzipped = gzip.compress(data, 9, mtime=0) if path.suffix in COMPRESSED else None
        found = StaticFile(data, gzipped, kind, hashlib.sha256(data).hexdigest()[:16])
        self._files[name] = found
        return found

    def url(self, base: str, name: str) -> str:
        """`base` + `name` with its version, for the page."""
        found = self.find(name)
        return f"{base}{name}?v={found.version}" if found is not None else f"{base}{name}"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        # A file not read yet is read and compressed off the event loop (the page's own two are, at start).
        found = self._files.get(name) or await asyncio.to_thread(self.find, name)
        if found is None:
            raise web.HTTPNotFound()
        headers = {
            "ETag": found.etag, "Vary": "Accept-Encoding", "X-Content-Type-Options": "nosniff",
            "Cache-Control": CACHED_FOR if request.query.get("v") == found.version else REVALIDATED,
        }
        if found.etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        body = found.data
        if found.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", "").lower():
            body, headers["Content-Encoding"] = found.gzipped, "gzip"
        return web.Response(body=body, content_type=found.content_type, headers=headers)
