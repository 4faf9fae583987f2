"""``ratio`` (alias ``speedup``): time of one case over time of another, e.g. eager ÷ compiled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from ..errors import LessonSpecError
from ..records import Case, DeviceFingerprint, ParamValue, Quantity, QuantityValue
from ._base import (
    Args,
    LogRatioScored,
    Measurements,
    positive_number,
)

if TYPE_CHECKING:
    from ..workload import Workload


class RatioArgs(Args):
    """``case`` shared by both sides; ``compare = [slow variant, fast variant]``; ``slow``/``fast`` change
    parameters (or ``variant``) of one side only, e.g. a dtype speedup compares two dtypes."""

    case: dict[str, ParamValue] = Field(default_factory=dict)
    compare: tuple[str, str] | None = None
    slow: dict[str, ParamValue] = Field(default_factory=dict)
    fast: dict[str, ParamValue] = Field(default_factory=dict)
    #: which statistic of each side's samples the ratio divides: ``median`` (default) or ``min``, the
    #: fastest sample. A per-call wall time whose dispatch sits on a different floor in each process (an
    #: H200's compiled float32 2^28 chain: medians 0.56-0.69 ms over 24 processes, its kernel 0.51 ms)
    #: gives a median ratio no band of 1.5x holds; the fastest call is what the hardware and software
    #: can do, and moves less (a larger case, where the kernels outlast dispatch, is often better still)
    statistic: Literal["median", "min"] = "median"


def ratio_cases(a: RatioArgs, qid: str) -> tuple[Case, Case]:
    sides = []
    for i, side in enumerate((a.slow, a.fast)):
        variant = side.get("variant", a.compare[i] if a.compare else None)
        if variant is None:
            raise LessonSpecError(f"quantity {qid!r}: give compare = [slow, fast] variants (or a variant per side)")
        params = {k: v for k, v in {**a.case, **side}.items() if k != "variant"}
        sides.append(Case(variant=str(variant), params=params))
    return sides[0], sides[1]


def measured_ratio(
    slow: Case, fast: Case, method: str, ms: Measurements, statistic: str = "median"
) -> tuple[float, float] | None:
    """(slow ÷ fast, by ``statistic`` of each side's samples; half-width of its noise band in log space),
    or None if unmeasured. The band is the quartiles' for either statistic."""
    a, b = ms.get(slow, method), ms.get(fast, method)
    if a is None or b is None:
        return None
    if statistic == "min":
        ratio = a.stats.min / b.stats.min
    else:
        ratio = a.stats.median / b.stats.median
    return ratio, a.stats.log_half_iqr + b.stats.log_half_iqr


class RatioKind(LogRatioScored):
    name = "ratio"
    Args = RatioArgs
    asks_for = "the speedup as a factor"
    example = 2.5

    def cases(self, q: Quantity) -> list[Case]:
        return list(ratio_cases(self.args(q), q.id))

    def primary_params(self, q: Quantity) -> dict[str, ParamValue]:
        return self.shared_params(q)

    def derive(self, q: Quantity, ms: Measurements, fp: DeviceFingerprint | None, device: str) -> QuantityValue | None:
        slow, fast = self.cases(q)
        r = measured_ratio(slow, fast, q.method, ms, self.args(q).statistic)
        if r is None:
            return None
        return QuantityValue(
            quantity=q.id, value=round(r[0], 4), ratio=r[0], log_spread=r[1], method=q.method, device=device
        )

    def model_value(self, q: Quantity, workload: Workload) -> float | None:
        slow, fast = self.cases(q)
        a, b = workload.work(slow.variant, slow.params), workload.work(fast.variant, fast.params)
        return a.bytes_moved / b.bytes_moved if b.bytes_moved else None

    def check(self, q: Quantity, value: object) -> tuple[float | str | None, str | None]:
        return positive_number(
            q,
            value,
            self.asks_for,
            1e-4,
            1e4,
            "ratio of two times",
            "1e-4 and 1e4",
            "is a ratio of two times and must be positive",
        )
