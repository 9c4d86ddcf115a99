"""The metric result (spec 2.7): time buckets with metric values and breakdown dimensions, and metadata.

Numbers are Decimals (the client parses JSON numbers without a trip through float),
kept as sent even when they cannot be used (`1e400`, `1e999999999`: see `api.numbers`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, ConfigDict, Field

from stablepay_console.api.wire import DateOrTime, WireModel, _as_list

MetricValue = Decimal | str | bool | None


class MetricRow(WireModel):
    """One time bucket: `periodStart`, metric values and breakdown dimensions."""

    model_config = ConfigDict(alias_generator=None, extra="allow", frozen=True, defer_build=True)
    __pydantic_extra__: dict[str, MetricValue]  # type: ignore[assignment]

    period_start: Annotated[DateOrTime, Field(alias="periodStart")]

    @property
    def fields(self) -> dict[str, MetricValue]:
        """Every field but `periodStart`, under its wire name."""
        return dict(self.__pydantic_extra__ or {})

    @property
    def numbers(self) -> dict[str, Decimal]:
        return {k: v for k, v in self.fields.items() if isinstance(v, Decimal)}

    @property
    def dimensions(self) -> dict[str, str]:
        return {k: v for k, v in self.fields.items() if isinstance(v, str)}


class MetricFilter(WireModel):
    applied: str | None = None
    specified: bool | None = None
    values: Annotated[list[Any] | None, BeforeValidator(_as_list)] = None
    count: int | None = None
    note: str | None = None


class DateRange(WireModel):
    start: DateOrTime | None = None
    end: DateOrTime | None = None


class MetricMetadata(WireModel):
    template: str = ""
    record_count: int | None = None
    projected_row_count: int | None = None
    filled_count: int | None = None
    calculation_interval: str | None = None
    date_range: DateRange | None = None
    filters: dict[str, MetricFilter] = Field(default_factory=dict)
    breakdowns: Any = None


class MetricResult(WireModel):
    exact_numbers: ClassVar[bool] = True

    status: str = "success"
    data: list[MetricRow] = Field(default_factory=list)
    metadata: MetricMetadata = Field(default_factory=MetricMetadata)
