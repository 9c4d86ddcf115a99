"""The page's static files (web/statics.py), served by a real aiohttp server in the test process: only files under
the static folder; compressed for a browser that takes gzip; a versioned request cached for a year, anything else
revalidated by its ETag; never sniffed as another type."""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from stablepay_console.web.statics import Statics

SCRIPT = b"console.log('terminal');\n" * 200


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    (static / "js" / "textual.js").write_bytes(SCRIPT)
    (static / "notes.txt").write_bytes(b"plain notes\n")
    (static / "blob").write_bytes(b"\x00\x01")
    (tmp_path / "secret.txt").write_bytes(b"outside the static folder\n")
    return static


@pytest.fixture
async def client(folder: Path) -> AsyncIterator[TestClient]:  # type: ignore[type-arg]
    statics = Statics(folder)
    app = web.Application()
    app.router.add_get("/static/{name:.+}", statics.handle)
    async with TestClient(TestServer(app)) as client:
        yield client


def version_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


async def test_a_versioned_script_is_gzipped_and_cached_for_a_year(client: TestClient) -> None:  # type: ignore[type-arg]
    v = version_of(SCRIPT)
    answer = await client.get(f"/static/js/textual.js?v={v}", headers={"Accept-Encoding": "GZIP, br"},
                              auto_decompress=False)
    assert answer.status == 200
    body = await answer.read()
    assert body == gzip.compress(SCRIPT, 9, mtime=0) and gzip.decompress(body) == SCRIPT
    assert answer.headers["Content-Encoding"] == "gzip"
    assert answer.headers["Cache-Control"] == "private, max-age=31536000, immutable"
    assert answer.headers["ETag"] == f'"{v}"'
    assert answer.headers["Vary"] == "Accept-Encoding"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Content-Type"].startswith(("text/javascript", "application/javascript"))


async def test_without_its_version_a_file_is_revalidated_and_sent_plain_to_who_takes_no_gzip(
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    answer = await client.get("/static/js/textual.js?v=0000", headers={"Accept-Encoding": "identity"},
                              auto_decompress=False)
    assert answer.status == 200 and await answer.read() == SCRIPT
    assert "Content-Encoding" not in answer.headers
    assert answer.headers["Cache-Control"] == "private, no-cache"
    answer = await client.get("/static/notes.txt", headers={"Accept-Encoding": "gzip"}, auto_decompress=False)
    assert await answer.read() == b"plain notes\n" and "Content-Encoding" not in answer.headers  # not compressed
    assert answer.headers["Content-Type"].startswith("text/plain")
    answer = await client.get("/static/blob")
    assert answer.headers["Content-Type"] == "application/octet-stream"
    answer = await client.get("/static/js/textual.js", skip_auto_headers=["Accept-Encoding"], auto_decompress=False)
    assert answer.status == 200 and await answer.read() == SCRIPT, "no Accept-Encoding at all: the plain file"


async def test_a_file_the_browser_has_is_not_sent_again(client: TestClient) -> None:  # type: ignore[type-arg]
    etag = f'"{version_of(SCRIPT)}"'
    answer = await client.get("/static/js/textual.js", headers={"If-None-Match": f'"other", {etag}'})
    assert answer.status == 304 and await answer.read() == b""
    assert answer.headers["ETag"] == etag
    answer = await client.get("/static/js/textual.js", headers={"If-None-Match": '"other"'})
    assert answer.status == 200


async def test_only_files_under_the_static_folder_are_served(client: TestClient) -> None:  # type: ignore[type-arg]
    for name in ("../secret.txt", "js/../../secret.txt", "js", "missing.js", "%2e%2e/secret.txt"):
        answer = await client.get(f"/static/{name}")
        assert answer.status == 404, name
        assert b"outside" not in await answer.read()


def test_the_pages_url_names_the_files_version(folder: Path) -> None:
    statics = Statics(folder)
    assert statics.url("/static/", "js/textual.js") == f"/static/js/textual.js?v={version_of(SCRIPT)}"
    assert statics.url("/static/", "missing.js") == "/static/missing.js"
    first = statics.find("js/textual.js")
    (folder / "js" / "textual.js").write_bytes(b"changed")
    assert statics.find("js/textual.js") is first, "read once"
    assert statics.find("../secret.txt") is None and statics.find("js") is None
