"""An assignment's lesson-specific definitions, read from ``lesson.toml`` beside its notebook.

Everything that differs between lessons (the chain, sizes, dtypes, quantities, tolerances, which
nbgrader cells grade what) lives in that one file, so adding a lesson means adding a folder.
The same file travels into ``release/`` so the student's notebook reads the very definitions the
autograder grades with.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from .errors import LessonSpecError
from .records import Case, DType, Quantity
from .records._base import Record

__all__ = ["SPEC_FILENAME", "ChainOp", "ExplanationSpec", "LessonSpec", "Sweep", "load_spec"]

SPEC_FILENAME = "lesson.toml"


class ChainOp(Record):
    """One elementwise op of the chain: ``mul``/``add`` take a scalar, ``relu`` none."""

    op: Literal["mul", "add", "relu"]
    arg: float | None = None

    @model_validator(mode="after")
    def _arity(self) -> ChainOp:
        if (self.op == "relu") != (self.arg is None):
            raise ValueError(f"op {self.op!r} {'takes no' if self.op == 'relu' else 'needs a'} scalar")
        return self

    def expr(self, inner: str) -> str:
        if self.op == "relu":
            return f"relu({inner})"
        sym = "*" if self.op == "mul" else "+"
        return f"{inner} {sym} {self.arg:g}"


class Sweep(Record):
    dtypes: list[DType] = Field(min_length=1)
    log2_sizes: list[int] = Field(min_length=1)


class ExplanationSpec(Record):
    """A manually graded explanation cell and the case whose traffic model it should quote."""

    grade_id: str
    points: float = Field(gt=0)
    dtype: DType
    log2_n: int


class LessonSpec(Record):
    id: str
    title: str
    notebook: str
    chain: list[ChainOp] = Field(min_length=1)
    sweep: dict[Literal["cuda", "cpu"], Sweep]
    quantities: list[Quantity] = Field(min_length=1)
    grade_ids: dict[str, str] = Field(description="quantity id -> grade_id of its test cell")
    explanations: list[ExplanationSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> LessonSpec:
        ids = [q.id for q in self.quantities]
        if len(set(ids)) != len(ids):
            raise ValueError("quantity ids must be unique")
        missing = set(ids) - set(self.grade_ids)
        if missing:
            raise ValueError(f"quantities without a grade_id: {sorted(missing)}")
        unknown = set(self.grade_ids) - set(ids)
        if unknown:
            raise ValueError(f"grade_ids name unknown quantities: {sorted(unknown)}")
        return self

    def quantity(self, qid: str) -> Quantity:
        for q in self.quantities:
            if q.id == qid:
                return q
        raise LessonSpecError(
            f"{qid!r} is not a quantity of lesson {self.id}; known: {', '.join(q.id for q in self.quantities)}"
        )

    def expression(self) -> str:
        expr = "x"
        for op in self.chain:
            expr = op.expr(expr)
        return expr

    def cases(self, device_kind: Literal["cuda", "cpu"]) -> list[Case]:
        """Every case the reference measures on this kind of device: the sweep plus each quantity's."""
        sweep = self.sweep[device_kind]
        found: dict[str, Case] = {}
        for dtype in sweep.dtypes:
            for k in sweep.log2_sizes:
                for variant in ("eager", "compiled"):
                    c = Case(variant=variant, dtype=dtype, log2_n=k)
                    found[c.key] = c
        for q in self.quantities:
            for c in q.cases():
                found[c.key] = c
        return sorted(found.values(), key=lambda c: (c.dtype, c.log2_n, c.variant))

    @property
    def max_points(self) -> float:
        return sum(q.points for q in self.quantities) + sum(e.points for e in self.explanations)


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
        raw["chain"] = [
            {"op": op[0], "arg": op[1] if len(op) > 1 else None} for op in raw.get("chain", {}).get("ops", [])
        ]
        return LessonSpec.model_validate(raw)
    except (ValidationError, TypeError, IndexError) as exc:
        raise LessonSpecError(f"{p}: {exc}") from None
