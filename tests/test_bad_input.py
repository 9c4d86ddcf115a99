"""The bad-input catalogue: every input field of every screen, and every command-line argument.

Each bad value gets a clear message where the value was typed, no request leaves, nothing crashes, and no control
character or escape sequence (the user's or the server's) reaches the terminal raw. A paste holding control
characters is refused as a whole (a text field would draw it raw); the same value set in the field by any other
means is still refused by the field's own check.
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Static

from stablepay_console import cli
from stablepay_console.profiles.store import ProfileStore
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import BATCH_SMALL_ID, METRIC_DAILY_VOLUME_ID, METRIC_EMPTY_ID
from stablepay_console.storage.bookmarks import BookmarkStore
from stablepay_console.tui.formatters.text import has_control
from tests.conftest import wait_for_workers
from tests.screen_output import assert_nothing_raw

SIZE = (120, 40)
ESCAPES = "\x1b[31mred\x1b[0m\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\x1b[2J\x1b[H"
RAW = ("\x1b", "\x07", "\x00", "\u202e")
"""Characters that must never be drawn as they are."""

TEXT = {
    "empty": "",
    "whitespace": "   \t   ",
    "long": "7" * 10_000,
    "control": "ab\x00\x07\x08cd",
    "escape": ESCAPES,
    "rtl_override": "\u202egnp.exe",
    "rtl_emoji": "مرحبا עולם 💸🚀",
}
UUID_TYPOS = {
    "uuid_typo": BATCH_SMALL_ID[:-1] + "g",
    "uuid_short": BATCH_SMALL_ID[:-1],
    "uuid_inner_space": BATCH_SMALL_ID[:8] + " " + BATCH_SMALL_ID[9:],
}
NUMBERS = {"zero": "0", "over": "101", "negative": "-1", "decimal": "2.5"}

ID_VALUES = {**TEXT, **UUID_TYPOS}
LIMIT_VALUES = {**TEXT, **NUMBERS}
FREE_TEXT = {k: v for k, v in TEXT.items() if k not in ("empty", "whitespace", "rtl_emoji")}
"""For names and paths: blank is their default, and right-to-left or emoji text is a fine name."""


def no_raw(text: str) -> bool:
    return not any(ch in text for ch in RAW)


def rendered(app: App[Any], selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def notices(app: App[Any]) -> list[str]:
    return [str(n.message) for n in app.said]


async def each_value(values: dict[str, str], check: Callable[[str], Awaitable[None]]) -> None:
    """Check each bad value in turn, in the same console (one console a field: starting one costs far more
    than a value); a failure names the value."""
    for name, value in values.items():
        try:
            await check(value)
        except AssertionError as error:
            raise AssertionError(f"the {name!r} value: {error}") from error


async def enter(pilot: Pilot[Any], selector: str, value: str, message_at: str) -> str:
    """Type (paste) `value` into the field and press Enter; the inline message, after checking the screen.

    The message line and the notifications are emptied first, so what they say was said of this value. A
    paste with control characters must be refused; the value is then put in the field directly (as a
    hand-edited file or another route could) to check the field's own refusal.
    """
    app = pilot.app
    app.screen.query_one(message_at, Static).update("")
    app.clear_notifications()
    field = app.screen.query_one(selector, Input)
    field.cursor_blink = False
    field.focus()
    field.value = ""
    app.post_message(events.Paste(value))
    await pilot.pause()
    if has_control(value, allow="\t\r\n"):
        assert field.value == "", "a paste with control characters reached the field"
        assert any("Nothing was pasted" in n for n in notices(app)), notices(app)
        assert_nothing_raw(app, "the refused paste")
        field.value = value
    elif value:
        assert field.value == value.splitlines()[0].replace("\t", "    ") or field.value.strip() == value.strip()
    await pilot.press("enter")
    await wait_for_workers(pilot)
    message = rendered(app, message_at)
    assert no_raw(message), f"raw control characters in {message!r}"
    if has_control(value):
        field.value = ""  # only now: the message must have been read while the value was there
        await pilot.pause()
    assert_nothing_raw(app, "after Enter")
    return message


def in_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in a folder of its own (the config folder is elsewhere), to see that no file appears."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def unchanged(sandbox: Sandbox, before: list[tuple[str, str]]) -> None:
    assert sandbox.api_calls() == before, f"a request was sent: {sandbox.api_calls()[len(before):]}"


# --- the inbox ------------------------------------------------------------------------------------------------------


async def test_inbox_user_id(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)

        async def check(value: str) -> None:
            before = sandbox.api_calls()
            message = await enter(pilot, "#filter-user", value, "#filter-error")
            if value.strip():
                assert "user ID" in message
                unchanged(sandbox, before)
            else:
                assert message == ""  # a blank user ID means "any user": the filter is cleared
            assert "user any" in rendered(app, "#inbox-active")

        await each_value(ID_VALUES, check)


async def test_inbox_page_size(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)

        async def check(value: str) -> None:
            before = sandbox.api_calls()
            message = await enter(pilot, "#filter-limit", value, "#filter-error")
            assert "page size" in message
            unchanged(sandbox, before)
            assert "20 per page" in rendered(app, "#inbox-status")

        await each_value(LIMIT_VALUES, check)


async def refuses_export_paths(pilot: Pilot[Any], sandbox: Sandbox, work: Path) -> None:
    """Each bad path in the open export dialog: refused there, the dialog still open, no request, no file."""

    async def check(value: str) -> None:
        before = sandbox.api_calls()
        message = await enter(pilot, "#export-path", value, "#export-error")
        assert any(words in message for words in ("control characters", "characters long", "cannot be used"))
        assert pilot.app.screen.__class__.__name__ == "ExportDialog", "the dialog stays open with the message"
        unchanged(sandbox, before)
        assert list(work.iterdir()) == [], "a file was written"

    await each_value(FREE_TEXT, check)


async def test_inbox_export_path(make_app, sandbox: Sandbox, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    work = in_empty_folder(tmp_path, monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("e")
        await pilot.pause()

        await refuses_export_paths(pilot, sandbox, work)


# --- batch lookup, quote refresh, metrics ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "selector", "message_at", "what"),
    [
        ("batch", "#id-input", "#id-error", "transfer ID"),
        ("quote", "#id-input", "#id-error", "onramp ID"),
        ("metrics", "#metric-id", "#metric-entry #id-error", "metric ID"),
    ],
    ids=["batch", "quote", "metrics"],
)
async def test_id_fields(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, mode: str, selector: str, message_at: str, what: str
) -> None:
    app = make_app(opens_on=mode)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await app.switch_mode(mode)
        await wait_for_workers(pilot)

        async def check(value: str) -> None:
            before = sandbox.api_calls()
            message = await enter(pilot, selector, value, message_at)
            assert what in message
            unchanged(sandbox, before)

        await each_value(ID_VALUES, check)


async def open_metric_prompt(pilot: Pilot[Any], key: str) -> None:
    app = pilot.app
    await app.switch_mode("metrics")
    await wait_for_workers(pilot)
    field = app.screen.query_one("#metric-id", Input)
    field.value = METRIC_EMPTY_ID if key == "b" else METRIC_DAILY_VOLUME_ID
    field.focus()
    await pilot.press("enter")
    await wait_for_workers(pilot)
    app.screen.query_one("#metric-chart" if key == "e" else "#metric-bookmarks").focus()
    await pilot.press(key)
    await pilot.pause()
    assert app.screen.__class__.__name__ == ("ExportDialog" if key == "e" else "MetricPrompt")


BOOKMARK_VALUES = {**FREE_TEXT, "empty": "", "whitespace": "   \t   "}


async def test_bookmark_name(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await open_metric_prompt(pilot, "b")

        async def check(value: str) -> None:
            before = sandbox.api_calls()
            message = await enter(pilot, "#prompt-input", value, "#prompt-error")
            assert any(words in message for words in ("needs a name", "control characters", "under 60"))
            assert app.screen.__class__.__name__ == "MetricPrompt"
            unchanged(sandbox, before)

        await each_value(BOOKMARK_VALUES, check)
        profile = app.profile
    assert all(b.id != METRIC_EMPTY_ID for b in BookmarkStore(profile.name).items)


async def test_metric_export_path(make_app, sandbox: Sandbox, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    work = in_empty_folder(tmp_path, monkeypatch)
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await open_metric_prompt(pilot, "e")

        await refuses_export_paths(pilot, sandbox, work)


# --- profiles and the rotation wizard -------------------------------------------------------------------------------


async def open_form(pilot: Pilot[Any]) -> None:
    await wait_for_workers(pilot)
    await pilot.app.switch_mode("profiles")
    await wait_for_workers(pilot)
    await pilot.press("a")
    await pilot.pause()
    form = pilot.app.screen
    form.query_one("#form-name", Input).value = "team"
    form.query_one("#form-base-url", Input).value = "https://api.sandbox.stablepay.test"
    form.query_one("#form-key", Input).value = "sk_sandbox_a_good_looking_key_000000000001"


PROFILE_FIELDS = {
    "#form-name": ({**TEXT}, ("profile name",)),
    "#form-base-url": ({**TEXT, "plain_http": "http://api.example.com", "not_a_url": "api example"}, ("Base URL",)),
    "#form-key": ({k: v for k, v in TEXT.items() if k not in ("empty", "whitespace")}, ("API key",)),
}


@pytest.mark.parametrize("field", list(PROFILE_FIELDS), ids=[field[6:] for field in PROFILE_FIELDS])
async def test_profile_form(make_app, sandbox: Sandbox, memory_keyring, field: str) -> None:  # type: ignore[no-untyped-def]
    values, says = PROFILE_FIELDS[field]
    app = make_app(opens_on="profiles")
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)

        async def check(value: str) -> None:
            before = sandbox.api_calls()
            message = await enter(pilot, field, value, "#form-error")
            assert any(words in message for words in says), message
            assert len(message) < 600, "the message stays short enough to read"
            assert app.screen.__class__.__name__ == "ProfileForm"
            unchanged(sandbox, before)
            assert ProfileStore().profiles() == []
            assert memory_keyring.entries == {}

        await each_value(values, check)


KEY_PASTES = {**TEXT, "inner_space": "sk_sandbox_ab cd"}


async def test_rotation_key_paste(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    from tests.test_profiles_screen import add_team_profile, build_app, start_wizard

    add_team_profile()
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=SIZE) as pilot:
        await start_wizard(pilot, "team")
        await pilot.click("#generated")
        await wait_for_workers(pilot)  # type: ignore[arg-type]

        async def check(value: str) -> None:
            before = sandbox.api_calls()
            message = await enter(pilot, "#new-key", value, "#rotation-error")
            assert "API key" in message
            assert app.screen.rotation.step.name == "PASTE"  # type: ignore[attr-defined]
            unchanged(sandbox, before)

        await each_value(KEY_PASTES, check)


# --- the command line -----------------------------------------------------------------------------------------------

LONG = "7" * 10_000
CLI_CASES = {
    "sandbox-rfis-negative": ["--sandbox-rfis", "-1"],
    "sandbox-rfis-text": ["--sandbox-rfis", "many"],
    "sandbox-rfis-long": ["--sandbox-rfis", "x" * 10_000],
    "sandbox-seed-escape": ["--sandbox-seed", ESCAPES],
    "unknown-option-escape": ["--colour", ESCAPES],
    "unknown-command": [ESCAPES],
    "serve-port-zero": ["sandbox", "serve", "--port", "0"],
    "serve-port-over": ["sandbox", "serve", "--port", "65536"],
    "serve-port-empty": ["sandbox", "serve", "--port", ""],
    "serve-host-remote": ["sandbox", "serve", "--host", "0.0.0.0"],
    "serve-host-escape": ["sandbox", "serve", "--host", ESCAPES],
    "serve-host-empty": ["sandbox", "serve", "--host", "   "],
    "serve-seed-negative": ["sandbox", "serve", "--seed", "-1"],
    "serve-rfis-long": ["sandbox", "serve", "--rfis", LONG],
    "serve-latency-negative": ["sandbox", "serve", "--latency", "-1"],
    "serve-latency-huge": ["sandbox", "serve", "--latency", "1e9"],
    "serve-error-rate-over": ["sandbox", "serve", "--error-rate", "101"],
    "serve-rate-limit-nan": ["sandbox", "serve", "--rate-limit-rate", "nan"],
    "serve-malformed-rtl": ["sandbox", "serve", "--malformed-rate", "\u202e0.5"],
    "profile-add-empty-name": ["profile", "add", "", "--environment", "sandbox", "--base-url", "https://a.test"],
    "profile-add-long-name": ["profile", "add", LONG, "--environment", "sandbox", "--base-url", "https://a.test"],
    "profile-add-escape-name": ["profile", "add", ESCAPES, "--environment", "sandbox", "--base-url", "https://a.test"],
    "profile-add-emoji-name": ["profile", "add", "💸🚀", "--environment", "sandbox", "--base-url", "https://a.test"],
    "profile-add-bad-env": ["profile", "add", "team", "--environment", ESCAPES, "--base-url", "https://a.test"],
    "profile-add-http-url": ["profile", "add", "team", "--environment", "sandbox", "--base-url", "http://a.test"],
    "profile-add-escape-url": ["profile", "add", "team", "--environment", "sandbox", "--base-url", ESCAPES],
    "profile-add-long-url": ["profile", "add", "team", "--environment", "sandbox", "--base-url", "https://" + LONG],
    "profile-add-blank-url": ["profile", "add", "team", "--environment", "sandbox", "--base-url", "   "],
    "profile-remove-escape": ["profile", "remove", ESCAPES],
    "profile-remove-whitespace": ["profile", "remove", "   "],
    "profile-use-long": ["profile", "use", LONG],
    "profile-use-rtl": ["profile", "use", "\u202eabc"],
    "export-user-typo": ["export", "--user-id", UUID_TYPOS["uuid_typo"]],
    "export-user-escape": ["export", "--user-id", ESCAPES],
    "export-status-escape": ["export", "--status", ESCAPES],
    "export-kind-empty": ["export", "--kind", ""],
    "export-format-emoji": ["export", "--format", "💸"],
    "export-output-escape": ["export", "--output", ESCAPES + ".csv"],
    "export-output-long": ["export", "--output", LONG],
    "export-output-missing-folder": ["export", "--output", "no/such/folder/out.csv"],
    "export-profile-unknown": ["export", "--profile", "nosuch"],
    "list-limit-zero": ["rfis", "list", "--limit", "0"],
    "list-limit-over": ["rfis", "list", "--limit", "101"],
    "list-limit-text": ["rfis", "list", "--limit", ESCAPES],
    "list-offset-negative": ["rfis", "list", "--offset", "-1"],
    "list-status-escape": ["rfis", "list", "--status", ESCAPES],
    "list-user-typo": ["rfis", "list", "--user-id", UUID_TYPOS["uuid_inner_space"]],
    "list-all-with-page": ["rfis", "list", "--all", "--offset", "20"],
    "list-json-and-csv": ["rfis", "list", "--json", "--csv"],
    "list-profile-unknown": ["rfis", "list", "--profile", "nosuch"],
    "list-profile-escape": ["rfis", "list", "--profile", ESCAPES],
    "list-profile-long": ["rfis", "list", "--profile", LONG],
    "due-within-word": ["rfis", "due", "--within", "soon"],
    "due-within-empty": ["rfis", "due", "--within", ""],
    "due-within-escape": ["rfis", "due", "--within", ESCAPES],
    "due-within-long": ["rfis", "due", "--within", LONG],
    "due-within-years": ["rfis", "due", "--within", "9999d"],
    "due-csv": ["rfis", "due", "--csv"],
    "watch-too-often": ["rfis", "watch", "--interval", "10s"],
    "watch-zero": ["rfis", "watch", "--interval", "0m", "--once"],
    "watch-interval-rtl": ["rfis", "watch", "--interval", "\u202e5m"],
    "batch-typo": ["batch", "get", UUID_TYPOS["uuid_typo"]],
    "batch-escape": ["batch", "get", ESCAPES],
    "batch-missing": ["batch", "get"],
    "batch-long": ["batch", "get", LONG],
    "quote-short": ["quote", "refresh", UUID_TYPOS["uuid_short"]],
    "quote-production-no-yes": ["quote", "refresh", "2b7d9e40-8c1a-4f6e-b2d5-00000000a001",
                                "--profile", "embedded-production"],
    "metrics-rtl": ["metrics", "run", "\u202e" + METRIC_EMPTY_ID],
    "ping-extra": ["ping", "now"],
    "status-profile-unknown": ["profile", "status", "--profile", ESCAPES],
}


@pytest.mark.parametrize("argv", list(CLI_CASES.values()), ids=list(CLI_CASES))
def test_cli_arguments(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    work = in_empty_folder(tmp_path, monkeypatch)
    monkeypatch.setattr("sys.stdin", io.StringIO("sk_sandbox_a_good_looking_key_000000000001\n"))
    served: list[object] = []

    def ran(*args: object, **kwargs: object) -> int:
        served.append((args, kwargs))
        return 0

    monkeypatch.setattr("stablepay_console.sandbox.serve.serve", ran)
    # `main()` looks the console up in `stablepay_console.cli.console` when it starts it: patch it there.
    monkeypatch.setattr(importlib.import_module("stablepay_console.cli.console"), "run_console", ran)

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a request was about to be sent")

    monkeypatch.setattr("stablepay_console.services.export.requests.export_rfis", no_network)
    monkeypatch.setattr("stablepay_console.api.client.StablePayClient._exchange", no_network)  # every request
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2, (code, out[-300:], err[-300:])
    assert served == [], "the command ran with a bad argument"
    assert "Traceback" not in err
    assert no_raw(out) and no_raw(err), f"raw control characters reached the terminal: {err[-300:]!r}"
    message = err.strip().splitlines()[-1]
    assert message.startswith(("stablepay-console", "usage:")) or "error:" in message, message
    assert len(message) < 1000, "the message names the problem without echoing 10,000 characters"
    assert list(work.iterdir()) == [], "a file was written"
