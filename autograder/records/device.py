"""Which machine a number came from. Grading never compares numbers across fingerprints silently."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import Record

__all__ = ["DeviceFingerprint"]


class DeviceFingerprint(Record):
    """Identity and measured ceilings of one device; ``key`` is what references are stored under.

    Per-call wall timings are mostly host-side dispatch, so a GPU run records its host too (CPU model,
    cores) and what moves kernel time (SM clocks, power limit); every field added after the first
    stored references is optional so that those still load.
    """

    kind: Literal["cuda", "cpu"]
    key: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    name: str
    sm_count: int | None = None
    l2_bytes: int | None = None
    memory_bytes: int | None = None
    driver: str | None = None
    cpu_model: str | None = None
    cpu_cores: int | None = None
    host: str | None = Field(default=None, description="host name: tells machines of one model apart")
    sm_clock_mhz: float | None = Field(default=None, description="SM clock when fingerprinted (nvidia-smi)")
    sm_clock_max_mhz: float | None = Field(default=None, description="maximum SM clock (nvidia-smi)")
    mem_clock_max_mhz: float | None = Field(default=None, description="maximum memory clock (nvidia-smi)")
    power_limit_w: float | None = Field(default=None, description="enforced power limit (nvidia-smi)")
    torch: str
    triton: str | None = None
    cuda: str | None = None
    python: str
    copy_gbps: float = Field(gt=0, description="measured device copy bandwidth, bytes read + written")
    copy_bytes: int = Field(gt=0, description="buffer size the copy roofline was measured with")
    peaks: dict[str, float] = Field(
        default_factory=dict,
        description="measured ceilings the quantity kinds need: 'copy_gbps', 'matmul_tflops:<dtype>'",
    )
