"""Keys in the OS keyring: unusable backends are named plainly, the environment overrides, nothing leaks."""

from __future__ import annotations

import io

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null
from rich.console import Console
from rich.traceback import Traceback

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import (
    ENV_KEY,
    ENV_PROFILE,
    PENDING,
    KeyMissing,
    KeyStore,
    KeyStoreError,
    KeyStoreUnavailable,
    MemoryVault,
    backend_name,
    entry_name,
    env_key,
    insecure_reason,
)
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.store import ProfileStore
from tests.conftest import CANARY_KEY, FIXED_NOW, MemoryKeyring, no_canary_in

PROD = Profile("prod", "production", "https://api.stablepay.example")


class PlaintextKeyring(KeyringBackend):
    """Stands in for keyrings.alt's plaintext file backend."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        raise AssertionError("a plaintext backend must never be written to")

    def delete_password(self, service: str, username: str) -> None:
        return None


class ExplodingKeyring(PlaintextKeyring):
    """A secret store that fails the way a locked or broken one does."""

    __module__ = "tests.exploding"

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError(f"could not store {password}")

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("bus closed")


ExplodingKeyring.__name__ = "ExplodingKeyring"


class EmptyChainer(chainer.ChainerBackend):
    backends = ()  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("backend", "words"),
    [(fail.Keyring(), "'fail' backend"), (null.Keyring(), "'null' backend"), (PlaintextKeyring(), "ordinary file"),
     (EmptyChainer(), "No system keyring")],
)
def test_unusable_backends_are_named_and_the_env_route_explained(backend: KeyringBackend, words: str) -> None:
    reason = insecure_reason(backend)
    assert reason is not None and words in reason
    store = KeyStore(backend)
    assert store.problem is not None and ENV_KEY in store.problem and ENV_PROFILE in store.problem
    with pytest.raises(KeyStoreUnavailable, match=ENV_KEY):
        store.set("prod", ApiKey(CANARY_KEY))


def test_memory_backend_is_a_usable_store(memory_keyring) -> None:  # type: ignore[no-untyped-def]
    store = KeyStore()
    assert store.problem is None
    store.set("prod", ApiKey(CANARY_KEY))
    assert store.get("prod") == ApiKey(CANARY_KEY)
    assert store.delete("prod") is True
    assert store.delete("prod") is False
    assert store.get("prod") is None


def test_without_a_keyring_the_profile_is_not_saved_and_no_file_gets_the_key(isolated_config) -> None:  # type: ignore[no-untyped-def]
    book = ProfileBook(keys=KeyStore(fail.Keyring()))
    with pytest.raises(KeyStoreUnavailable):
        book.add(PROD, ApiKey(CANARY_KEY))
    assert ProfileStore().profiles() == []
    for path in isolated_config.rglob("*"):
        if path.is_file():
            assert no_canary_in(path.read_text(encoding="utf-8"))
    book.add(PROD, None)
    status = book.key_status(PROD)
    assert status.source == "unavailable" and ENV_KEY in status.note


def test_environment_key_applies_to_its_profile_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_KEY, CANARY_KEY)
    assert env_key("prod", default="prod") == ApiKey(CANARY_KEY), "no STABLEPAY_PROFILE: the default profile"
    assert env_key("staging", default="prod") is None
    monkeypatch.setenv(ENV_PROFILE, "staging")
    assert env_key("staging", default="prod") == ApiKey(CANARY_KEY)
    assert env_key("prod", default="prod") is None, "never sent to another profile's base URL"


def test_environment_key_wins_over_keyring_and_works_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    book = ProfileBook(keys=KeyStore(fail.Keyring()))
    book.add(PROD, None)
    with pytest.raises(KeyStoreUnavailable):
        book.key_for(PROD)
    monkeypatch.setenv(ENV_PROFILE, "prod")
    monkeypatch.setenv(ENV_KEY, CANARY_KEY)
    assert book.key_for(PROD) == ApiKey(CANARY_KEY)
    status = book.key_status(PROD)
    assert status.source == "environment" and status.masked == ApiKey(CANARY_KEY).masked


def test_invalid_environment_key_is_reported_without_its_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_PROFILE, "prod")
    monkeypatch.setenv(ENV_KEY, CANARY_KEY + " trailing words")
    with pytest.raises(KeyStoreError) as caught:
        env_key("prod", None)
    assert no_canary_in(str(caught.value)) and caught.value.__context__ is None


def test_missing_key_says_how_to_add_one() -> None:
    book = ProfileBook()
    book.add(PROD, None)
    with pytest.raises(KeyMissing, match="Profiles & keys"):
        book.key_for(PROD)
    assert book.key_status(PROD).label == "no key"


def test_backend_failures_carry_no_key_even_in_a_traceback_with_locals() -> None:
    store = KeyStore(ExplodingKeyring())
    assert store.problem is None
    with pytest.raises(KeyStoreError) as caught:
        store.set("prod", ApiKey(CANARY_KEY))
    assert "RuntimeError" in str(caught.value) and no_canary_in(str(caught.value))
    assert caught.value.__context__ is None and caught.value.__cause__ is None
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(Traceback.from_exception(type(caught.value), caught.value, caught.tb, show_locals=True))
    assert no_canary_in(console.export_text())
    with pytest.raises(KeyStoreError, match="could not read"):
        store.get("prod")


# --- what is shown of a key -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a", "****"),
        ("abcdefghijk", "****"),  # 11 characters
        ("abcdefghijkl", "****"),  # 12: still wholly masked
        ("  abcdefghijkl\n", "****"),  # 12 once the paste's spaces are trimmed
        ("abcdefghijklm", "abcd…jklm"),  # 13: the first and last four
        ("sk_sandbox_0123456789abcdef", "sk_s…cdef"),
        (CANARY_KEY, "sk_c…f2b4"),
    ],
    ids=["1", "11", "12", "12-padded", "13", "27", "canary"],
)
def test_a_key_of_12_characters_or_fewer_is_masked_whole_and_a_longer_one_shows_four_and_four(
    value: str, shown: str
) -> None:
    key = ApiKey(value)
    assert key.masked == shown
    assert repr(key) == str(key) == f"{key}" == f"ApiKey({shown!r})"


@pytest.mark.parametrize(("pasted", "said"), [
    ("   ", "The API key is empty."),
    ("k" * 4097, "The API key is 4,097 characters long, far longer than a key: was something else pasted?"),
    ("sk_test_ab cd", "The API key contains spaces or control characters."),
    ("sk_test_ab\x1b[2Jcd", "The API key contains spaces or control characters."),
    ("sk_test_clé_1234", "The API key contains characters that are not ASCII."),
])
def test_a_pasted_key_that_is_no_key_is_refused_in_one_sentence(pasted: str, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        ApiKey(pasted)
    assert str(refused.value) == said


def test_a_key_compares_by_value_and_is_never_copied_out() -> None:
    import pickle

    longest = ApiKey("k" * 4096)  # as long as a key may be
    one, same, other = ApiKey(" sk_test_0123456789ab "), ApiKey("sk_test_0123456789ab"), ApiKey("sk_test_ba9876543210")
    assert one == same and hash(one) == hash(same) and one != other and hash(one) != hash(other)
    assert one != "sk_test_0123456789ab" and longest.masked == "kkkk…kkkk"  # a key never equals its plain text
    with pytest.raises(TypeError, match=r"^An ApiKey cannot be pickled\.$"):
        pickle.dumps(one)
    with pytest.raises(TypeError, match=r"^An ApiKey cannot be serialised\.$"):
        one.__getstate__()


# --- which keyrings are secret stores, and how a store fails ---------------------------------------------------------


class InsecureVault(PlaintextKeyring):
    pass


class AltFileKeyring(PlaintextKeyring):
    __module__ = "keyrings.alt.file"


class FailFirst(chainer.ChainerBackend):
    backends = (fail.Keyring(), MemoryKeyring())  # type: ignore[assignment]


class MemoryFirst(chainer.ChainerBackend):
    backends = (MemoryKeyring(), fail.Keyring())  # type: ignore[assignment]


class UndeletableKeyring(MemoryKeyring):
    __module__ = "tests.undeletable"

    def delete_password(self, service: str, username: str) -> None:
        raise RuntimeError(f"could not delete {username}")


def test_each_keyring_that_is_no_secret_store_is_named_in_a_sentence() -> None:
    assert insecure_reason(EmptyChainer()) == (
        "No system keyring was found: this machine has no Secret Service, Keychain or Credential Locker.")
    assert insecure_reason(fail.Keyring()) == insecure_reason(FailFirst()) == (
        "No system keyring was found (keyring's 'fail' backend): this machine has no Secret Service, Keychain or "
        "Credential Locker the console can keep keys in.")
    assert insecure_reason(null.Keyring()) == (
        "The keyring is switched off (keyring's 'null' backend): it keeps nothing.")
    assert insecure_reason(MemoryFirst()) is None and insecure_reason(MemoryKeyring()) is None
    assert backend_name(AltFileKeyring()) == "keyrings.alt.file.AltFileKeyring"
    for backend in (PlaintextKeyring(), InsecureVault(), AltFileKeyring()):
        assert insecure_reason(backend) == (
            f"The keyring backend {backend_name(backend)} keeps secrets in an ordinary file; it is not a secret store.")


def test_a_keyring_that_fails_is_named_with_the_failures_kind_only(monkeypatch: pytest.MonkeyPatch) -> None:
    exploding = KeyStore(ExplodingKeyring())
    with pytest.raises(KeyStoreError) as caught:
        exploding.set("prod", ApiKey(CANARY_KEY))
    assert str(caught.value) == ("The keyring (tests.exploding.ExplodingKeyring) could not store the key of 'prod': "
                                 "RuntimeError.")
    with pytest.raises(KeyStoreError) as caught:
        exploding.get("prod")
    assert str(caught.value) == ("The keyring (tests.exploding.ExplodingKeyring) could not read the key of 'prod': "
                                 "RuntimeError.")
    undeletable = KeyStore(UndeletableKeyring())
    with pytest.raises(KeyStoreError) as caught:
        undeletable.delete("prod")
    assert str(caught.value) == ("The keyring (tests.undeletable.UndeletableKeyring) could not delete the key of "
                                 "'prod': RuntimeError.")
    backend = MemoryKeyring()
    store = KeyStore(backend)
    store.set(entry_name("prod", PENDING), ApiKey(CANARY_KEY))
    assert list(backend.entries) == [("stablepay-console", "prod:pending")] and entry_name("prod") == "prod"
    backend.entries[("stablepay-console", "prod")] = "not a key"
    with pytest.raises(KeyStoreError) as caught:
        store.get("prod")
    assert str(caught.value) == "The key stored for 'prod' is not a valid API key (empty, or with spaces)."
    monkeypatch.setenv(ENV_KEY, " ")
    monkeypatch.setenv(ENV_PROFILE, "prod")
    with pytest.raises(KeyStoreError) as caught:
        env_key("prod", None)
    assert str(caught.value) == (
        "STABLEPAY_API_KEY is not a valid API key (empty, or with spaces or control characters).")


def test_a_built_in_profiles_keys_live_in_its_vault() -> None:
    vault = MemoryVault()
    changes: list[str] = []
    vault.changed = lambda: changes.append("changed")  # type: ignore[method-assign]
    key = ApiKey(CANARY_KEY)
    assert vault.get("embedded") is None
    vault.set("embedded", key)
    assert vault.get("embedded") == key and vault.get("other") is None
    assert vault.delete("other") is False and vault.delete("embedded") is True and vault.get("embedded") is None
    vault.set_since("embedded", FIXED_NOW)
    vault.save_progress("other", None)
    vault.save_progress("embedded", {"step": 2})
    assert vault.since == {"embedded": FIXED_NOW} and vault.progress == {"embedded": {"step": 2}}
    vault.save_progress("embedded", None)
    assert vault.progress == {} and len(changes) == 7
