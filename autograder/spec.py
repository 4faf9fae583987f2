"""An assignment's lesson definitions, read from ``lesson.toml`` beside its notebook and workload module.

What differs between lessons lives in the lesson folder: ``lesson.toml`` (sizes to sweep, quantities and
their kinds, tolerances, which nbgrader cells grade what) and ``workload.py`` (variants, inputs, the work
model).  Adding a lesson means adding a folder; nbgrader copies both files into ``release/`` so the
student's notebook reads the very definitions the autograder grades with.

A quantity's table holds the common keys (id, title, label, kind, method, points, tolerance); every other
key is an argument of its kind (see :mod:`autograder.kinds`).
"""

from __future__ import annotations

import re
import sys
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from .errors import AutograderError, LessonSpecError
from .kinds import kind_of
from .records import Case, ParamValue, Quantity
from .records._base import Record
from .workload import Workload, grid, load_workload

__all__ = ["SPEC_FILENAME", "ExplanationSpec", "KernelCredit", "LessonSpec", "StudentVariant", "load_spec"]

SPEC_FILENAME = "lesson.toml"
DeviceKind = Literal["cuda", "cpu"]
_COMMON = {"id", "title", "label", "kind", "method", "points", "tolerance", "prompt", "unit"}


class Grid(Record):
    """One table of a sweep: every combination of the parameter lists, run by ``variants`` (default all).
    Axes named together in ``zip`` vary together (same-length lists) instead of being crossed."""

    axes: dict[str, list[ParamValue]]
    variants: list[str] | None = None
    zip: list[str] = Field(default_factory=list)


class DeviceSettings(Record):
    """How the lesson runs on one kind of device.

    ``substitute`` maps parameter values to the ones this kind of device measures instead, e.g. a CPU
    (CI, a laptop) runs a 4096 matrix multiply at 256: ``substitute = { log2_n = { "12" = 8 } }``.  The
    quantities keep their ids; every case they, the explanations and ``L.measure`` name is mapped."""

    substitute: dict[str, dict[str, ParamValue]] = Field(default_factory=dict)

    def apply(self, value: Any) -> Any:
        """``value`` (a parameter dict, or any structure holding some) with the substitutions applied."""
        if not self.substitute:
            return value
        if isinstance(value, dict):
            return {
                k: (self.substitute[k].get(str(v), v) if k in self.substitute and not isinstance(v, (dict, list))
                    else self.apply(v))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.apply(v) for v in value]
        return value


class ExplanationPart(Record):
    """One part of what an explanation cell asks (for the pre-read's suggestion): covered where the answer
    says any of ``words`` (regular expressions, matched without regard to case) or states a right figure of
    one of ``kinds`` (fact kinds: ``bytes``, ``launches``, ``ratio``, ``time``, ...). A missing part costs."""

    id: str
    asks: str = Field(description="what the part is, as the pre-read's reason names it")
    words: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _checkable(self) -> ExplanationPart:
        if not self.words and not self.kinds:
            raise ValueError(f"explanation part {self.id!r}: give words or kinds that show it is covered")
        for w in self.words:
            try:
                re.compile(w)
            except re.error as exc:
                why = f"explanation part {self.id!r}: words {w!r} is not a regular expression ({exc})"
                raise ValueError(why) from None
        return self


class ExplanationSpec(Record):
    """A manually graded explanation cell and the case whose work model it should quote."""

    grade_id: str
    points: float = Field(gt=0)
    case: dict[str, ParamValue]
    #: the parts of the asked explanation (optional): the pre-read's suggestion costs each one left out
    parts: list[ExplanationPart] = Field(default_factory=list)
    #: figures the cell's prompt states: ``"sm_count"`` (the device's), or a key of the workload's ``counted``
    #: (``"blocks"``: "one block runs on one of the SMs"): restated in an answer they are recognised as given
    #: (no credit on their own), where elsewhere they are a right figure
    gives: list[str] = Field(default_factory=list)


class KernelCredit(Record):
    """Points for the student's own kernel that no prediction earns: ``correctness`` (the hidden check
    cases pass) or ``performance`` (a quantity of a credit kind, e.g. ``roofline_share``, scored from the
    grader's measurement of the kernel alone). ``grade_id`` names the graded test cell carrying them."""

    grade_id: str
    points: float = Field(gt=0)


class StudentVariant(Record):
    """``[student_variant]``: a variant of the lesson the student writes in a graded answer cell.

    The cell defines ``entry`` (same signature as the workload's ``reference`` function); inputs come from
    the workload's ``make_inputs(case, seed, device)``; ``tolerances`` give ``[rtol, atol]`` per dtype;
    ``cases`` are timed, ``check_cases`` only checked (hidden, odd sizes too). Quantities whose cases name
    ``variant`` are predictions about the student's own kernel, scored against the grader's measurement of
    it (never against the stored reference, which does not measure it)."""

    entry: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    signature: str = Field(min_length=1, description="what the cell must define, as the student reads it")
    answer_cell: str = Field(description="grade_id of the graded answer cell holding the student's code")
    variant: str = Field(default="student", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    reference: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    make_inputs: str = Field(default="make_inputs", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    tolerances: dict[str, tuple[float, float]] = Field(min_length=1)
    cases: list[dict[str, ParamValue]] = Field(min_length=1)
    check_cases: list[dict[str, ParamValue]] = Field(min_length=1)
    #: what the released answer cell holds in place of the solution (default: a definition that raises)
    stub: str = ""
    correctness: KernelCredit | None = None
    performance: Quantity | None = None
    performance_grade_id: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> StudentVariant:
        for dtype, (rtol, atol) in self.tolerances.items():
            if not (0 <= rtol < 1 and 0 <= atol < 1):
                raise ValueError(f"tolerances.{dtype}: [rtol, atol] must each be in [0, 1), got [{rtol}, {atol}]")
        if (self.performance is None) != (self.performance_grade_id is None):
            raise ValueError("performance needs a grade_id (the graded cell carrying its points)")
        if not self.stub:
            object.__setattr__(
                self, "stub", f"def {self.entry}(*args):  # <- your code: {self.signature}\n"
                "    raise NotImplementedError()"
            )
        return self

    def credit_grade_ids(self) -> list[str]:
        """The grade ids of the kernel's own credits (correctness, performance), in that order."""
        out = [self.correctness.grade_id] if self.correctness is not None else []
        return out + ([self.performance_grade_id] if self.performance_grade_id is not None else [])

    @property
    def credit_points(self) -> float:
        return (self.correctness.points if self.correctness else 0.0) + (
            self.performance.points if self.performance else 0.0
        )


class LessonSpec(Record):
    model_config = ConfigDict(frozen=False, extra="forbid")

    id: str
    title: str
    notebook: str
    workload_file: str = "workload.py"
    #: device kinds whose students are asked about this device; shown in the notebook (optional)
    sweep: dict[DeviceKind, list[Grid]]
    quantities: list[Quantity] = Field(min_length=1)
    grade_ids: dict[str, str] = Field(description="quantity id -> grade_id of its test cell")
    explanations: list[ExplanationSpec] = Field(default_factory=list)
    devices: dict[DeviceKind, DeviceSettings] = Field(default_factory=dict)
    #: quantity id -> shown cases that reveal it besides those its kind derives it from: each a partial
    #: case (parameters, optionally ``variant``) that any shown case matching it reveals
    reveals: dict[str, list[dict[str, ParamValue]]] = Field(default_factory=dict)
    #: a variant the student writes (``[student_variant]``), graded by running it (optional)
    student_variant: StudentVariant | None = None
    folder: Path | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _consistent(self) -> LessonSpec:
        ids = [q.id for q in self.quantities]
        if len(set(ids)) != len(ids):
            raise ValueError("quantity ids must be unique")
        missing = set(ids) - set(self.grade_ids)
        if missing:
            raise ValueError(f"quantities without a grade_id: {sorted(missing)}; add each under [grade_ids]")
        unknown = set(self.grade_ids) - set(ids)
        if unknown:
            raise ValueError(f"grade_ids name unknown quantities: {sorted(unknown)}")
        gids = list(self.grade_ids.values()) + [e.grade_id for e in self.explanations]
        if self.student_variant is not None:
            gids += [self.student_variant.answer_cell, *self.student_variant.credit_grade_ids()]
        dup = sorted({g for g in gids if gids.count(g) > 1})
        if dup:
            raise ValueError(f"grade ids used twice: {dup}")
        unknown = set(self.reveals) - set(ids)
        if unknown:
            raise ValueError(f"[reveals] names unknown quantities: {sorted(unknown)}")
        return self

    def quantity(self, qid: str) -> Quantity:
        for q in self.quantities:
            if q.id == qid:
                return q
        raise LessonSpecError(
            f"{qid!r} is not a quantity of lesson {self.id}; known: {', '.join(q.id for q in self.quantities)}"
        )

    def about_student(self, q: Quantity) -> bool:
        """Whether ``q`` is a prediction about the student's own kernel (a case of the student variant):
        scored against the grader's measurement of that kernel, not the stored reference."""
        sv = self.student_variant
        return sv is not None and any(c.variant == sv.variant for c in kind_of(q).cases(q))

    @property
    def student_quantities(self) -> list[Quantity]:
        return [q for q in self.quantities if self.about_student(q)]

    @cached_property
    def workload(self) -> Workload:
        if self.folder is None:
            raise LessonSpecError(f"lesson {self.id}: no folder known, cannot load its workload")
        return load_workload(self.folder, self.workload_file, self.id)

    def for_device(self, device_kind: DeviceKind) -> LessonSpec:
        """This spec as ``device_kind`` runs it: quantities and explanations with the device's parameter
        substitutions applied (the same spec when there are none)."""
        dev = self.devices.get(device_kind)
        if dev is None or not dev.substitute:
            return self
        update: dict[str, Any] = {
            "quantities": [q.model_copy(update={"args": dev.apply(q.args)}) for q in self.quantities],
            "explanations": [e.model_copy(update={"case": dev.apply(e.case)}) for e in self.explanations],
        }
        sv = self.student_variant
        if sv is not None:
            perf = sv.performance
            update["student_variant"] = sv.model_copy(
                update={
                    "cases": dev.apply(sv.cases),
                    "performance": perf.model_copy(update={"args": dev.apply(perf.args)}) if perf else None,
                }
            )
        other = self.model_copy(update=update)
        other.__dict__.pop("workload", None)
        if "workload" in self.__dict__:
            other.__dict__["workload"] = self.__dict__["workload"]
        return other

    def substitute(self, device_kind: DeviceKind, params: dict[str, ParamValue]) -> dict[str, ParamValue]:
        dev = self.devices.get(device_kind)
        return dict(dev.apply(params)) if dev is not None else dict(params)

    def grid_cases(self, device_kind: DeviceKind, fixed: dict[str, ParamValue] | None = None) -> list[Case]:
        """The sweep's cases on this kind of device (optionally only those matching ``fixed``)."""
        out: dict[str, Case] = {}
        for g in self.sweep.get(device_kind, []):
            for params in grid(g.axes, g.zip):
                if fixed and any(params.get(k) != v for k, v in fixed.items()):
                    continue
                for v in g.variants or self.workload.variants:
                    c = Case(variant=v, params=params)
                    out[c.key] = c
        return list(out.values())

    def revealed_by(self, device_kind: DeviceKind, cases: list[Case]) -> list[Quantity]:
        """The quantities (as ``device_kind`` runs them) that showing ``cases`` reveals: every case a
        quantity's kind derives it from (:meth:`Kind.reveals`), plus the lesson's ``[reveals]``."""
        dev = self.devices.get(device_kind)
        out = []
        for q in self.for_device(device_kind).quantities:
            declared = [dev.apply(r) if dev is not None else r for r in self.reveals.get(q.id, [])]
            if kind_of(q).reveals(q, cases) or any(_matches(r, c) for r in declared for c in cases):
                out.append(q)
        return out

    def cases(self, device_kind: DeviceKind) -> list[Case]:
        """Every case the reference measures on this kind of device: the sweep plus each quantity's."""
        found = {c.key: c for c in self.grid_cases(device_kind)}
        student = self.student_variant.variant if self.student_variant is not None else None
        for q in self.for_device(device_kind).quantities:
            for c in kind_of(q).cases(q):
                if c.variant != student:  # the student's kernel is measured at grading, not by the bench
                    found[c.key] = c
        return sorted(found.values(), key=lambda c: ([_order(k, v) for k, v in c.params.items()], c.variant))

    def problems(self) -> list[str]:
        """Disagreements between lesson.toml and the workload (unknown variants or parameters)."""
        try:
            wl = self.workload
        except AutograderError as exc:
            return [str(exc)]
        out: list[str] = []
        seen = _WithStudent(wl, self.student_variant.variant) if self.student_variant is not None else wl
        for q in self.quantities:
            try:
                out += kind_of(q).problems(q, seen)  # type: ignore[arg-type]
            except AutograderError as exc:
                out.append(str(exc))
        if self.student_variant is not None:
            out += _student_problems(self.student_variant, wl)
        for kind, grids in self.sweep.items():
            for g in grids:
                if set(g.axes) != set(wl.params):
                    out.append(
                        f"sweep.{kind}: parameters {sorted(g.axes)} differ from the workload's {list(wl.params)}"
                    )
                bad = set(g.variants or []) - set(wl.variants)
                if bad:
                    out.append(f"sweep.{kind}: unknown variants {sorted(bad)}")
        for qid, partials in self.reveals.items():
            for r in partials:
                unknown = set(r) - set(wl.params) - {"variant"}
                if unknown or not r:
                    out.append(
                        f"[reveals] {qid!r}: {r} must name some of {['variant', *wl.params]}"
                        + (f" (unknown: {sorted(unknown)})" if unknown else "")
                    )
                elif r.get("variant", wl.variants[0]) not in wl.variants:
                    out.append(f"[reveals] {qid!r}: unknown variant {r['variant']!r} (the workload has {wl.variants})")
        for e in self.explanations:
            if set(e.case) != set(wl.params):
                out.append(f"explanation {e.grade_id}: case {e.case} does not set exactly {list(wl.params)}")
            can_give = ["sm_count", *getattr(wl, "counted", {})]
            for stated in e.gives:
                if stated not in can_give:
                    out.append(f"explanation {e.grade_id}: gives {stated!r}, which is none of {can_give} (the "
                               "device's SM count or a count the workload's `counted` names)")
        return out

    @property
    def max_points(self) -> float:
        kernel = self.student_variant.credit_points if self.student_variant is not None else 0.0
        return sum(q.points for q in self.quantities) + sum(e.points for e in self.explanations) + kernel


class _WithStudent:
    """A workload as quantities about the student's kernel see it: its variants and the student's."""

    def __init__(self, wl: Workload, student: str) -> None:
        self.variants = (*wl.variants, student)
        self.params = wl.params


def _student_problems(sv: StudentVariant, wl: Workload) -> list[str]:
    """What ``[student_variant]`` names that the workload lacks (functions, parameters, dtypes)."""
    out = [
        f"[student_variant] {what} = {name!r}: the workload module defines no such function"
        for what, name in (("reference", sv.reference), ("make_inputs", sv.make_inputs))
        if not callable(getattr(wl, name, None)) and not callable(getattr(_module_of(wl), name, None))
    ]
    if sv.variant in wl.variants:
        out.append(f"[student_variant] variant {sv.variant!r} is also a workload variant: name it apart")
    for where, cases in (("cases", sv.cases), ("check_cases", sv.check_cases)):
        for c in cases:
            unknown = set(c) - set(wl.params) - {"n"}
            if unknown:
                out.append(f"[student_variant] {where}: {c} names unknown parameters {sorted(unknown)}")
            dtype = c.get("dtype")
            if isinstance(dtype, str) and dtype not in sv.tolerances:
                out.append(f"[student_variant] {where}: dtype {dtype!r} has no tolerances entry")
    if sv.performance is not None:
        try:
                kind_of(sv.performance).args(sv.performance)
        except AutograderError as exc:
            out.append(f"[student_variant] performance: {exc}")
    return out


def _module_of(wl: Workload) -> Any:
    return sys.modules.get(type(wl).__module__)


def _matches(partial: dict[str, ParamValue], case: Case) -> bool:
    """Whether ``case`` is one that a ``[reveals]`` entry (some parameters, optionally a variant) names."""
    return all(case.variant == v if k == "variant" else case.params.get(k) == v for k, v in partial.items())


def _order(name: str, value: ParamValue) -> tuple[str, int, float, str]:
    return (name, 0, float(value), "") if isinstance(value, (int, float)) else (name, 1, 0.0, str(value))


def _quantity(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        **{k: v for k, v in raw.items() if k in _COMMON},
        "args": {k: v for k, v in raw.items() if k not in _COMMON},
    }


def _grids(raw: Any) -> list[dict[str, Any]]:
    tables = raw if isinstance(raw, list) else [raw]
    out = []
    for table in tables:
        axes = dict(table)
        variants = axes.pop("variants", None)
        zipped = axes.pop("zip", [])
        out.append({"axes": axes, "variants": variants, "zip": zipped})
    return out


def load_spec(path: str | Path) -> LessonSpec:
    """Read a lesson spec from a ``lesson.toml`` file or the folder that holds one."""
    p = Path(path)
    if p.is_dir():
        p = p / SPEC_FILENAME
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LessonSpecError(f"no {SPEC_FILENAME} at {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LessonSpecError(f"{p}: not valid TOML: {exc}") from None
    try:
        raw["quantities"] = [_quantity(q) for q in raw.get("quantities", [])]
        raw["sweep"] = {k: _grids(v) for k, v in raw.get("sweep", {}).items()}
        if isinstance(raw.get("student_variant"), dict):
            raw["student_variant"] = _student_variant(raw["student_variant"])
        spec = LessonSpec.model_validate({**raw, "folder": p.parent})
    except ValidationError as exc:
        raise LessonSpecError(f"{p}: {_one_line(exc)}") from None
    except (TypeError, AttributeError) as exc:
        raise LessonSpecError(f"{p}: {exc}") from None
    for q in spec.quantities:
        kind_of(q).args(q)
    if spec.student_variant is not None and spec.student_variant.performance is not None:
        kind_of(spec.student_variant.performance).args(spec.student_variant.performance)
    return spec


def _student_variant(raw: dict[str, Any]) -> dict[str, Any]:
    """``[student_variant]`` as the model reads it: its performance table split into a quantity (common
    keys) and the kind's arguments, its grade id set apart."""
    out = dict(raw)
    perf = out.get("performance")
    if isinstance(perf, dict):
        perf = dict(perf)
        out["performance_grade_id"] = perf.pop("grade_id", None)
        perf.setdefault("id", "kernel_performance")
        perf.setdefault("title", "the share of the copy roofline your kernel reaches")
        out["performance"] = _quantity(perf)
    return out


def _one_line(exc: ValidationError) -> str:
    """A validation error of lesson.toml as one line: where, and what is wrong (no pydantic boilerplate)."""
    first = exc.errors()[0]
    loc = ".".join(str(x) for x in first["loc"])
    msg = str(first["msg"]).removeprefix("Value error, ")
    more = f" (and {exc.error_count() - 1} more: `autograder lint` lists them)" if exc.error_count() > 1 else ""
    return f"{loc + ': ' if loc else ''}{msg}{more}"
