"""The traffic model: bytes and kernel launches a case must cost, computed from the case itself.

An unfused elementwise chain of k ops launches k kernels, each reading one tensor and writing one
(2*k*N*s bytes); the fused chain reads the input once and writes the output once (2*N*s bytes).
Explanations are checked against these numbers and the reference's achieved bandwidth is derived from
them, so they are never typed in by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import Case, DType

__all__ = ["DTYPE_BYTES", "Traffic", "traffic"]

DTYPE_BYTES: dict[DType, int] = {"float16": 2, "bfloat16": 2, "float32": 4}


@dataclass(frozen=True)
class Traffic:
    bytes_moved: int
    launches: int
    input_bytes: int

    @property
    def working_set(self) -> int:
        """Bytes one call touches (inputs + outputs + intermediates alive at once)."""
        return self.bytes_moved if self.launches == 1 else 3 * self.input_bytes


def traffic(case: Case, n_ops: int) -> Traffic:
    """Bytes read + written and kernels launched by one call of an ``n_ops``-long elementwise chain."""
    if n_ops < 1:
        raise ValueError("a chain has at least one op")
    s = DTYPE_BYTES[case.dtype]
    passes = n_ops if case.variant == "eager" else 1
    return Traffic(bytes_moved=2 * passes * case.n * s, launches=passes, input_bytes=case.n * s)
