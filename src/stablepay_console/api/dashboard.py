"""The client of the sandbox's stand-in for the dashboard's API Keys page (Developer, then API Keys).

Only the sandbox has it: the real dashboard is a web page a person uses. The console offers it for
the built-in profiles, so the rotation wizard can be tried end to end, and the tests use it. Its
paths live here with the rest of the API's, so no other layer builds a URL.
"""

from __future__ import annotations

import httpx

from stablepay_console.api.secret import ApiKey
from stablepay_console.api.urls import check_base_url

KEYS_PATH = "/_sandbox/keys"
KEYS_DELETE_PATH = "/_sandbox/keys/delete"
"""The key travels in the body of a POST, never in a URL."""


class DashboardError(Exception):
    """The simulated dashboard refused (the message never holds a key)."""


class SandboxDashboard:
    def __init__(self, base_url: str, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = str(check_base_url(base_url)).rstrip("/")
        self.transport = transport

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, transport=self.transport, timeout=10.0)

    async def create_key(self, name: str) -> ApiKey:
        """Create a key for this environment with a descriptive name; its value is shown only now."""
        async with self._http() as http:
            response = await http.post(KEYS_PATH, json={"name": name})
            if response.status_code != 201:
                raise DashboardError(f"The sandbox dashboard did not create the key (HTTP {response.status_code}).")
            try:
                return ApiKey(str(response.json().get("key") or ""))
            except (ValueError, AttributeError):
                pass
        raise DashboardError("The sandbox dashboard answered without a usable key.")

    async def delete_key(self, key: ApiKey) -> None:
        """Delete a key; requests with it stop working at once. The key travels in the body, never the URL."""
        async with self._http() as http:
            response = await http.post(KEYS_DELETE_PATH, json={"key": key.reveal()})
        if response.status_code == 404:
            raise DashboardError(f"The sandbox dashboard has no key {key.masked} (already deleted?).")
        if response.status_code != 204:
            raise DashboardError(f"The sandbox dashboard did not delete the key (HTTP {response.status_code}).")
