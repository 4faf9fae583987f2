"""Identify the device and measure its ceilings (copy bandwidth, dense matmul FLOP/s per dtype).

A GPU's per-call wall timings are mostly host-side dispatch and its kernel times follow its clocks and
power limit, so the fingerprint records the host CPU, the clocks and the power limit (read-only
nvidia-smi queries) next to the software versions.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import time
from collections.abc import Callable

import torch

from ..errors import BenchmarkError
from ..records import DeviceFingerprint, summarize
from .clocks import bring_to_steady
from .device_keys import device_key  # pure: graders read device claims without torch

__all__ = [
    "DeviceChoiceError",
    "copy_bandwidth",
    "cpu_model",
    "device_key",
    "fingerprint",
    "matmul_tflops",
    "measure_peaks",
    "pick_device",
]

#: peaks[...] names of the matmul ceilings; "tf32" is float32 inputs with TF32 tensor cores allowed.
MATMUL_DTYPES_CUDA = ("bfloat16", "float16", "float32", "tf32")
MATMUL_DTYPES_CPU = ("float32", "bfloat16")


class DeviceChoiceError(BenchmarkError):
    """The requested device does not exist here (no CUDA, unknown type, index out of range)."""


def pick_device(requested: str | None = None) -> torch.device:
    """The device a reference is measured on: CUDA when present, else CPU (or what was asked for)."""
    if not requested:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(requested)
    except (RuntimeError, ValueError):
        raise DeviceChoiceError(f"unknown device {requested!r}: use cuda, cuda:N or cpu") from None
    if dev.type not in ("cuda", "cpu"):
        raise DeviceChoiceError(f"device {requested!r} is not supported: use cuda, cuda:N or cpu")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceChoiceError(
                f"--device {requested}: CUDA is not available on this machine; run on a GPU machine or use --device cpu"
            )
        count = torch.cuda.device_count()
        if dev.index is not None and dev.index >= count:
            raise DeviceChoiceError(
                f"--device {requested}: this machine has {count} GPU(s), cuda:0 to cuda:{count - 1}"
            )
    return dev


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


_SMI_FIELDS = ("uuid", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.max.mem", "power.limit")


def _nvidia_smi(uuid: str | None, index: int) -> dict[str, str]:
    """Read-only query of this GPU's driver, clocks and power limit; {} where nvidia-smi is unusable."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return {}
    try:
        out = subprocess.run(
            [exe, f"--query-gpu={','.join(_SMI_FIELDS)}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    rows = [dict(zip(_SMI_FIELDS, (c.strip() for c in line.split(",")), strict=False)) for line in out.splitlines()]
    rows = [r for r in rows if len(r) == len(_SMI_FIELDS)]
    if uuid:
        mine = [r for r in rows if r["uuid"].removeprefix("GPU-") == uuid.removeprefix("GPU-")]
        if mine:
            return mine[0]
    return rows[index] if 0 <= index < len(rows) else {}


def _number(text: str | None) -> float | None:
    try:
        v = float(text) if text is not None else None
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None
    return v if v is not None and v > 0 else None


def _median_ms(device: torch.device, fn: Callable[[], object], reps: int) -> float:
    """Median milliseconds of ``fn`` after one warm-up call: CUDA events on a GPU, perf_counter on a CPU."""
    fn()
    samples: list[float] = []
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(reps):
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
    else:
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
    return summarize(samples).median


def copy_bandwidth(device: torch.device, nbytes: int | None = None, reps: int = 15) -> tuple[float, int]:
    """Median GB/s of a device-to-device copy, counting bytes read + written, and the buffer size."""
    if nbytes is None:
        if device.type == "cuda":
            free, _ = torch.cuda.mem_get_info(device)
            nbytes = min(1 << 30, free // 4)
        else:
            nbytes = 256 << 20
    src = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    for _ in range(2):
        dst.copy_(src)
    ms = _median_ms(device, lambda: dst.copy_(src), reps if device.type == "cuda" else max(5, reps // 3))
    return 2 * nbytes / (ms * 1e-3) / 1e9, nbytes


def matmul_tflops(device: torch.device, dtype: str, n: int | None = None, reps: int = 10) -> float:
    """Dense square matmul TFLOP/s (2·n³ per call) for ``dtype`` ('tf32': float32 with TF32 allowed).

    On a GPU: n = 8192, random inputs, CUDA events, median of ``reps`` after warm-up.  On a CPU the size
    doubles from 256 while a call stays under a few ms (bfloat16 can be 50x slower than float32 on a CPU
    without native support), so the whole CPU fingerprint stays within a few seconds.
    """
    tf32 = dtype == "tf32"
    torch_dtype = getattr(torch, "float32" if tf32 else dtype)
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        if device.type == "cuda":
            n = n or 8192
            a = torch.randn(n, n, device=device, dtype=torch_dtype)
            b = torch.randn(n, n, device=device, dtype=torch_dtype)
            for _ in range(2):
                torch.matmul(a, b)
            ms = _median_ms(device, lambda: torch.matmul(a, b), reps)
        else:
            n = n or 256
            while True:
                a = torch.randn(n, n, dtype=torch_dtype)
                b = torch.randn(n, n, dtype=torch_dtype)
                ms = _median_ms(device, lambda: torch.matmul(a, b), 3)  # noqa: B023 (called right here)
                if ms > 4.0 or n >= 1024:
                    break
                n *= 2
            if ms < 20.0:
                ms = _median_ms(device, lambda: torch.matmul(a, b), 10)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    return 2 * n**3 / (ms * 1e-3) / 1e12


def measure_peaks(device: torch.device, copy_gbps: float) -> dict[str, float]:
    """The ceilings the lessons' quantity kinds compare against, by name."""
    peaks = {"copy_gbps": round(copy_gbps, 2)}
    for dt in MATMUL_DTYPES_CUDA if device.type == "cuda" else MATMUL_DTYPES_CPU:
        peaks[f"matmul_tflops:{dt}"] = float(f"{matmul_tflops(device, dt):.4g}")
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return peaks


def fingerprint(device: torch.device) -> DeviceFingerprint:
    """The device, its software and its measured ceilings (the GPU brought to steady clocks first: an idle
    H200 starts at 345 MHz, and a peak measured on the way up is low)."""
    bring_to_steady(device)
    gbps, nbytes = copy_bandwidth(device)
    peaks = measure_peaks(device, gbps)
    try:
        import triton

        triton_version: str | None = triton.__version__
    except ImportError:
        triton_version = None
    model = cpu_model()
    common = dict(
        torch=torch.__version__,
        triton=triton_version,
        python=platform.python_version(),
        copy_gbps=round(gbps, 2),
        copy_bytes=nbytes,
        peaks=peaks,
        cpu_model=model,
        cpu_cores=os.cpu_count(),
        host=platform.node() or None,
    )
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        uuid = str(getattr(p, "uuid", "") or "") or None
        smi = _nvidia_smi(uuid, device.index if device.index is not None else torch.cuda.current_device())
        return DeviceFingerprint(
            kind="cuda",
            key=device_key(p.name, "cuda"),
            name=p.name,
            sm_count=p.multi_processor_count,
            l2_bytes=int(getattr(p, "L2_cache_size", 0)) or None,
            memory_bytes=p.total_memory,
            driver=smi.get("driver_version") or None,
            cuda=torch.version.cuda,
            sm_clock_mhz=_number(smi.get("clocks.sm")),
            sm_clock_max_mhz=_number(smi.get("clocks.max.sm")),
            mem_clock_max_mhz=_number(smi.get("clocks.max.mem")),
            power_limit_w=_number(smi.get("power.limit")),
            **common,  # type: ignore[arg-type]
        )
    return DeviceFingerprint(
        kind="cpu",
        key="cpu",
        name=model,
        memory_bytes=os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
        **common,  # type: ignore[arg-type]
    )
