"""What every quantity kind is, and the log-ratio scoring most of them share."""

from __future__ import annotations

import abc
import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import LessonSpecError
from ..records import Case, DeviceFingerprint, Measurement, ParamValue, Quantity, QuantityValue, render_params

if TYPE_CHECKING:
    from ..workload import Workload

__all__ = [
    "Args",
    "Band",
    "Kind",
    "LogRatioScored",
    "Measurements",
    "OneCaseArgs",
    "OneCaseKind",
    "Score",
    "log_ratio_band",
    "log_ratio_score",
    "positive_number",
]


class Args(BaseModel):
    """Base of a kind's arguments: strict, so a typo in lesson.toml is an error, not a silent default."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Score:
    fraction: float
    verdict: str
    ratio: float | None = None


@dataclass(frozen=True)
class Band:
    """The predicted values a quantity's score gives full credit (``low``..``high``, inclusive) and, beyond
    ``zero_low``..``zero_high``, none: in the quantity's own units, for one reference value."""

    low: float
    high: float
    zero_low: float
    zero_high: float

    def full(self, value: float) -> bool:
        return self.low <= value <= self.high


class Measurements:
    """A run's measurements indexed by (case, method) for the kinds to look up."""

    def __init__(self, ms: Iterable[Measurement]) -> None:
        self._by: dict[tuple[str, str], Measurement] = {(m.case.key, m.method): m for m in ms}

    def get(self, case: Case, method: str) -> Measurement | None:
        return self._by.get((case.key, method))

    def all(self) -> list[Measurement]:
        return list(self._by.values())

    def __len__(self) -> int:
        return len(self._by)


class Kind(abc.ABC):
    """One kind of quantity. Subclasses set ``name``, ``Args`` and implement the abstract methods
    (:meth:`cases`, :meth:`derive`, :meth:`check`, :meth:`score`): one that leaves any out cannot be
    instantiated, so it cannot be registered."""

    name: ClassVar[str]
    Args: ClassVar[type[Args]]
    #: what the student writes, for messages ("the speedup as a factor, e.g. 2.5")
    asks_for: str = "a number"
    #: the words after a value, where the kind has some (a quantity's ``unit`` in lesson.toml sets them)
    unit: str = ""
    #: an example value, for scaffolds and messages
    example: ClassVar[Any] = 1.0
    #: what a measured value of this kind is when an explanation quotes it ("ratio", "fraction",
    #: "launches", ...; None: not a number an explanation states)
    fact_kind: ClassVar[str | None] = "ratio"

    def default_prompt(self, q: Quantity) -> str:
        """What ``q`` asks the student for when lesson.toml gives no ``prompt``."""
        return self.asks_for

    def default_unit(self, q: Quantity) -> str:
        """The words after a value of ``q`` when lesson.toml gives no ``unit``."""
        return self.unit

    def args(self, q: Quantity) -> Any:
        try:
            return self.Args.model_validate(q.args)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "arguments"
            msg = first["msg"]
            if first["type"] == "extra_forbidden" and len(first["loc"]) == 1:
                # a misspelled key of the [[quantities]] table: say which keys there are
                known = sorted({*self.Args.model_fields, *(f for f in type(q).model_fields if f != "args")})
                near = difflib.get_close_matches(str(first["loc"][0]), known, n=1)
                msg = f"not a key of a {self.name} quantity" + (f"; did you mean {near[0]!r}?" if near else "")
            raise LessonSpecError(f"quantity {q.id!r} ({self.name}): {loc}: {msg}") from None

    # -- what the reference must measure, and the value it gives
    @abc.abstractmethod
    def cases(self, q: Quantity) -> list[Case]:
        """The cases the reference must measure for ``q``."""

    def touched_by(self, q: Quantity, cases: Iterable[Case]) -> bool:
        """Whether measuring ``cases`` shows something this quantity is derived from."""
        keys = {c.key for c in self.cases(q)}
        return any(c.key in keys for c in cases)

    def reveals(self, q: Quantity, cases: Iterable[Case]) -> bool:
        """Whether showing ``cases`` reveals this quantity: any case it is derived from, not only all of
        them (both sides of a direction, the baseline of a cross-dtype ratio, any point of a crossover's
        sweep), since one side read with the device's ceilings or the other side is enough to guess it.
        A lesson adds more in ``lesson.toml`` (``[reveals]``); the notebook shows nothing it reveals before
        it is predicted."""
        return self.touched_by(q, cases)

    @abc.abstractmethod
    def derive(self, q: Quantity, ms: Measurements, fp: DeviceFingerprint | None, device: str) -> QuantityValue | None:
        """The quantity's value on this device, or None when what it needs was not measured."""

    def value_of(self, q: Quantity, ratio: float, spread: float) -> float | str:
        """The value a reference reports for an underlying ``ratio`` (e.g. merged over processes)."""
        return round(ratio, 4)

    def model_value(self, q: Quantity, workload: Workload) -> float | str | None:
        """What the work model alone predicts (a common student answer, and a lesson fact), if anything."""
        return None

    # -- a student's value
    @abc.abstractmethod
    def check(self, q: Quantity, value: object) -> tuple[float | str | None, str | None]:
        """(normalized value, None) when gradeable, else (None, reason a student can act on)."""

    @abc.abstractmethod
    def score(self, q: Quantity, value: float | str, ref: QuantityValue) -> Score:
        """``value`` scored against the reference ``ref``, with the sentence that says why."""

    def band(self, q: Quantity, ref: QuantityValue) -> Band | None:
        """The numbers :meth:`score` gives full credit against ``ref`` (what a calibration plot shades);
        None for a kind whose values are not numbers on a line (a direction)."""
        return None

    # -- words
    def show(self, value: float | str) -> str:
        return f"{figure(value, 2)}×" if isinstance(value, float) else str(value)

    def show_committed(self, value: float | str) -> str:
        """How a committed value is echoed back (exactly as typed, no rounding)."""
        return f"{value:g}×" if isinstance(value, float) else str(value)

    def primary_params(self, q: Quantity) -> dict[str, ParamValue]:
        """The parameters a sentence about this quantity names."""
        return {}

    def describe(self, q: Quantity) -> str:
        shared = render_params(self.shared_params(q), sep=", ")
        return f"{q.label or q.id} ({q.method}{', ' + shared if shared else ''})"

    def where(self, q: Quantity) -> str:
        """``(gpu_time, float16, 2^24)``: method and case of the reference value, in a grade's reason."""
        params = render_params(self.primary_params(q), short=False, sep=", ")
        return f"({q.method}{', ' + params if params else ''})"

    def shared_params(self, q: Quantity) -> dict[str, ParamValue]:
        """Parameters common to every case of the quantity (what its description names)."""
        cases = self.cases(q)
        if not cases:
            return {}
        first = cases[0].params
        return {k: v for k, v in first.items() if all(c.params.get(k) == v for c in cases[1:])}

    def problems(self, q: Quantity, workload: Workload) -> list[str]:
        """What is wrong with this quantity for this workload (unknown variants or parameters)."""
        out = []
        for c in self.cases(q):
            if c.variant not in workload.variants:
                out.append(f"quantity {q.id!r}: unknown variant {c.variant!r} (the workload has {workload.variants})")
            unknown = set(c.params) - set(workload.params)
            if unknown:
                out.append(f"quantity {q.id!r}: unknown parameters {sorted(unknown)} (known: {workload.params})")
            missing = set(workload.params) - set(c.params)
            if missing:
                out.append(f"quantity {q.id!r}: its case does not set {sorted(missing)}")
        return sorted(set(out))


class OneCaseArgs(Args):
    """A quantity read off one case of one variant (its kernel count, its share of a peak)."""

    case: dict[str, ParamValue]
    variant: str


class OneCaseKind(Kind):
    """A kind whose quantities are read off the single case their ``case`` and ``variant`` name."""

    def cases(self, q: Quantity) -> list[Case]:
        a = self.args(q)
        return [Case(variant=a.variant, params=a.case)]

    def primary_params(self, q: Quantity) -> dict[str, ParamValue]:
        return dict(self.args(q).case)


def figure(x: float, decimals: int) -> str:
    """``x`` to ``decimals`` places, or to two significant figures where those places would show it as 0
    (a slow kernel's 0.000538× is not "0.00×")."""
    if x == 0 or abs(x) >= 10.0**-decimals:
        return f"{x:.{decimals}f}"
    return f"{x:.2g}"


def _string_hint(text: str) -> str:
    """How to write a prediction given as a string: the number itself where the string holds one ("3.5",
    "3.5x", "70%"), else that words are not a number."""
    t = text.strip().rstrip("x×X").strip()
    percent = t.endswith("%")
    try:
        v = float(t[:-1] if percent else t)
    except ValueError:
        return " — write a number like 3.0, not words"
    if percent:
        return f" — write {v / 100:g} for {text.strip()} (a number, no quotes)"
    return f" — write it as a number, without quotes: {v:g}"


def positive_number(
    q: Quantity,
    value: object,
    what: str,
    low: float,
    high: float,
    noun: str,
    bounds: str = "",
    positive: str = "must be positive",
) -> tuple[float | None, str | None]:
    """A finite positive number in [low, high], or why not (shared by the ratio-like kinds)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        hint = _string_hint(value) if isinstance(value, str) else ""
        return None, f"{q.id} takes a number, {what} (got {_show(value)}){hint}"
    v = float(value)
    if math.isnan(v) or math.isinf(v):
        return None, f"{q.id} must be a finite number (got {v})"
    if v <= 0:
        return None, f"{q.id} {positive} (got {v:g})"
    if v > high or v < low:
        return None, f"{q.id} = {v:g} is not a plausible {noun} (expected between {bounds or f'{low:g} and {high:g}'})"
    return v, None


def log_ratio_band(q: Quantity, measured: float, spread: float) -> Band:
    """Full credit within ``full_factor`` of ``measured``, none beyond ``zero_factor``: both widened by the
    reference's spread (in log space) so that noise never costs a point. :func:`log_ratio_score` scores
    with exactly this band."""
    full, zero = q.tolerance.full_log + spread, q.tolerance.zero_log + spread
    return Band(
        measured / math.exp(full), measured * math.exp(full), measured / math.exp(zero), measured * math.exp(zero)
    )


def log_ratio_score(q: Quantity, value: float, measured: float, spread: float) -> Score:
    """Full credit inside :func:`log_ratio_band`, none outside its zero edges, linear in log space between."""
    band = log_ratio_band(q, measured, spread)
    err = abs(math.log(value / measured))
    full, zero = math.log(band.high / measured), math.log(band.zero_high / measured)
    if band.full(value):
        frac = 1.0
    elif value <= band.zero_low or value >= band.zero_high:
        frac = 0.0
    else:
        frac = min(1.0, max(0.0, (zero - err) / (zero - full)))
    e_err, e_full, e_zero = math.exp(err), band.high / measured, band.zero_high / measured
    if frac == 1.0:
        verdict = f"within {e_full:.2f}× → full credit"
    elif frac == 0.0:
        verdict = f"off by {e_err:.2f}×, beyond {e_zero:.2f}× → no credit"
    else:
        verdict = (
            f"off by {e_err:.2f}× (full credit within {e_full:.2f}×, none beyond {e_zero:.2f}×) → {100 * frac:.0f}%"
        )
    return Score(frac, verdict, value / measured)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class LogRatioScored(Kind):
    """A kind whose values are positive numbers on a log scale (ratios, sizes, fractions of a peak): scored
    on |log(predicted / measured)| by :func:`log_ratio_score`, its calibration band :func:`log_ratio_band`."""

    def score(self, q: Quantity, value: float | str, ref: QuantityValue) -> Score:
        assert isinstance(value, float)
        return log_ratio_score(q, value, ref.ratio, ref.log_spread)

    def band(self, q: Quantity, ref: QuantityValue) -> Band:
        return log_ratio_band(q, ref.ratio, ref.log_spread)
