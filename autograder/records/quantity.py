"""What a lesson measures and students predict, in terms the framework knows without knowing the lesson.

A :class:`Case` is one point of a lesson's parameter space (its workload decides what the parameters
mean) run by one variant.  A :class:`Quantity` names a *kind* (ratio, direction, fraction of a peak,
crossover, count: :mod:`autograder.kinds`) and the kind's arguments; the kind derives its value from
measurements, checks and scores a student's value and says it in words.  A quantity names its case
completely (parameters and timing method) because on an H200 one chain's per-call wall speedup can be 1x
while its GPU-time speedup is 4x: "the speedup" alone is ambiguous.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ._base import Record

__all__ = [
    "DIRECTIONS",
    "Case",
    "Method",
    "ParamValue",
    "Quantity",
    "Tolerance",
    "render_params",
    "short_dtype",
]

Method = Literal["wall_per_call", "gpu_time"]
ParamValue = int | float | str
DIRECTIONS = ("higher", "lower", "same")

_SHORT = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64", "tf32": "tf32"}


def short_dtype(name: str) -> str:
    """fp16 for float16: how GPU people write a dtype in a table or a quantity id."""
    return _SHORT.get(name, name)


def _render(name: str, value: ParamValue, short: bool) -> str:
    if name == "dtype" and isinstance(value, str):
        return short_dtype(value) if short else value
    if name == "log2_n":
        return f"2^{value}"
    if name.startswith("log2_"):
        return f"{name[5:]}=2^{value}"
    return f"{name}={value}"


def render_params(params: dict[str, ParamValue], short: bool = True, sep: str = "/") -> str:
    """Parameters in words, in the canonical (sorted) order: ``fp16/2^24``, ``float16, rows=2^8``."""
    return sep.join(_render(k, params[k], short) for k in sorted(params))


class Case(Record):
    """One benchmarked configuration: a variant of the lesson's workload at one point of its parameters."""

    variant: str = Field(min_length=1)
    params: dict[str, ParamValue]

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """References stored before lessons were plug-ins hold ``{variant, dtype, log2_n}``."""
        if isinstance(data, dict) and "params" not in data and "variant" in data:
            params = {k: v for k, v in data.items() if k != "variant"}
            return {"variant": data["variant"], "params": params}
        return data

    @field_validator("params")
    @classmethod
    def _canonical(cls, v: dict[str, ParamValue]) -> dict[str, ParamValue]:
        return {k: v[k] for k in sorted(v)}

    @property
    def key(self) -> str:
        return f"{self.variant}/{render_params(self.params)}"

    def at(self, **changes: ParamValue) -> Case:
        """The same case with some parameters (or the variant, as ``variant=``) changed."""
        variant = str(changes.pop("variant", self.variant))
        return Case(variant=variant, params={**self.params, **changes})


class Tolerance(Record):
    """How close is close enough.

    Ratio-like kinds score on |log(predicted/measured)|: full credit within ``full_factor``, none beyond
    ``zero_factor``, linear in log space between.  Directions use ``dead_band``: a relative change smaller
    than it counts as "same".  Counts use ``abs_full``/``abs_zero`` (absolute difference).  All are widened
    by the reference's own measured spread at grading time.
    """

    full_factor: float = Field(default=1.3, gt=1.0)
    zero_factor: float = Field(default=3.0, gt=1.0)
    dead_band: float = Field(default=0.10, ge=0.0, lt=1.0)
    abs_full: float = Field(default=0.0, ge=0.0)
    abs_zero: float = Field(default=2.0, gt=0.0)

    @model_validator(mode="after")
    def _ordered(self) -> Tolerance:
        if self.zero_factor <= self.full_factor:
            raise ValueError(f"zero_factor ({self.zero_factor}) must be larger than full_factor ({self.full_factor})")
        if self.abs_zero <= self.abs_full:
            raise ValueError(f"abs_zero ({self.abs_zero}) must be larger than abs_full ({self.abs_full})")
        return self

    @property
    def full_log(self) -> float:
        return math.log(self.full_factor)

    @property
    def zero_log(self) -> float:
        return math.log(self.zero_factor)


class Quantity(Record):
    """A predictable, measurable number (or direction) of one lesson.

    ``kind`` names an entry of the kinds registry; ``args`` are that kind's own arguments (validated by it
    when the lesson is loaded).  ``label`` is the short noun phrase every sentence a student reads uses.
    """

    id: str = Field(min_length=1, max_length=120)
    title: str
    label: str = ""
    kind: str
    method: Method = "gpu_time"
    points: float = Field(default=2.0, gt=0)
    tolerance: Tolerance = Tolerance()
    args: dict[str, Any] = Field(default_factory=dict)
    #: what the student is asked to write, in words (default: the kind's, e.g. "the speedup as a factor"):
    #: "the slowdown as a factor (time of one variant ÷ the other's), e.g. 2"
    prompt: str = ""
    #: the words after a value in every sentence, where the kind has some (peak_fraction: "of the copy
    #: roofline"; default from its peak)
    unit: str = ""

    @field_validator("id")
    @classmethod
    def _no_spaces(cls, v: str) -> str:
        if any(ch.isspace() for ch in v):
            raise ValueError(f"quantity id {v!r} must not contain whitespace")
        return v
