"""Keys in a real Secret Service (gnome-keyring on a private D-Bus session), not a mock.

Run with `scripts/with-secret-service.sh pytest -m secret_service`. Under CI (CI=true) a missing
Secret Service fails these tests; elsewhere they are skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import httpx
import keyring
import pytest
from keyring.backend import KeyringBackend

from stablepay_console.api import ApiKey
from stablepay_console.api.dashboard import SandboxDashboard
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import KeyStore, entry_name
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation import Step
from stablepay_console.sandbox import Sandbox
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW

pytestmark = pytest.mark.secret_service

BASE_URL = "https://api.sandbox.stablepay.test"


def _secret_service() -> KeyringBackend | None:
    try:
        from keyring.backends.SecretService import Keyring as SecretServiceKeyring

        backend = SecretServiceKeyring()
        SecretServiceKeyring.priority  # noqa: B018 - raises when no Secret Service answers on the bus
        backend.get_password("stablepay-console-probe", "probe")
    except Exception as exc:  # any failure means "not reachable"
        reason = f"no Secret Service reachable ({type(exc).__name__}: {exc})"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must run these under scripts/with-secret-service.sh")
        pytest.skip(f"{reason}; run under scripts/with-secret-service.sh")
    return backend


@pytest.fixture
def secret_service() -> Iterator[KeyStore]:
    backend = _secret_service()
    assert backend is not None
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    store = KeyStore(service=f"stablepay-console-test-{uuid.uuid4().hex[:8]}")
    yield store
    for name in ("team", "team:pending", "team:previous", "plain"):
        store.delete(name)
    keyring.set_keyring(previous)


def test_store_read_delete_in_the_real_secret_service(secret_service: KeyStore) -> None:
    assert type(secret_service.backend).__module__ == "keyring.backends.SecretService"
    assert secret_service.problem is None
    secret_service.set("plain", ApiKey(CANARY_KEY))
    assert secret_service.get("plain") == ApiKey(CANARY_KEY)
    assert keyring.get_password(secret_service.service, "plain") == CANARY_KEY, "really stored there"
    assert secret_service.delete("plain") is True
    assert secret_service.get("plain") is None
    assert secret_service.delete("plain") is False


async def test_rotation_with_keys_in_the_real_secret_service(secret_service: KeyStore) -> None:
    sandbox = Sandbox(now=FIXED_NOW)
    dashboard = SandboxDashboard(BASE_URL, transport=httpx.ASGITransport(app=sandbox.app))
    book = ProfileBook(keys=secret_service, clock=lambda: FIXED_NOW)
    connector = Services(
        sandbox=sandbox, book=book, transport_for=lambda p: httpx.ASGITransport(app=sandbox.app)
    )
    profile = Profile("team", "sandbox", BASE_URL)
    old = await dashboard.create_key("old")
    book.add(profile, old)
    assert book.key_for(profile) == old

    rotation = book.rotation(profile, connector.client_with)
    rotation.start()
    rotation.confirm_generated()
    new = await dashboard.create_key("new")
    rotation.paste(new)
    assert secret_service.get(entry_name("team", "pending")) == new
    assert await rotation.verify_new()
    rotation.switch()
    assert secret_service.get("team") == new
    assert secret_service.get(entry_name("team", "previous")) == old
    await dashboard.delete_key(old)
    rotation.confirm_deleted()
    assert await rotation.verify_old()
    assert rotation.step is Step.DONE
    assert secret_service.get(entry_name("team", "previous")) is None

    book.remove(profile)
    assert secret_service.get("team") is None
