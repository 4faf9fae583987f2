"""Checking `autograder bench`'s options before any measuring: a wrong option is one line, not a run."""

from __future__ import annotations

from typing import Literal

from ..errors import AutograderError
from ..spec import LessonSpec

__all__ = ["BenchUsageError", "parse_sizes"]


class BenchUsageError(AutograderError):
    """An option of `autograder bench` cannot be honoured as given; the message says what to pass."""


def parse_sizes(text: str | None, spec: LessonSpec, kind: Literal["cuda", "cpu"]) -> list[int] | None:
    """``--sizes`` as log2 sizes of this device's sweep; a size outside it would be silently skipped."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise BenchUsageError("--sizes needs comma-separated log2 sizes, e.g. --sizes 12,24")
    sizes: list[int] = []
    for p in parts:
        try:
            sizes.append(int(p))
        except ValueError:
            raise BenchUsageError(
                f"--sizes {text}: {p!r} is not a whole number; give log2 sizes such as --sizes 12,24"
            ) from None
    size = spec.workload.size_param
    known = sorted({int(c.params[size]) for c in spec.cases(kind) if size in c.params})
    unknown = [s for s in sizes if s not in known]
    if unknown:
        raise BenchUsageError(
            f"--sizes {text}: 2^{unknown[0]} is not in {spec.id}'s {kind} sweep; choose from "
            f"{','.join(map(str, known))} (the quantities' sizes are always measured)"
        )
    return sizes
