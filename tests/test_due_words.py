"""The words `rfis due` prints in its thousands of rows: a deadline's stamp and how late a breach is."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import example, given
from hypothesis import strategies as st

from stablepay_console.cli.breaches import late_words
from stablepay_console.services.watch.events import stamp

moments = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 30))


@given(moments)
@example(datetime(999, 12, 31, 23, 59))  # before the year 1000: strftime's own way
def test_a_moment_in_utc_is_stamped_to_the_minute(moment: datetime) -> None:
    assert stamp(moment.replace(tzinfo=timezone.utc)) == moment.strftime("%Y-%m-%d %H:%M UTC")


@given(moments, st.integers(min_value=-14 * 60, max_value=14 * 60).filter(bool))
def test_a_moment_with_another_offset_keeps_it(moment: datetime, minutes: int) -> None:
    zone = timezone(timedelta(minutes=minutes))
    assert stamp(moment.replace(tzinfo=zone)) == moment.replace(second=0, microsecond=0, tzinfo=zone).isoformat(
        timespec="minutes")


def test_how_late_a_breach_is_reads_in_minutes_hours_then_days() -> None:
    assert [late_words(s) for s in (0, 59, 61, 3599, 3600, 3661, 86_399, 86_400, 90_000, 2 * 86_400 + 7_200)] == [
        "1 min", "1 min", "1 min", "59 min", "1 h 0 min", "1 h 1 min", "23 h 59 min", "1 day 0 h", "1 day 1 h",
        "2 days 2 h"]
