"""Keys in a real Secret Service (gnome-keyring on a private D-Bus session), not a mock.

Run with `scripts/with-secret-service.sh pytest -m secret_service`. Under CI (the variable CI set to
anything but empty, `0` or `false`: GitHub's `true`, Jenkins' or Buildkite's `1`, ...) a missing
Secret Service fails these tests; elsewhere they are skipped.
"""

from __future__ import annotations

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
from tests.ci import missing
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
        why = f"no Secret Service reachable ({type(exc).__name__}: {exc})"
        missing(why, "run under scripts/with-secret-service.sh")
    return backend


@pytest.mark.parametrize(
    ("ci", "outcome"),
    [
        ("true", pytest.fail.Exception),
        ("1", pytest.fail.Exception),
        ("yes", pytest.fail.Exception),
        ("True", pytest.fail.Exception),
        ("woodpecker", pytest.fail.Exception),
        (None, pytest.skip.Exception),
        ("", pytest.skip.Exception),
        ("0", pytest.skip.Exception),
        ("false", pytest.skip.Exception),
        ("FALSE", pytest.skip.Exception),
    ],
    ids=lambda value: repr(value) if not isinstance(value, type) else value.__name__,
)
def test_a_missing_secret_service_fails_in_ci_and_is_skipped_elsewhere(
    monkeypatch: pytest.MonkeyPatch, ci: str | None, outcome: type[BaseException]
) -> None:
    from keyring.backends.SecretService import Keyring as SecretServiceKeyring

    def unreachable(self: KeyringBackend, service: str, username: str) -> str | None:
        raise RuntimeError("no D-Bus session here")

    monkeypatch.setattr(SecretServiceKeyring, "get_password", unreachable)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    # Both are caught here, so a skip where a failure is due fails this test instead of skipping it.
    with pytest.raises((pytest.fail.Exception, pytest.skip.Exception), match="no Secret Service reachable") as caught:
        _secret_service()
    assert caught.type is outcome, f"CI={ci!r}: {caught.type.__name__}, not {outcome.__name__}"


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
