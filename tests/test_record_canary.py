"""The canary key, used for every recorded call, is found nowhere in the record's files or in an evidence pack."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import httpx

from stablepay_console.api import ApiKey
from stablepay_console.profiles.model import Profile
from stablepay_console.sandbox import Sandbox
from stablepay_console.storage.local import record_file
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW
from tests.test_audit_chain import cli

TEAM = Profile("team", "sandbox", "https://api.sandbox.stablepay.test")
NEEDLES = (CANARY_KEY.encode(), CANARY_KEY[-12:].encode(), CANARY_KEY.encode("utf-16-le"))


def leaks(blob: bytes) -> bool:
    squeezed = re.sub(rb"[^0-9A-Za-z_]", b"", blob)
    return any(n in blob for n in NEEDLES) or CANARY_KEY[-12:].encode() in squeezed


async def test_the_record_and_an_evidence_pack_never_hold_the_key(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.add_key(CANARY_KEY, "canary")
    services = Services(sandbox=sandbox, clock=lambda: FIXED_NOW,
                        transport_for=lambda p: httpx.ASGITransport(app=sandbox.app))
    services.book.add(TEAM, ApiKey(CANARY_KEY))

    outcome = await services.switch(TEAM)
    assert outcome.ok and outcome.ping == "✓ pong", "the canary works"
    services.audit.switched(outcome, None)
    assert outcome.client is not None
    async with outcome.client as client:
        page = await client.list_rfis(limit=100)
        await client.ping()
    rfi_id = page.data[0].id
    services.notes.add(TEAM, rfi_id, "checked with the key on file").result(10)
    services.notes.claim(TEAM, rfi_id).result(10)

    rotation = services.book.rotation(TEAM, services.client_with, clock=lambda: FIXED_NOW)
    rotation.on_step = services.audit.rotation_hook(TEAM)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(CANARY_KEY[::-1]))  # a different key: the canary is the old one, kept aside
    services.record.flush()

    out = tmp_path / "out"
    out.mkdir()
    assert cli("rfis", "evidence", rfi_id, "--profile", "team", "--output", str(out / "pack")) == 0
    services.record.close()

    history = services.record.call(lambda record: record.history("team", rfi_id))
    assert history.seen and history.rounds, "the requests were recorded"
    swept = [p for p in record_file().parent.glob("record.sqlite3*")] + list((out / "pack").iterdir())
    assert {p.name for p in swept} >= {"record.sqlite3", "rfi.json", "audit.json", "README.md"}
    for path in swept:
        assert not leaks(path.read_bytes()), f"the canary leaked into {path}"
    with sqlite3.connect(record_file()) as conn:
        dump = "\n".join(conn.iterdump())
    assert "key.rotation" in dump and "profile.switch" in dump and rfi_id in dump
    assert not leaks(dump.encode())
