"""Which machine a number came from. Grading never compares numbers across fingerprints silently."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import Record

__all__ = ["DeviceFingerprint"]


class DeviceFingerprint(Record):
    """Identity and measured ceilings of one device; ``key`` is what references are stored under."""

    kind: Literal["cuda", "cpu"]
    key: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    name: str
    sm_count: int | None = None
    l2_bytes: int | None = None
    memory_bytes: int | None = None
    driver: str | None = None
    cpu_model: str | None = None
    cpu_cores: int | None = None
    torch: str
    triton: str | None = None
    cuda: str | None = None
    python: str
    copy_gbps: float = Field(gt=0, description="measured device copy bandwidth, bytes read + written")
    copy_bytes: int = Field(gt=0, description="buffer size the copy roofline was measured with")
