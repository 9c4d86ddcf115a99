"""`--json` of requests as the record keeps them (their JSON text): printed as `cli/wire.py` prints their models,
without building one, so the team watcher's `rfis due --json` needs neither the models nor pydantic."""

from __future__ import annotations

import json

from stablepay_console.api.sanitize import json_safe
from stablepay_console.storage import record_json


def dumps_text(json_text: str) -> str:
    """JSON text (a request as the record keeps it) printed as `wire.dumps` prints its model, without building one: its
    values are JSON's own (no decimal, date or model), so `json.dumps` lays it out as `_encode` would."""
    try:
        value = record_json.loads(json_text)
    except record_json.UnreadableJson:
        value = record_json.UNREADABLE
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return "\n".join(json_safe(line) for line in text.split("\n"))


def compact_text(json_text: str) -> str:
    """JSON text the record keeps (a request as pydantic wrote it: one line, no spaces) as `wire.dumps` prints its model
    compact, made safe for a terminal, without parsing it."""
    return json_safe(json_text)
