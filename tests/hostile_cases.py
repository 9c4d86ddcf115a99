"""Each hostile case, by name: what it answers on each endpoint (None: the ordinary answer).

Endpoints: "rfis" (GET /v2/rfis), "batch", "quote" (POST refresh), "metric", "ping".
`call` counts the requests this case has answered on this endpoint so far (0 for the first).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta

from tests.hostile_payloads import (
    BASE_TIME,
    BIG_TOTAL,
    HOSTILE,
    LIST_SIZE,
    Reply,
    batch,
    bomb_reply,
    huge_reply,
    json_reply,
    metric,
    onramp,
    page,
    raw,
    rfi,
    trickle_reply,
)

Query = Mapping[str, str]
Case = Callable[[str, Query, int, float], Reply | None]

ENDPOINTS = ("rfis", "batch", "quote", "metric", "ping")


def endpoint_of(path: str) -> str | None:
    if path.rstrip("/") == "/v2/rfis":
        return "rfis"
    if path.startswith("/v2/wallets/transfers/batches/"):
        return "batch"
    if path.startswith("/v2/onramps/") and path.endswith("/quote/refresh"):
        return "quote"
    if path.startswith("/v2/reporting/metrics/") and path.endswith("/results"):
        return "metric"
    if path.rstrip("/") == "/ping":
        return "ping"
    return None


def _int(query: Query, name: str, default: int) -> int:
    try:
        return int(query.get(name, default))
    except ValueError:
        return default


def _window(query: Query) -> tuple[int, int]:
    return max(1, min(100, _int(query, "limit", 20))), max(0, _int(query, "offset", 0))


def list_reply(query: Query, size: int = LIST_SIZE, first: int = 0, total: int | None = None) -> Reply:
    """An honest page of a newest-first list of `size` RFIs numbered from `first` (lower is newer)."""
    limit, offset = _window(query)
    rows = [rfi(first + n) for n in range(offset, min(size, offset + limit))]
    return json_reply(page(rows, limit, offset, size if total is None else total))


def normal(endpoint: str, query: Query, call: int) -> Reply:
    if endpoint == "rfis":
        return list_reply(query)
    if endpoint == "batch":
        return json_reply(batch())
    if endpoint == "quote":
        return json_reply(onramp())
    if endpoint == "metric":
        return json_reply(metric())
    return json_reply({"message": "pong"})


# --- text -----------------------------------------------------------------------------


def escapes(endpoint: str, query: Query, call: int, trickle: float) -> Reply:
    """Hostile text in every text field, IDs and metric field names included."""
    if endpoint == "rfis":
        return json_reply(page([rfi(n, HOSTILE) for n in range(3)], 20, 0, 3))
    if endpoint == "batch":
        return json_reply(batch(HOSTILE))
    if endpoint == "quote":
        return json_reply(onramp(HOSTILE))
    if endpoint == "metric":
        return json_reply(metric(HOSTILE))
    return json_reply({"message": "pong" + HOSTILE})


def error_escapes(endpoint: str, query: Query, call: int, trickle: float) -> Reply:
    """Every error shape of spec section 7, with hostile text in every field."""
    if endpoint == "rfis":
        fields = [{"code": "bad" + HOSTILE, "message": "wrong" + HOSTILE, "field": "status" + HOSTILE}]
        return json_reply({"type": "VALIDATION_ERROR", "message": "Invalid" + HOSTILE, "fields": fields}, 400)
    if endpoint in ("batch", "quote"):
        return json_reply({"status": "error", "error": {"code": "NOPE" + HOSTILE, "message": "No" + HOSTILE}}, 409)
    if endpoint == "metric":
        return json_reply({"type": "INTERNAL_SERVER_ERROR", "message": "Boom" + HOSTILE}, 500)
    return json_reply({"error": "Not authorized" + HOSTILE})


def unauthorized_escapes(endpoint: str, query: Query, call: int, trickle: float) -> Reply:
    """A 401 (Unauthorized shape) whose message holds escapes, on every endpoint."""
    return json_reply({"code": 401, "error": "Not authorized" + HOSTILE, "errorDetails": "Key" + HOSTILE}, 401)


# --- size and time ----------------------------------------------------------------------


def gzip_bomb(endpoint: str, query: Query, call: int, trickle: float) -> Reply:
    return bomb_reply()


def huge(endpoint: str, query: Query, call: int, trickle: float) -> Reply:
    return huge_reply()


def trickle_all(endpoint: str, query: Query, call: int, trickle: float) -> Reply:
    return trickle_reply(trickle)


def trickle_after_probe(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """Answers a one-row probe (and ping) at once, then trickles every page: an export stuck mid-file."""
    if endpoint == "ping" or (endpoint == "rfis" and _int(query, "limit", 20) == 1):
        return None
    return trickle_reply(trickle)


# --- duplicates and paging -------------------------------------------------------------


def duplicate_ids(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """One page holding the same RFI three times, whose round lists the same item twice."""
    if endpoint != "rfis":
        return None
    twice = rfi(0)
    twice["round"]["items"].append(dict(twice["round"]["items"][0]))
    rows = [twice, rfi(1), twice, rfi(2), twice]
    return json_reply(page(rows, 20, 0, len(rows)))


def overlapping_pages(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """Every page after the first starts one row early: the same RFI on two pages."""
    if endpoint != "rfis":
        return None
    limit, offset = _window(query)
    start = max(0, offset - 1)
    rows = [rfi(n) for n in range(start, min(LIST_SIZE, start + limit))]
    return json_reply(page(rows, limit, offset, LIST_SIZE))


def _pagination_lie(limit: int | None = None, offset: int | None = None, total: int | None = None) -> Case:
    def case(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
        if endpoint != "rfis":
            return None
        asked_limit, asked_offset = _window(query)
        rows = [rfi(n) for n in range(asked_offset, min(LIST_SIZE, asked_offset + asked_limit))]
        return json_reply(
            page(
                rows,
                asked_limit if limit is None else limit,
                asked_offset if offset is None else offset,
                LIST_SIZE if total is None else total,
            )
        )

    return case


def _same_page(total: int) -> Case:
    def case(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
        if endpoint != "rfis":
            return None
        limit, offset = _window(query)
        return json_reply(page([rfi(n) for n in range(min(limit, 20))], limit, offset, total))

    return case


def growing(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """A newest-first list that gains 3 new RFIs at the front before every page after the first."""
    if endpoint != "rfis":
        return None
    added = 3 * call
    return list_reply(query, size=LIST_SIZE + added, first=-added)


def shrinking(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """A newest-first list whose 3 newest RFIs go away after two requests (rows move up past the walk)."""
    if endpoint != "rfis":
        return None
    gone = 3 if call >= 2 else 0
    return list_reply(query, size=LIST_SIZE - gone, first=gone)


def days(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """An honest newest-first list whose n-th RFI was created n half-days before BASE_TIME (45 rows, 22 days)."""
    if endpoint != "rfis":
        return None
    limit, offset = _window(query)
    rows = []
    for n in range(offset, min(LIST_SIZE, offset + limit)):
        row = rfi(n)
        row["createdAt"] = (BASE_TIME - timedelta(hours=12 * n)).isoformat()
        rows.append(row)
    return json_reply(page(rows, limit, offset, LIST_SIZE))


# --- numbers and size -----------------------------------------------------------------


def extreme_numbers(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    """Amounts past Decimal's range, metric values past float's, rates 1e-30 then 1e30, year 0 dates."""
    if endpoint == "batch":
        return json_reply(batch(amounts=["1e999999999", "1e30", "0.01", "-1e999999999", "12.50"]))
    if endpoint == "quote":
        rate = "1e-30" if call % 2 == 0 else "1e30"
        return json_reply(onramp(rate=rate, amount="1e999999999"))
    if endpoint == "metric":
        return json_reply(metric(value=raw("1e400"), period="0001-01-01T00:00:00+14:00"))
    if endpoint == "rfis":
        row = rfi(0)
        row["createdAt"] = "0001-01-01T00:00:00+14:00"
        row["round"]["expiresAt"] = "9999-12-31T23:59:59-14:00"
        return json_reply(page([row, rfi(1)], 20, 0, 2))
    return None


def big_round(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    if endpoint != "rfis":
        return None
    return json_reply(page([rfi(0, items=10_000), rfi(1)], 20, 0, 2))


def big_batch(endpoint: str, query: Query, call: int, trickle: float) -> Reply | None:
    if endpoint != "batch":
        return None
    return json_reply(batch(recipients=100_000))


CASES: dict[str, Case] = {
    "normal": lambda endpoint, query, call, trickle: None,
    "escapes": escapes,
    "error-escapes": error_escapes,
    "unauthorized-escapes": unauthorized_escapes,
    "gzip-bomb": gzip_bomb,
    "huge": huge,
    "trickle": trickle_all,
    "trickle-after-probe": trickle_after_probe,
    "duplicate-ids": duplicate_ids,
    "overlapping-pages": overlapping_pages,
    "limit-zero": _pagination_lie(limit=0),
    "negative-offset": _pagination_lie(offset=-20),
    "total-huge": _pagination_lie(total=BIG_TOTAL),
    "same-page-1000": _same_page(1000),
    "same-page-1e9": _same_page(10**9),
    "growing": growing,
    "shrinking": shrinking,
    "days": days,
    "extreme-numbers": extreme_numbers,
    "big-round": big_round,
    "big-batch": big_batch,
}


def reply(case: str, endpoint: str | None, query: Query, call: int = 0, trickle: float = 2.0) -> Reply:
    """The whole behaviour of the hostile server: the answer to one request."""
    if endpoint is None:
        return json_reply({"error": "no such endpoint"}, 404)
    if case not in CASES:
        return json_reply({"error": f"no such case {case!r}"}, 404)
    answer = CASES[case](endpoint, query, call, trickle)
    return answer if answer is not None else normal(endpoint, query, call)
