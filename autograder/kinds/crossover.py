"""``crossover``: the size at which a regime changes, e.g. the matrix size from which a multiply reaches
half of the device's FLOP/s peak.  Derived by scanning a sweep with another kind as the metric and
interpolating (in log space) where it first crosses a threshold."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from pydantic import Field

from ..records import Case, DeviceFingerprint, ParamValue, Quantity, QuantityValue
from ._base import (
    Args,
    LogRatioScored,
    Measurements,
    positive_number,
)
from ._registry import kind_of


class CrossoverArgs(Args):
    case: dict[str, ParamValue] = Field(default_factory=dict)
    #: the swept parameter; ``log2_*`` parameters report the size 2^value
    param: str = "log2_n"
    #: the values to scan; default: every value of ``param`` the run measured
    values: list[int] | None = None
    #: a quantity spec without id (``kind`` plus that kind's arguments, its ``case`` filled in per value)
    metric: dict[str, Any]
    threshold: float
    above: bool = True


class CrossoverKind(LogRatioScored):
    name = "crossover"
    fact_kind = None
    Args = CrossoverArgs
    asks_for = "a size, e.g. 1024"
    example = 1024.0

    def _metric(self, q: Quantity, value: int) -> Quantity:
        a = self.args(q)
        spec = dict(a.metric)
        kind = spec.pop("kind", "ratio")
        case = {**a.case, **spec.pop("case", {}), a.param: value}
        sub = Quantity(id=f"{q.id}@{value}", title=q.title, kind=kind, method=q.method, args={**spec, "case": case})
        kind_of(sub).args(sub)  # validate
        return sub

    def cases(self, q: Quantity) -> list[Case]:
        out: dict[str, Case] = {}
        for v in self.args(q).values or []:
            sub = self._metric(q, v)
            for c in kind_of(sub).cases(sub):
                out[c.key] = c
        return list(out.values())

    def touched_by(self, q: Quantity, cases: Iterable[Case]) -> bool:
        a = self.args(q)
        if a.values is not None:
            return super().touched_by(q, cases)
        fixed = {**a.case, **a.metric.get("case", {})}
        variant = a.metric.get("variant")
        return any(
            a.param in c.params
            and (variant is None or c.variant == variant)
            and all(c.params.get(k) == v for k, v in fixed.items())
            for c in cases
        )

    def primary_params(self, q: Quantity) -> dict[str, ParamValue]:
        return dict(self.args(q).case)

    shared_params = primary_params

    def _measured_values(self, q: Quantity, ms: Measurements) -> list[int]:
        a = self.args(q)
        fixed = {**a.case, **a.metric.get("case", {})}
        return sorted(
            {
                int(m.case.params[a.param])
                for m in ms.all()
                if a.param in m.case.params and all(m.case.params.get(k) == v for k, v in fixed.items())
            }
        )

    def _size(self, q: Quantity, k: float) -> float:
        return 2.0**k if self.args(q).param.startswith("log2_") else k

    def derive(self, q: Quantity, ms: Measurements, fp: DeviceFingerprint | None, device: str) -> QuantityValue | None:
        a = self.args(q)
        strict = a.values is not None
        scan = a.values if a.values is not None else self._measured_values(q, ms)
        points: list[tuple[int, float, float]] = []
        for v in sorted(scan):
            sub = self._metric(q, v)
            val = kind_of(sub).derive(sub, ms, fp, device)
            if val is None or not isinstance(val.value, float):
                if strict:
                    return None
                continue
            points.append((v, val.ratio, val.log_spread))
        sign = 1 if a.above else -1
        unit = math.log(2) if a.param.startswith("log2_") else 1.0
        for i, (v, m, s) in enumerate(points):
            if sign * (m - a.threshold) < 0:
                continue
            if i == 0:
                # crossed before the first point: where exactly is unknown, half a step either way
                k: float = v
                step = points[1][0] - v if len(points) > 1 else 1
                spread = 0.5 * step * unit
            else:
                pv, pm, ps = points[i - 1]
                slope = math.log(m) - math.log(pm)
                t = (math.log(a.threshold) - math.log(pm)) / slope if m != pm else 1.0
                k = pv + min(1.0, max(0.0, t)) * (v - pv)
                # The student's notebook interpolates the same way, so the interpolation is part of the
                # quantity's definition; what can move the crossing between runs is the metric's noise at the
                # two points, carried through the slope (a flat curve moves the crossing far).
                noise = max(s, ps)
                spread = min(0.5 * (v - pv) * unit, noise * (v - pv) * unit / abs(slope)) if slope else 0.5 * unit
            size = self._size(q, k)
            return QuantityValue(
                quantity=q.id, value=round(size, 2), ratio=size, log_spread=spread, method=q.method, device=device
            )
        return None

    def value_of(self, q: Quantity, ratio: float, spread: float) -> float | str:
        return round(ratio, 2)

    def check(self, q: Quantity, value: object) -> tuple[float | str | None, str | None]:
        return positive_number(q, value, self.asks_for, 1.0, 2.0**48, "size", "1 and 2^48")

    def show(self, value: float | str) -> str:
        return f"{value:,.0f}" if isinstance(value, float) else str(value)

    def show_committed(self, value: float | str) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)
