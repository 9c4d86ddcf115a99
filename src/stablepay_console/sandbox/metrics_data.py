"""Seeded results of the saved metrics the sandbox knows (daily, hourly, monthly, a breakdown, an empty one)."""

from __future__ import annotations

import random
import uuid
from datetime import date, datetime, timedelta, timezone
from typing import Any

from stablepay_console.api.models import MetricResult
from stablepay_console.sandbox.ids import (
    METRIC_DAILY_VOLUME_ID,
    METRIC_EMPTY_ID,
    METRIC_HOURLY_VOLUME_ID,
    METRIC_MONTHLY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
)


def make_metrics(rng: random.Random, now: datetime) -> dict[str, dict[str, Any]]:
    metrics: dict[str, dict[str, Any]] = {}
    today = now.date()
    days = [today - timedelta(days=n) for n in range(29, -1, -1)]
    daily = [
        {"periodStart": d.isoformat(), "grossVolume": round(rng.uniform(20000, 90000), 2),
         "transactionCount": rng.randint(40, 260)}
        for d in days
        if d.toordinal() % 9 != 4  # a few days the server leaves out
    ]
    rng.shuffle(daily)  # the server's order is not promised; clients sort
    metrics[METRIC_DAILY_VOLUME_ID] = _metric("GROSS_VOLUME", "day", days[0], days[-1], daily, None)

    rows = []
    for d in days[-14:]:
        for ttype in ("onramp", "offramp"):
            for tstatus in ("COMPLETED", "FAILED", "PENDING"):
                rows.append({"periodStart": d.isoformat(), "transactionType": ttype,
                             "transactionStatus": tstatus, "transactionCount": rng.randint(0, 80)})
    metrics[METRIC_TX_COUNT_ID] = _metric(
        "TRANSACTION_COUNT", "day", days[-14], days[-1], rows, ["transactionType", "transactionStatus"]
    )

    months = []
    first = date(today.year, today.month, 1)
    for n in range(8, -1, -1):
        y, m = divmod(first.year * 12 + first.month - 1 - n, 12)
        months.append(date(y, m + 1, 1))
    monthly = [{"periodStart": m.isoformat(), "grossVolume": round(rng.uniform(600000, 2400000), 2)}
               for m in months]
    metrics[METRIC_MONTHLY_VOLUME_ID] = _metric("GROSS_VOLUME", "month", months[0], today, monthly, None)

    start = datetime(today.year, today.month, today.day, tzinfo=timezone.utc) - timedelta(hours=23)
    hourly = [{"periodStart": (start + timedelta(hours=h)).isoformat().replace("+00:00", "Z"),
               "grossVolume": round(rng.uniform(500, 6000), 2)} for h in range(24)]
    metrics[METRIC_HOURLY_VOLUME_ID] = _metric("GROSS_VOLUME", "hour", start.date(), today, hourly, None)
    metrics[METRIC_EMPTY_ID] = _metric("GROSS_VOLUME", "day", days[-7], days[-1], [], None)
    return metrics


def _metric(
    template: str,
    interval: str,
    start: date,
    end: date,
    rows: list[dict[str, Any]],
    breakdowns: list[str] | None,
) -> dict[str, Any]:
    user_ids = [str(uuid.UUID(int=n + 1, version=4)) for n in range(60)]
    body = {
        "status": "success",
        "data": rows,
        "metadata": {
            "template": template,
            "recordCount": len(rows),
            "projectedRowCount": None,
            "filledCount": len(rows),
            "calculationInterval": interval,
            "dateRange": {"start": start.isoformat(), "end": end.isoformat()},
            "filters": {
                "createdAfter": {"applied": "subset", "specified": True, "values": start.isoformat()},
                "createdBefore": {"applied": "subset", "specified": True, "values": end.isoformat()},
                "calculationInterval": {"applied": "subset", "specified": True, "values": [interval]},
                "transactionTypes": {"applied": "all", "specified": False, "values": ["onramp", "offramp"]},
                "userIds": {"applied": "subset", "specified": True, "count": len(user_ids),
                            "note": f"{len(user_ids)} user IDs; the list is omitted for length"},
            },
            "breakdowns": breakdowns,
        },
    }
    MetricResult.model_validate(body)  # the sandbox only ever sends what the client can read
    return body
