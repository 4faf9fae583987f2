"""Identify the device and measure its copy roofline (bytes read + written per second)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import time

import torch

from ..records import DeviceFingerprint, summarize

__all__ = ["copy_bandwidth", "device_key", "fingerprint", "pick_device"]


def pick_device(requested: str | None = None) -> torch.device:
    """The device a reference is measured on: CUDA when present, else CPU (or what was asked for)."""
    if requested:
        return torch.device(requested)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def device_key(name: str, kind: str) -> str:
    """Stable storage key: 'nvidia-h200' for a GPU; every CPU shares 'cpu' (its model is in the record)."""
    if kind == "cpu":
        return "cpu"
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "cuda"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _driver() -> str | None:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run(
            [exe, "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


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
    for _ in range(3):
        dst.copy_(src)
    samples: list[float] = []
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(reps):
            start.record()
            dst.copy_(src)
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
    else:
        for _ in range(max(5, reps // 3)):
            t0 = time.perf_counter()
            dst.copy_(src)
            samples.append((time.perf_counter() - t0) * 1e3)
    ms = summarize(samples).median
    return 2 * nbytes / (ms * 1e-3) / 1e9, nbytes


def fingerprint(device: torch.device) -> DeviceFingerprint:
    gbps, nbytes = copy_bandwidth(device)
    try:
        import triton

        triton_version: str | None = triton.__version__
    except ImportError:
        triton_version = None
    common = dict(
        torch=torch.__version__,
        triton=triton_version,
        python=platform.python_version(),
        copy_gbps=round(gbps, 2),
        copy_bytes=nbytes,
    )
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        return DeviceFingerprint(
            kind="cuda",
            key=device_key(p.name, "cuda"),
            name=p.name,
            sm_count=p.multi_processor_count,
            l2_bytes=int(getattr(p, "L2_cache_size", 0)) or None,
            memory_bytes=p.total_memory,
            driver=_driver(),
            cuda=torch.version.cuda,
            **common,  # type: ignore[arg-type]
        )
    model = _cpu_model()
    return DeviceFingerprint(
        kind="cpu",
        key="cpu",
        name=model,
        cpu_model=model,
        cpu_cores=os.cpu_count(),
        memory_bytes=os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
        **common,  # type: ignore[arg-type]
    )
