"""Parse: validating a 100-RFI page into `RfiPage` against `json.loads` of the same bytes."""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable
from dataclasses import replace

import httpx
from common import Row, times

TARGET = 3.0


def page_bytes(count: int = 100) -> bytes:
    """A /v2/rfis page as the sandbox sends it (Starlette's compact JSON)."""
    from stablepay_console.sandbox.data import SandboxData

    data = SandboxData(rfi_count=count)
    body = {"data": [r.to_wire() for r in data.rfis], "pagination": {"limit": count, "offset": 0, "total": 50000}}
    return json.dumps(body, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


def per_call(fn: Callable[[], object], repeat: int, number: int) -> float:
    """Best-of-`repeat` seconds per call (the least disturbed by other load on the machine)."""
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def measure(repeat: int, number: int) -> list[Row]:
    from stablepay_console.api.client import decode
    from stablepay_console.api.models import RfiPage

    raw = page_bytes()
    response = httpx.Response(200, content=raw, headers={"content-type": "application/json"})
    assert decode(response, RfiPage) == RfiPage.model_validate_json(raw)
    loads = per_call(lambda: json.loads(raw), repeat, number)
    rows = []
    for name, fn in (
        ("parse: RfiPage.model_validate_json", lambda: RfiPage.model_validate_json(raw)),
        ("parse: client decode() (actual path)", lambda: decode(response, RfiPage)),
    ):
        took = per_call(fn, repeat, number)
        rows.append(
            Row(
                name,
                f"{took * 1e6:.0f} us",
                f"{loads * 1e6:.0f} us",
                times(took / loads),
                f"<= {TARGET}x json.loads",
                took / loads <= TARGET,
            )
        )
    note = f"100-RFI page of {len(raw) // 1024} KiB; best of {repeat} x {number} calls; baseline json.loads(bytes)"
    rows[0] = replace(rows[0], note=note)
    return rows


if __name__ == "__main__":
    from common import render

    print(render(measure(5, 200)))
