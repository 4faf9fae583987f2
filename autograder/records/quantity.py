"""What a lesson measures and students predict.

A Quantity names its case completely (dtype, size, timing method) because on an H200 the per-call wall
speedup at 2^24 fp16 is about 1x while the GPU-time speedup is about 4x: "the speedup" alone is ambiguous.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import Record

__all__ = ["DIRECTIONS", "Case", "DType", "Method", "Quantity", "Tolerance", "Variant"]

DType = Literal["float16", "bfloat16", "float32"]
Method = Literal["wall_per_call", "gpu_time"]
Variant = Literal["eager", "compiled"]
DIRECTIONS = ("higher", "lower", "same")

_SHORT = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32"}


class Case(Record):
    """One benchmarked configuration: a variant of the chain, a dtype and a size (2^log2_n elements)."""

    variant: Variant
    dtype: DType
    log2_n: int = Field(ge=0, le=34)

    @property
    def n(self) -> int:
        return 1 << self.log2_n

    @property
    def key(self) -> str:
        return f"{self.variant}/{_SHORT[self.dtype]}/2^{self.log2_n}"


class Tolerance(Record):
    """How close is close enough.

    Ratios are scored on |log(predicted/measured)|: full credit within ``full_factor``, none beyond
    ``zero_factor``, linear in log-space between.  Directions use ``dead_band``: a relative change smaller
    than it counts as "same".  Both are widened by the reference's own measured spread at grading time.
    """

    full_factor: float = Field(default=1.3, gt=1.0)
    zero_factor: float = Field(default=3.0, gt=1.0)
    dead_band: float = Field(default=0.10, ge=0.0, lt=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> Tolerance:
        if self.zero_factor <= self.full_factor:
            raise ValueError(f"zero_factor ({self.zero_factor}) must be larger than full_factor ({self.full_factor})")
        return self

    @property
    def full_log(self) -> float:
        return math.log(self.full_factor)

    @property
    def zero_log(self) -> float:
        return math.log(self.zero_factor)


class Quantity(Record):
    """A predictable, measurable number (or direction) of one lesson.

    ``speedup``: eager time / compiled time for (dtype, log2_n, method).
    ``direction``: whether that speedup is higher, lower or the same as the one at ``baseline_dtype``.
    """

    id: str = Field(min_length=1, max_length=120)
    title: str
    kind: Literal["speedup", "direction"]
    dtype: DType
    log2_n: int = Field(ge=0, le=34)
    method: Method
    baseline_dtype: DType | None = None
    points: float = Field(default=2.0, gt=0)
    tolerance: Tolerance = Tolerance()

    @field_validator("id")
    @classmethod
    def _no_spaces(cls, v: str) -> str:
        if any(ch.isspace() for ch in v):
            raise ValueError(f"quantity id {v!r} must not contain whitespace")
        return v

    @model_validator(mode="after")
    def _direction_has_baseline(self) -> Quantity:
        if self.kind == "direction" and self.baseline_dtype is None:
            raise ValueError(f"direction quantity {self.id!r} needs a baseline_dtype")
        if self.kind == "speedup" and self.baseline_dtype is not None:
            raise ValueError(f"speedup quantity {self.id!r} takes no baseline_dtype")
        return self

    @property
    def unit(self) -> str:
        return "x" if self.kind == "speedup" else "direction"

    def cases(self) -> list[Case]:
        """The benchmark cases whose timings determine this quantity."""
        dtypes = [self.dtype] + ([self.baseline_dtype] if self.baseline_dtype else [])
        return [Case(variant=v, dtype=d, log2_n=self.log2_n) for d in dtypes for v in ("eager", "compiled")]

    def describe(self) -> str:
        """Human description used in every sentence a student reads."""
        size = f"2^{self.log2_n}"
        if self.kind == "speedup":
            return f"fused speedup ({self.method}, {_SHORT[self.dtype]}, {size})"
        assert self.baseline_dtype is not None
        return f"{_SHORT[self.dtype]} vs {_SHORT[self.baseline_dtype]} fused speedup ({self.method}, {size})"
