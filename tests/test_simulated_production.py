"""The built-in simulated production keeps its key, key date and rotation across restarts (data folder).

Each `Services()` below is a new start of the console: a new in-process simulator, the same data folder.
"""

from __future__ import annotations

from pathlib import Path

from stablepay_console.api import ApiKey, Unauthorized
from stablepay_console.profiles.age import add_months
from stablepay_console.profiles.keys import entry_name
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE as PROD
from stablepay_console.profiles.rotation import Step
from stablepay_console.profiles.simulated import STATE_NAME
from stablepay_console.sandbox import Sandbox
from stablepay_console.storage import locations
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW, no_canary_in


def start() -> Services:
    """The console starting again, at the fixed instant."""
    return Services(sandbox=Sandbox(now=FIXED_NOW), clock=lambda: FIXED_NOW)


async def pings(services: Services, key: ApiKey) -> bool:
    client = services.client_with(PROD, key)
    try:
        await client.ping()
    except Unauthorized:
        return False
    finally:
        await client.aclose()
    return True


def state_file() -> Path:
    return locations.state_file(STATE_NAME)


async def test_first_key_is_kept_and_about_to_be_due_so_a_rotation_can_be_rehearsed() -> None:
    first = start()
    key = first.key(PROD)
    assert first.book.age(PROD).level == "due"
    since = first.book.key_since(PROD)
    assert since is not None and since < add_months(FIXED_NOW, -11)

    again = start()
    assert again.key(PROD) == key
    assert again.book.key_since(PROD) == first.book.key_since(PROD)
    assert await pings(again, key), "a new simulator accepts the kept key"
    assert oct(state_file().stat().st_mode & 0o777) == "0o600"


async def test_a_rotation_stopped_half_way_resumes_after_a_restart_and_finishes() -> None:
    first = start()
    old = first.key(PROD)
    rotation = first.book.rotation(PROD, first.client_with)
    rotation.start()
    dashboard = first.dashboard(PROD)
    assert dashboard is not None
    new = await dashboard.create_key("rehearsal")
    rotation.confirm_generated()
    rotation.paste(new)
    del rotation, first  # quit with the pasted key waiting

    second = start()
    resumed = second.book.rotation(PROD, second.client_with)
    assert resumed.start() is Step.VERIFY_NEW, "the pasted key was kept across the quit"
    assert second.book.embedded_vault.get(entry_name(PROD.name, "pending")) == new
    assert await resumed.verify_new()
    resumed.switch()
    assert second.key(PROD) == new and second.book.key_since(PROD) == FIXED_NOW
    del resumed, second  # quit again, before deleting the old key

    third = start()
    assert third.book.rotation_step(PROD) == Step.DELETE_OLD
    assert await pings(third, old), "the old key still works until it is deleted"
    dashboard = third.dashboard(PROD)
    assert dashboard is not None
    await dashboard.delete_key(old)
    rotation = third.book.rotation(PROD, third.client_with)
    assert rotation.start() is Step.DELETE_OLD
    rotation.confirm_deleted()
    assert await rotation.verify_old()
    rotation.close()

    fourth = start()
    assert fourth.key(PROD) == new
    assert fourth.book.rotation_step(PROD) is None
    assert fourth.book.age(PROD).level == "ok"
    assert not await pings(fourth, old), "a deleted key stays deleted after a restart"
    assert await pings(fourth, new)


async def test_a_key_the_simulator_did_not_make_is_never_written_to_the_data_folder() -> None:
    services = start()
    rotation = services.book.rotation(PROD, services.client_with)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(CANARY_KEY))  # a real key pasted into the rehearsal by mistake
    assert no_canary_in(state_file().read_text(encoding="utf-8"))
    assert not await rotation.verify_new()
    assert rotation.step is Step.PASTE
    for path in locations.data_dir().rglob("*"):
        if path.is_file():
            assert no_canary_in(path.read_text(encoding="utf-8", errors="replace")), path


def test_a_broken_state_file_starts_afresh() -> None:
    state_file().parent.mkdir(parents=True, exist_ok=True)
    state_file().write_text('{"console": {"keys": {"current": "has a space"}, "rotation": [1]}', encoding="utf-8")
    services = start()
    assert services.key(PROD).reveal().startswith("sk_production_")
    assert services.book.rotation_step(PROD) is None
