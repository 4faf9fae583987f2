"""The GPU's clocks: read them (NVML through ctypes, no extra package) and bring them to steady state.

A GPU that has been idle sits at a low SM clock (an H200 at 345 MHz) and takes a while under load to reach
its boost clock; kernels timed meanwhile run slow, and a sweep that starts on an idle GPU disagrees with
a probe made later.  :func:`bring_to_steady` keeps the GPU busy with a matrix multiply until the SM clock
has stopped rising (or a time cap is hit) and says what it reached; the harness calls it before timing
and records the SM clock read after each measurement.  Nothing here changes a clock or a power limit:
the card is measured as it is found.

On a CPU, or where NVML cannot be loaded, every reading is ``None`` and warming up is a no-op.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass

import torch

__all__ = ["ClockState", "bring_to_steady", "sm_clock_mhz", "sm_max_clock_mhz"]

_NVML_CLOCK_SM = 1
_nvml: ctypes.CDLL | None = None
_nvml_failed = False


def _lib() -> ctypes.CDLL | None:
    global _nvml, _nvml_failed
    if _nvml is not None or _nvml_failed:
        return _nvml
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
        if lib.nvmlInit_v2() != 0:
            raise OSError("nvmlInit failed")
        _nvml = lib
    except (OSError, AttributeError):
        _nvml_failed = True
    return _nvml


def _handle(device: torch.device) -> ctypes.c_void_p | None:
    lib = _lib()
    if lib is None or device.type != "cuda":
        return None
    index = device.index if device.index is not None else torch.cuda.current_device()
    # NVML numbers GPUs by PCI order, CUDA by CUDA_DEVICE_ORDER (and CUDA_VISIBLE_DEVICES): match by UUID.
    handle = ctypes.c_void_p()
    try:
        uuid = str(torch.cuda.get_device_properties(index).uuid)
    except (AttributeError, RuntimeError):
        uuid = ""
    if uuid:
        name = uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"
        if lib.nvmlDeviceGetHandleByUUID(ctypes.c_char_p(name.encode()), ctypes.byref(handle)) == 0:
            return handle
    if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(index), ctypes.byref(handle)) == 0:
        return handle
    return None


def _clock(device: torch.device, fn: str) -> int | None:
    handle = _handle(device)
    lib = _lib()
    if handle is None or lib is None:
        return None
    mhz = ctypes.c_uint()
    if getattr(lib, fn)(handle, ctypes.c_int(_NVML_CLOCK_SM), ctypes.byref(mhz)) != 0:
        return None
    return int(mhz.value)


def sm_clock_mhz(device: torch.device) -> int | None:
    """The SM clock now (MHz), or None on a CPU / without NVML."""
    return _clock(device, "nvmlDeviceGetClockInfo")


def sm_max_clock_mhz(device: torch.device) -> int | None:
    """The SM clock's maximum (MHz), or None on a CPU / without NVML."""
    return _clock(device, "nvmlDeviceGetMaxClockInfo")


@dataclass(frozen=True)
class ClockState:
    """What warming up reached: the SM clock before and after, its maximum, and how long it took."""

    before_mhz: int | None
    after_mhz: int | None
    max_mhz: int | None
    seconds: float
    steady: bool

    def describe(self) -> str:
        if self.after_mhz is None:
            return "SM clock not readable (no NVML): warmed up without a reading"
        return (
            f"SM clock {self.before_mhz} → {self.after_mhz} MHz (max {self.max_mhz}) after {self.seconds:.1f} s of load"
            + ("" if self.steady else " — not steady within the cap")
        )


def bring_to_steady(
    device: torch.device, min_s: float = 0.5, cap_s: float = 6.0, window: int = 4, tol_mhz: int = 15
) -> ClockState:
    """Keep the GPU busy until the SM clock is steady: the last ``window`` readings (one per 20 multiplies,
    a few ms apart) lie within ``tol_mhz`` of each other after at least ``min_s`` of load, or ``cap_s`` has
    passed.

    The load is a bf16 matrix multiply chain, the kind of work that makes the GPU raise its clocks; the
    readings stay honest where NVML is missing (then it runs ``min_s`` of load and says so)."""
    if device.type != "cuda":
        return ClockState(None, None, None, 0.0, True)
    before = sm_clock_mhz(device)
    a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
    readings: list[int] = []
    t0 = time.perf_counter()
    steady = False
    while True:
        for _ in range(20):
            a = (a @ b).clamp_(-1.0, 1.0)
        torch.cuda.synchronize(device)
        elapsed = time.perf_counter() - t0
        now = sm_clock_mhz(device)
        if now is not None:
            readings.append(now)
        if elapsed >= min_s:
            if now is None:
                steady = True
                break
            last = readings[-window:]
            if len(last) == window and max(last) - min(last) <= tol_mhz:
                steady = True
                break
        if elapsed >= cap_s:
            break
    del a, b
    return ClockState(before, readings[-1] if readings else None, sm_max_clock_mhz(device), elapsed, steady)
