"""The evidence pack in a real browser (Debian's chromium driven by Playwright): `e` in a request's detail
gives the browser one zip of the pack's folder, and nothing of it stays on the server's disk. The Team screen
works there as in a terminal: the report, the levels in force and the shell command that changes them."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.storage.record_types import AuditEntry
from stablepay_console.wiring import Services
from tests.web_harness import headless_chromium, open_console, wait_until, web_server

pytestmark = pytest.mark.browser

FILES = ("rfi.json", "rounds.json", "notes.json", "audit.json", "README.md")
STAGED = Path("/dev/shm")


@pytest.fixture
def chromium() -> Iterator[object]:
    with headless_chromium() as browser:
        yield browser


def evidence_entries(rfi_id: str) -> list[AuditEntry]:
    """The audit entries the console appended for the pack (the record in the test's own config folder)."""
    services = Services()
    try:
        entries = services.record.call(lambda record: record.audit(target=rfi_id, profile=EMBEDDED_PROFILE.name))
    finally:
        services.record.close()
    return [e for e in entries if e.action == "evidence.write"]


def server_leftovers(where: Path) -> list[Path]:
    """Anything of an evidence pack in the server's working folder (and its data folder) or its staging place."""
    found = [p for p in where.rglob("*") if p.name.startswith(("evidence-", ".evidence-")) or p.suffix == ".zip"]
    return found + list(STAGED.glob("stablepay-export-*/*evidence-*"))


def test_e_in_the_detail_downloads_the_pack_as_one_zip_and_leaves_nothing_on_the_server(  # type: ignore[no-untyped-def]
    isolated_config: Path, chromium, tmp_path_factory: pytest.TempPathFactory
) -> None:
    server_folder = isolated_config.parent  # where the web server (and so each console) runs
    with web_server(isolated_config) as server:
        browser = open_console(chromium, server.signin_line)
        assert browser.wait_for(lambda t: " issued " in t and "refreshing" not in t), browser.terminal.text
        downloads: list = []  # type: ignore[type-arg]
        browser.page.on("download", lambda d: downloads.append(d))  # Chromium reports it on the opener
        browser.press("Enter")  # the first request's detail
        assert browser.wait_for(lambda t: "Claim and notes" in t, 30), browser.terminal.text
        browser.press("e")
        assert browser.wait_for(lambda t: bool(downloads), 60), browser.terminal.text
        assert browser.wait_for(lambda t: "Your browser downloads it as" in t, 20), browser.terminal.text
        [download] = downloads
        name = download.suggested_filename
        found = re.fullmatch(r"evidence-([0-9a-f-]{36})-(\d{8}T\d{6}Z)\.zip", name)
        assert found, name
        rfi_id = found.group(1)
        saved = tmp_path_factory.mktemp("browser") / name  # the analyst's own disk, not the server's
        download.save_as(saved)

        with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as packed:
            top = name.removesuffix(".zip")
            assert sorted(packed.namelist()) == sorted(f"{top}/{file}" for file in FILES)
            request = json.loads(packed.read(f"{top}/rfi.json"))
            assert request["request"]["id"] == rfi_id and request["profile"] == EMBEDDED_PROFILE.name
            assert f"# Evidence: request for information {rfi_id}" in packed.read(f"{top}/README.md").decode()

        assert server_leftovers(server_folder) == [], "the pack stayed on the server"
        assert wait_until(lambda: evidence_entries(rfi_id), 20), "the download was not audited"
        [entry] = evidence_entries(rfi_id)
        assert (entry.outcome, entry.details.get("download")) == ("delivered", name)
        assert "folder" not in entry.details, "no server folder is named"
        browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15), "the console outlived its tab"


def test_the_team_screen_in_the_browser_shows_the_report_and_the_levels(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.cli.main import main

    assert main(["record", "policy", "--claim-within", "4h"]) == 0  # the local record's levels, set: they apply
    with web_server(isolated_config) as server:
        browser = open_console(chromium, server.signin_line)
        assert browser.wait_for(lambda t: " issued " in t and "refreshing" not in t), browser.terminal.text
        browser.press("7")
        assert browser.wait_for(lambda t: "Requests per week" in t and "breached: approve" in t, 30), \
            browser.terminal.text
        text = " ".join(browser.terminal.text.split())  # the line wraps at the page's width
        assert "Service levels: claim within 4h, ready within 24h of issue, approve 12h before expiry" in text, text
        assert "a lead changes them: stablepay-console record policy" in text, text
        assert "set by " in text, text
        assert "Approved" in text and "Analyst" in text, text
        browser.press("s")  # the keys work there too: the last 90 days
        assert browser.wait_for(lambda t: "Last 90 days" in t, 30), browser.terminal.text
        browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15), "the console outlived its tab"
