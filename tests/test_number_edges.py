"""The edges of what a server's numbers and instants may be (api/numbers.py): usable inside Decimal's default
exponent range and the calendar with a day to spare, summed exactly, written plainly up to 60 digits either side
of the point, and sorted on one UTC line with the unusable ones at its ends."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo
from decimal import Decimal

from stablepay_console.api.numbers import exact_sum, number_text, usable_number, usable_time, utc_key

EARLIEST = datetime(1, 1, 2, tzinfo=timezone.utc)
LATEST = datetime(9999, 12, 30, tzinfo=timezone.utc)


class NoOffset(tzinfo):
    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return None


def test_a_number_is_usable_inside_decimals_default_exponent_range_only() -> None:
    usable = [0, 7, -7, Decimal("1.5"), Decimal("1E+999999"), Decimal("12E+999998"), Decimal("1E-999999"),
              Decimal("0E+2000000"), Decimal("0E-2000000")]
    unusable = [True, False, "1", 1.5, None, Decimal("NaN"), Decimal("Infinity"), Decimal("-Infinity"),
                Decimal("1E+1000000"), Decimal("12E+999999"), Decimal("1E-1000000")]
    assert [usable_number(v) for v in usable] == [True] * len(usable)
    assert [usable_number(v) for v in unusable] == [False] * len(unusable)


def test_a_sum_is_exact_or_none() -> None:
    assert exact_sum([]) == Decimal(0)
    assert exact_sum([1, 2]) == Decimal(3)
    assert str(exact_sum([Decimal("1E+30"), Decimal("0.01")])) == "1000000000000000000000000000000.01"
    assert exact_sum([Decimal("9.99")] * 1000) == Decimal("9990.00")
    assert exact_sum([Decimal("1E+40"), Decimal("1E-40")]) == Decimal("1" + "0" * 40 + "." + "0" * 39 + "1")
    assert exact_sum([Decimal("1E+999999"), Decimal("1E+999999")]) == Decimal("2E+999999")
    assert exact_sum([Decimal("9E+999999"), Decimal("9E+999999")]) == Decimal("18E+999999")  # past Emax: still exact
    assert exact_sum([Decimal("1"), Decimal("NaN")]) is None
    assert exact_sum([Decimal("1"), True]) is None


def test_a_number_is_written_plainly_up_to_sixty_digits_either_side_of_the_point() -> None:
    assert number_text(Decimal("1E+60")) == "1" + "0" * 60
    assert number_text(Decimal("1E+61")) == "1E+61"
    assert number_text(Decimal("1E-60")) == "0." + "0" * 59 + "1"
    assert number_text(Decimal("1E-61")) == "1E-61"
    assert number_text(Decimal("0E+999999")) == "0"
    assert number_text(Decimal("-12.50")) == "-12.50"
    assert number_text(Decimal("Infinity")) == "Infinity" and number_text(Decimal("NaN")) == "NaN"


def test_an_instant_is_usable_inside_the_calendar_with_a_day_to_spare() -> None:
    assert usable_time(date(1, 1, 1)) and usable_time(EARLIEST) and usable_time(LATEST)
    assert not usable_time(None)
    assert not usable_time(datetime(2026, 11, 20, 9, 30))
    assert not usable_time(datetime(2026, 11, 20, 9, 30, tzinfo=NoOffset()))
    assert not usable_time(EARLIEST - timedelta(seconds=1))
    assert not usable_time(LATEST + timedelta(seconds=1))
    assert not usable_time(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))))
    assert not usable_time(datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-14))))
    assert usable_time(datetime(2026, 11, 20, 9, 30, tzinfo=timezone(timedelta(hours=2))))


def test_dates_and_instants_sort_on_one_utc_line_the_unusable_at_its_ends() -> None:
    paris = timezone(timedelta(hours=1))
    assert utc_key(date(2026, 11, 20)) == datetime(2026, 11, 20, tzinfo=timezone.utc)
    assert utc_key(datetime(2026, 11, 20, 10, 30, tzinfo=paris)) == datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
    assert utc_key(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))) == EARLIEST
    assert utc_key(datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-14)))) == LATEST
    assert utc_key(datetime(4999, 6, 1)) == EARLIEST and utc_key(datetime(5000, 6, 1)) == LATEST
