"""The local record's sightings (`storage/local/sightings.py`) on a bare SQLite connection: an unchanged page costs
one lookup and one touch a chunk of IDs, a page that repeats a request keeps its last sighting, and a kept ID that
holds the lookup's separators is still found."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from stablepay_console.storage.local import sightings as sightings_module
from stablepay_console.storage.local.schema import migrate
from stablepay_console.storage.local.sightings import observe_page
from stablepay_console.storage.record_types import RfiSighting, stamp
from tests.conftest import FIXED_NOW

FIRST, LATER = stamp(FIXED_NOW), stamp(FIXED_NOW + timedelta(hours=1))


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    made = sqlite3.connect(tmp_path / "record.sqlite3", isolation_level=None)
    migrate(made)
    yield made
    made.close()


def traced(conn: sqlite3.Connection) -> list[str]:
    """The statements the connection runs from now on, each as its first word."""
    ran: list[str] = []
    conn.set_trace_callback(lambda sql: ran.append(sql.split()[0].upper()))
    return ran


def sightings(ids: list[str], fingerprint: str = "f", status: str = "issued") -> list[RfiSighting]:
    return [RfiSighting(rfi_id, status, f"{fingerprint}-{rfi_id}", "{}", None) for rfi_id in ids]


def test_an_unchanged_page_is_looked_up_and_touched_in_one_statement_a_chunk_of_ids(
        conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sightings_module, "LOOKUP", 4)  # chunks of 4 IDs, not 500: the same rule on a small page
    page = sightings([f"rfi-{n}" for n in range(2 * 4 + 3)])
    assert observe_page(conn, "p", "sandbox", page, FIRST) == len(page)
    ran = traced(conn)
    assert observe_page(conn, "p", "sandbox", page, LATER) == 0
    assert ran == ["SELECT"] * 3 + ["UPDATE"] * 3, "three chunks: one lookup and one touch each"
    assert conn.execute("SELECT count(*) FROM rfis WHERE last_seen = ?", (LATER,)).fetchone()[0] == len(page)


def test_a_page_that_repeats_a_request_keeps_its_last_sighting(conn: sqlite3.Connection) -> None:
    (issued,) = sightings(["rfi-1"], "f0")
    (submitted,) = sightings(["rfi-1"], "f1", "submitted")
    assert observe_page(conn, "p", "sandbox", [issued], FIRST) == 1
    assert observe_page(conn, "p", "sandbox", [submitted, issued], LATER) == 2
    assert conn.execute("SELECT status, fingerprint FROM rfis").fetchall() == [("issued", issued.fingerprint)]
    assert [s for (s,) in conn.execute("SELECT status FROM statuses ORDER BY id")] == ["issued", "submitted", "issued"]


def test_a_kept_id_that_holds_the_lookups_separator_is_still_found_unchanged(conn: sqlite3.Connection) -> None:
    """A record not written by this console may hold any ID: the page's known requests are then read row by row
    (one more lookup), and both are still found unchanged."""
    page = sightings(["odd\x1fid", "plain"])
    assert observe_page(conn, "p", "sandbox", page, FIRST) == 2
    ran = traced(conn)
    assert observe_page(conn, "p", "sandbox", page, LATER) == 0
    assert ran == ["SELECT", "SELECT", "UPDATE"]
    assert conn.execute("SELECT count(*) FROM rfis WHERE last_seen = ?", (LATER,)).fetchone()[0] == 2
