"""The sandbox's stand-in for the dashboard's API Keys page: create a key (spec 5.3), delete one (5.5).

Not part of the API: the console's rotation wizard uses it to rehearse a rotation end to end.
The key to delete travels in the body, never in the URL.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

if TYPE_CHECKING:
    from stablepay_console.sandbox.state import SandboxState

MAX_NAME = 100


async def json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def dashboard_routes(state: SandboxState) -> list[BaseRoute]:
    """The routes, bound to one sandbox's state."""

    async def create_key(request: Request) -> Response:
        body = await json_body(request)
        name = str(body.get("name") or "unnamed key")[:MAX_NAME]
        key = f"sk_{state.environment}_{secrets.token_hex(16)}"
        state.keys[key] = name
        state.keys_changed()
        return JSONResponse({"key": key, "name": name, "environment": state.environment}, status_code=201)

    async def delete_key(request: Request) -> Response:
        body = await json_body(request)
        key = str(body.get("key") or "")
        if state.keys.pop(key, None) is None:
            return JSONResponse(
                {"status": "error", "error": {"code": "NOT_FOUND", "message": "No such key"}}, status_code=404
            )
        state.keys_changed()
        return Response(status_code=204)

    return [
        Route("/_sandbox/keys", create_key, methods=["POST"]),
        Route("/_sandbox/keys/delete", delete_key, methods=["POST"]),
    ]
