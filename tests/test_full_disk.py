"""A full or read-only disk: one line that says what was not written and where, no partial file, no
traceback, exit 1 from the shell, and a console that keeps running.

Each test writes onto a real small file system (tests/small_disk.py: a tmpfs the test mounts).
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from stablepay_console.storage import writing
from stablepay_console.storage.prefs import Prefs
from stablepay_console.storage.writing import (
    NotWritten,
    NotWrittenBoard,
    not_written,
    part_file,
    reason,
    write_atomically,
)
from tests.cli_e2e import console
from tests.small_disk import SmallDisk
from tests.terminal import Terminal, console_command

RFI_ID = "616499c9-e25a-4605-aec6-f0245bd86d40"
"""The newest request of the embedded sandbox (seed 7)."""


def run(config: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STABLEPAY_CONFIG_DIR": str(config), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    return subprocess.run([*console(), *args], env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=cwd)


def said(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines on standard error that name a write the disk refused."""
    assert "Traceback" not in result.stderr, result.stderr
    return [line for line in result.stderr.splitlines() if "Could not write" in line]


# --- exports and files ------------------------------------------------------------------------------------------


def test_an_export_onto_a_disk_that_fills_midway_says_so_and_leaves_nothing(
    small_disk: SmallDisk, tmp_path: Path
) -> None:
    small_disk.fill()
    small_disk.free()
    (small_disk.path / "ballast").write_bytes(b"\0" * 200 * 1024)  # room for the start of the export only
    target = small_disk.path / "expired.csv"
    result = run(tmp_path / "config", "export", "--output", str(target))
    assert result.returncode == 1, result.stderr
    assert said(result) == [
        f"stablepay-console: export failed, nothing was written. Could not write the export to {target}: "
        "the disk is full."
    ]
    assert small_disk.files() == ["ballast"]  # no expired.csv, no expired.csv.part


def test_an_export_into_a_read_only_folder_says_so(small_disk: SmallDisk, tmp_path: Path) -> None:
    small_disk.read_only()
    target = small_disk.path / "expired.csv"
    result = run(tmp_path / "config", "export", "--output", str(target))
    assert result.returncode == 1, result.stderr
    assert said(result) == [
        f"stablepay-console: export failed, nothing was written. Could not write the export to {target}: "
        "the file system is read-only."
    ]
    assert small_disk.files() == []


def test_an_evidence_pack_onto_a_full_disk_leaves_no_folder(small_disk: SmallDisk, tmp_path: Path) -> None:
    config = tmp_path / "config"
    assert run(config, "rfis", "list", "--limit", "5").returncode == 0
    assert run(config, "rfis", "note", RFI_ID, "checked the invoice").returncode == 0
    small_disk.fill()
    target = small_disk.path / "pack"
    result = run(config, "rfis", "evidence", RFI_ID, "--output", str(target))
    assert result.returncode == 1, result.stderr
    assert said(result) == [f"stablepay-console: Could not write the evidence pack to {target}: the disk is full."]
    assert small_disk.files() == []


def test_part_file_and_atomic_writes_leave_nothing_behind_on_a_full_disk(small_disk: SmallDisk) -> None:
    small_disk.fill()
    with pytest.raises(NotWritten, match=r"Could not write the metric's CSV to .*/m.csv: the disk is full\."):
        with part_file(small_disk.path / "m.csv", "the metric's CSV") as out:
            out.write("x" * 100_000)
    with pytest.raises(NotWritten, match=r"Could not write the state to .*/state.json: the disk is full\."):
        write_atomically(small_disk.path / "state.json", "y" * 100_000, "the state")
    assert small_disk.files() == []


# --- state and preferences ------------------------------------------------------------------------------------


def test_preferences_that_cannot_be_saved_keep_the_old_file_whole(
    small_disk: SmallDisk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", str(small_disk.path / "config"))
    prefs = Prefs("prod")
    prefs.set("author", "Ana")
    small_disk.fill()
    with pytest.raises(NotWritten, match=r"Could not write the preferences to .*prefs-prod.*: the disk is full\."):
        prefs.set("recent", ["x" * 50_000])
    assert json.loads(prefs.path.read_text()) == {"author": "Ana"}
    assert [name for name in small_disk.files() if name.endswith(".tmp")] == []


def test_the_watch_state_on_a_full_disk_is_one_line_and_exit_1(small_disk: SmallDisk) -> None:
    config = small_disk.path / "config"
    assert run(config, "rfis", "list", "--limit", "1").returncode == 0
    small_disk.fill()
    result = run(config, "rfis", "watch", "--once")
    assert result.returncode == 1, result.stderr
    lines = said(result)
    assert any(re.search(r"Could not write the watch's state to .*/watch-embedded.*: the disk is full\.", line)
               for line in lines), result.stderr
    assert not [name for name in small_disk.files() if name.endswith(".tmp")]


def test_a_profile_on_a_read_only_disk_is_refused_with_exit_1(small_disk: SmallDisk) -> None:
    config = small_disk.path / "config"
    config.mkdir()
    small_disk.read_only()
    result = run(config, "profile", "add", "prod", "--environment", "sandbox", "--base-url", "https://example.com",
                 "--no-key")
    assert result.returncode == 1, result.stderr
    assert said(result)[0] == (
        f"stablepay-console: Could not write the profiles file to {config / 'profiles.toml'}: "
        "the file system is read-only."
    )


def test_a_log_on_a_read_only_disk_is_said_once_and_the_command_still_answers(small_disk: SmallDisk) -> None:
    config = small_disk.path / "config"
    assert run(config, "rfis", "list", "--limit", "1").returncode == 0
    small_disk.read_only()
    result = run(config, "rfis", "list", "--limit", "3", "--json")
    assert len(json.loads(result.stdout)["data"]) == 3  # the answer is there
    assert result.returncode == 1
    log_lines = [line for line in said(result) if "the log" in line]
    assert log_lines == [
        f"stablepay-console: Could not write the log to {config / 'logs' / 'console.log'}: "
        "the file system is read-only."
    ]


# --- the record -----------------------------------------------------------------------------------------------


def test_the_record_on_a_full_disk_says_what_was_not_recorded_once_and_is_never_set_aside(
    small_disk: SmallDisk,
) -> None:
    config = small_disk.path / "config"
    assert run(config, "rfis", "list", "--limit", "1").returncode == 0
    small_disk.fill()

    note = run(config, "rfis", "note", RFI_ID, "asked the customer for a utility bill")
    assert note.returncode == 1
    record = config / "data" / "record.sqlite3"
    assert said(note) == [f"stablepay-console: Could not write to the record {record}: the disk is full."]

    listed = run(config, "rfis", "list", "--limit", "100")  # 100 requests seen: one line, not one per row
    assert listed.returncode == 1
    assert listed.stdout.count("\n") >= 100
    assert said(listed) == [
        f"stablepay-console: Could not write to the record {record}: the disk is full. "
        "Not recorded: the requests received."
    ]
    assert not [name for name in small_disk.files() if "unreadable" in name], small_disk.files()

    small_disk.free()  # space again: the same record takes the note
    kept = run(config, "rfis", "note", RFI_ID, "asked the customer for a utility bill")
    assert kept.returncode == 0, kept.stderr


def test_the_console_keeps_running_on_a_full_disk_and_says_so_once(
    small_disk: SmallDisk, term_env: dict[str, str]
) -> None:
    config = small_disk.path / "config"
    term = Terminal([console_command()], {**term_env, "STABLEPAY_CONFIG_DIR": str(config)}, width=100, height=30)
    try:
        term.wait_for(re.compile(r"Page 1 of \d+"))
        small_disk.fill()
        term.send("n")
        term.wait_for(re.compile(r"Page 2 of \d+"))
        screen = term.wait_for("Not saved", "the disk is full")
        assert "Traceback" not in screen
        term.send("n")  # still running, still paging
        term.wait_for(re.compile(r"Page 3 of \d+"))
        assert term.alive()
    finally:
        term.close()


# --- the writing helpers themselves, on the ordinary disk ---------------------------------------------------------


def test_a_write_that_failed_is_one_line_naming_what_where_and_why() -> None:
    full = NotWritten("the export", Path("/x/rfis.csv"), OSError(errno.ENOSPC, "No space left on device"))
    assert str(full) == "Could not write the export to /x/rfis.csv: the disk is full."
    assert isinstance(full, OSError) and (full.errno, full.strerror) == (errno.ENOSPC, str(full))
    assert (full.what, full.where) == ("the export", "/x/rfis.csv")
    assert not_written("the log", "/y", full) is full  # already said: not wrapped again
    denied = not_written("the log", "/l/console.log", PermissionError(errno.EACCES, "Permission denied"))
    assert str(denied) == "Could not write the log to /l/console.log: permission denied."
    assert reason(OSError(errno.EIO, "Input/output error")) == "input/output error"
    assert reason(OSError()) == "oserror"


def test_atomic_and_part_files_keep_their_names_and_modes(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    write_atomically(state, "{}", "the state")
    assert state.read_text() == "{}" and state.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
    target = tmp_path / "m.csv"
    with part_file(target, "the metric's CSV") as out:
        out.write("a,b\n")
        assert (tmp_path / "m.csv.part").exists() and not target.exists()
    assert target.read_text() == "a,b\n" and not (tmp_path / "m.csv.part").exists()
    (tmp_path / "n.csv.part").write_text("another writer's", encoding="utf-8")
    with pytest.raises(FileExistsError), part_file(tmp_path / "n.csv") as out:
        out.write("mine")
    assert (tmp_path / "n.csv.part").read_text() == "another writer's" and not (tmp_path / "n.csv").exists()
    with pytest.raises(NotWritten, match=r"^Could not write the export to .*gone\.csv: no such file or directory\.$"):
        with part_file(tmp_path / "gone.csv", "the export") as out:
            out.write("x")
            (tmp_path / "gone.csv.part").unlink()  # someone removed the part file while it was written


@pytest.mark.parametrize("final_step", ["renameat2", "hard link"])
def test_the_final_step_never_replaces_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, final_step: str) -> None:
    loaded = writing._load_renameat2()
    if sys.platform.startswith("linux"):
        assert loaded is not None, "renameat2 was not found in the C library"
    monkeypatch.setattr(writing, "_renameat2", loaded if final_step == "renameat2" else None)
    (tmp_path / "new").write_text("new", encoding="utf-8")
    writing.rename_no_replace(tmp_path / "new", tmp_path / "kept")
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and (tmp_path / "kept").read_text() == "new"
    (tmp_path / "newer").write_text("newer", encoding="utf-8")
    with pytest.raises(FileExistsError):
        writing.rename_no_replace(tmp_path / "newer", tmp_path / "kept")
    assert (tmp_path / "kept").read_text() == "new" and (tmp_path / "newer").exists()
    with pytest.raises(FileNotFoundError) as missing:
        writing.rename_no_replace(tmp_path / "no-such", tmp_path / "other")
    assert missing.value.strerror == "No such file or directory"
    if final_step == "renameat2":  # (a failed link names its source instead)
        assert missing.value.filename == str(tmp_path / "other")


def test_the_board_tells_each_line_once_and_keeps_the_untold_for_a_listener() -> None:
    board = NotWrittenBoard()
    board.post("a")
    board.post("a")
    board.post("b")
    heard: list[str] = []
    board.listen(heard.append)
    assert heard == ["a", "b"] and board.lines == ["a", "b"]
    board.post("c")
    board.post("a")
    assert heard == ["a", "b", "c"]
    board.listen(None)
    board.post("d")
    later: list[str] = []
    board.listen(later.append)
    assert heard == ["a", "b", "c"] and later == ["d"] and board.lines == ["a", "b", "c", "d"]
    board.reset()
    board.post("a")
    assert board.lines == ["a"] and later == ["d"]  # forgotten, listener included
    board.listen(None)  # nobody listening yet: the untold line waits for whoever comes
    last: list[str] = []
    board.listen(last.append)
    assert last == ["a"]
