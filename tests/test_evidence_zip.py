"""The evidence pack as one zip (a browser's download): the same five files as the folder, under one top folder,
and the folder it was zipped from gone afterwards, whatever happened."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from stablepay_console import __version__
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.export import evidence
from stablepay_console.services.export.evidence_zip import zip_folder, zip_stem
from stablepay_console.storage.record_types import Note, RfiHistory
from stablepay_console.tui.runtime import deliveries
from stablepay_console.tui.runtime.evidence_download import build_zip
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, until
from tests.small_disk import SmallDisk
from tests.test_evidence import FILES, two_rounds
from tests.test_record_history import Clock, issued


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def services(sandbox: Sandbox, clock: Clock) -> Services:
    return Services(sandbox=sandbox, clock=clock)


@pytest.fixture
def staging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the browser's packs are staged (in place of /dev/shm, so the test sees only its own)."""
    folder = tmp_path / "memory"
    folder.mkdir()
    monkeypatch.setattr(deliveries, "MEMORY", folder)
    return folder


def gathered(services: Services, rfi_id: str) -> evidence.Gathered:
    return services.record.call(lambda record: evidence.gather(record, EMBEDDED_PROFILE.name, rfi_id))


def test_the_name_is_the_request_and_the_utc_moment() -> None:
    paris = timezone(timedelta(hours=1))
    assert zip_stem("abc", datetime(2026, 11, 20, 10, 30, 5, tzinfo=paris)) == "evidence-abc-20261120T093005Z"


@pytest.fixture
def machine_in_tokyo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's own zone is nine hours east of UTC (a POSIX TZ: no zone database needed)."""
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_name_and_the_dates_inside_are_utc_whatever_the_machines_zone(machine_in_tokyo: None,
                                                                          tmp_path: Path) -> None:
    assert datetime(2026, 11, 20, 9, 30).astimezone().utcoffset() == timedelta(hours=9)
    assert zip_stem("abc", FIXED_NOW) == "evidence-abc-20261120T093000Z"
    (tmp_path / "a.md").write_bytes(b"a\n")
    with zipfile.ZipFile(io.BytesIO(zip_folder(tmp_path, "top", FIXED_NOW))) as packed:
        assert packed.getinfo("top/a.md").date_time == (2026, 11, 20, 9, 30, 0)


async def test_the_zip_holds_the_folders_files_byte_for_byte_under_one_top_folder(
    services: Services, sandbox: Sandbox, clock: Clock, tmp_path: Path, staging: Path
) -> None:
    rfi_id = await two_rounds(services, sandbox, clock)
    found = gathered(services, rfi_id)
    folder = evidence.write_pack(found, tmp_path / "pack", FIXED_NOW, "alice", __version__).path  # a terminal's
    top = zip_stem(rfi_id, FIXED_NOW)

    data = build_zip(found, top, FIXED_NOW, "alice")

    with zipfile.ZipFile(io.BytesIO(data)) as packed:
        assert packed.testzip() is None
        names = packed.namelist()
        assert sorted(names) == sorted(f"{top}/{name}" for name in FILES)
        for name in FILES:
            assert packed.read(f"{top}/{name}") == (folder / name).read_bytes(), name
        assert b"# Evidence: request for information" in packed.read(f"{top}/README.md")
        assert all(info.date_time == (2026, 11, 20, 9, 30, 0) for info in packed.infolist())
    assert list(staging.iterdir()) == [], "the staged folder is gone once the zip is made"


def test_zip_folder_takes_every_file_of_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "b.json").write_bytes(b'{"b": 1}\n')
    (folder / "a.md").write_bytes("caf\u00e9\n".encode())
    with zipfile.ZipFile(io.BytesIO(zip_folder(folder, "top", FIXED_NOW))) as packed:
        assert packed.namelist() == ["top/a.md", "top/b.json"]
        assert packed.read("top/a.md") == "caf\u00e9\n".encode()
        assert (packed.getinfo("top/a.md").external_attr >> 16) & 0o777 == 0o644


def test_a_full_staging_disk_gives_no_pack_and_leaves_nothing(small_disk: SmallDisk,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deliveries, "MEMORY", small_disk.path)
    small_disk.fill()
    note = Note(1, "embedded", "x", "alice", FIXED_NOW, "a long note " * 400)
    found = evidence.Gathered(RfiHistory("embedded", "x", None), [note], None, [])
    with pytest.raises(evidence.EvidenceError, match="the disk is full"):
        build_zip(found, zip_stem("x", FIXED_NOW), FIXED_NOW, "alice")
    assert small_disk.files() == [], "no staged folder, no half pack"


async def test_in_a_browser_a_server_with_nowhere_to_stage_says_so_and_keeps_running(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, small_disk: SmallDisk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from stablepay_console.storage import variables
    from tests.test_record_tui import open_detail

    monkeypatch.setenv(variables.WEB_USER, "alice")  # the console a browser's sign-in started
    monkeypatch.setattr(deliveries, "MEMORY", tmp_path / "no-shm")  # no /dev/shm: the temporary folder instead,
    small_disk.read_only()  # which cannot be written either
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk.path))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    _, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_detail(pilot, rfi)
        await pilot.press("e")
        await until(pilot, lambda: any(n.title == "No evidence pack" for n in app.said),
                    "the console never said there was no pack")
        said = next(n.message for n in app.said if n.title == "No evidence pack")
        assert "could not be staged on the server" in said and "Read-only file system" in said, said
        assert app.is_running and app.screen.rfi.id == rfi.id  # type: ignore[attr-defined]
    assert list(work.iterdir()) == [] and small_disk.files() == []
