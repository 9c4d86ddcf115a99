"""The API package's names load on first use (api/__init__.py): each from its own module, kept once loaded, and a
name it does not have is an AttributeError that says so (what `hasattr` and `from … import` rely on)."""

from __future__ import annotations

import pytest

import stablepay_console.api as api


def test_each_name_is_its_modules_own_and_is_kept_once_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    from stablepay_console.api import client, errors, models, secret, urls

    homes = {"StablePayClient": client, "default_retry": client, "check_base_url": urls, "ApiKey": secret,
             "Unauthorized": errors, "ValidationFailed": errors, "Rfi": models, "RfiPage": models}
    for name, home in homes.items():
        monkeypatch.delitem(vars(api), name, raising=False)  # not loaded yet, as in a fresh process
        assert name not in vars(api)
        assert getattr(api, name) is getattr(home, name), name
        assert vars(api)[name] is getattr(home, name), f"{name} is kept in the package once loaded"
    assert set(api.__all__) >= set(homes)
    for name in api.__all__:
        assert getattr(api, name) is not None, name


def test_a_name_the_package_does_not_have_is_an_attribute_error_that_says_so() -> None:
    with pytest.raises(AttributeError) as missing:
        api.NoSuchName  # noqa: B018
    assert str(missing.value) == "module 'stablepay_console.api' has no attribute 'NoSuchName'"
    assert not hasattr(api, "client_for")
