"""GPU probe (one process): why three of 03_roofline's 130 sweep points sat more than 5 % above a best-of-30
probe of the same case (benchmarks/results/h200-2026-12-01d: two 1.3 µs adds, +6.6 % and +9.8 %, and the
TF32 16384² multiply at SM 1,455 MHz, +7.3 %), and whether a harness change removes it.

    python benchmarks/gpu_probe_steady.py OUT.jsonl [BA]   # on the GPU machine; which parts, in order

A. Layouts: 03's smallest adds (fp32 and tf32 2^6, bf16 2^7) timed by eight independent ``gpu_time`` calls
   with the calls per sample the sweep used, with one capture per measurement (the old harness) and with
   five captures sampled one after another (``TimingPolicy.graph_layouts``, the harness since
   2026-12-02; three captures sampled in turn measured another regime, 1.61 µs); before and after a burst
   of 16384² fp32 multiplies (what preceded the misses). The spread of the eight medians is what one
   measurement can be off by.
B. Power: the TF32 16384² multiply, samples of one replay each read with the SM clock, power, temperature and
   NVML's clock-event reasons after each; with the harness's pause (idle as long as the sample was busy)
   and three times as long; after the same history as the sweep (the TF32 8192² point just before).
Every row is a JSON line, printed and appended to OUT.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch

from autograder.bench import clocks
from autograder.bench.clocks import bring_to_steady, sm_clock_mhz
from autograder.bench.timing import TimingPolicy, gpu_time, pinned_host
from autograder.spec import load_spec

DEV = torch.device("cuda")
OUT: Path


def emit(row: dict[str, Any]) -> None:
    print(json.dumps(row), flush=True)
    with OUT.open("a") as f:
        f.write(json.dumps(row) + "\n")


def nvml_state() -> dict[str, Any]:
    lib, handle = clocks._lib(), clocks._handle(DEV)
    if lib is None or handle is None:
        return {}
    mw, temp, reasons = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
    out: dict[str, Any] = {"sm_mhz": sm_clock_mhz(DEV)}
    if lib.nvmlDeviceGetPowerUsage(handle, ctypes.byref(mw)) == 0:
        out["power_w"] = round(mw.value / 1e3, 1)
    if lib.nvmlDeviceGetTemperature(handle, ctypes.c_int(0), ctypes.byref(temp)) == 0:
        out["temp_c"] = int(temp.value)
    fn = getattr(lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
        lib, "nvmlDeviceGetCurrentClocksThrottleReasons", None
    )
    if fn is not None and fn(handle, ctypes.byref(reasons)) == 0:
        # 0x4 SW power cap, 0x8 HW slowdown, 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake
        out["reasons"] = hex(reasons.value)
    return out


def burst_fp32_16384(seconds: float) -> None:
    a = torch.randn(16384, 16384, device=DEV)
    b = torch.randn(16384, 16384, device=DEV)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        torch.matmul(a, b)
        torch.cuda.synchronize()
    del a, b
    torch.cuda.empty_cache()


def part_a() -> None:
    spec = load_spec(REPO / "source" / "03_roofline")
    wl = spec.workload
    l2 = int(torch.cuda.get_device_properties(DEV).L2_cache_size)
    # the sweep's own calls per sample for these cases (h200-2026-12-01d steady check)
    cases = [({"dtype": "float32", "log2_n": 6}, 951), ({"dtype": "tf32", "log2_n": 6}, 1185),
             ({"dtype": "bfloat16", "log2_n": 7}, 1220)]
    for history in ("steady", "after 16384² fp32 burst"):
        for params, calls in cases:
            for layouts in (1, 5):
                if history != "steady":
                    burst_fp32_16384(3.0)
                else:
                    bring_to_steady(DEV)
                policy = TimingPolicy(graph_layouts=layouts)
                ctx = wl.prepare("elementwise", params)
                medians, bests = [], []
                with ctx() if ctx is not None else contextlib.nullcontext():
                    for _ in range(8):
                        x = wl.inputs(params, DEV)  # a fresh allocation each time, as a fresh process has
                        fn = wl.build("elementwise", params)
                        fn(*x)
                        with pinned_host(DEV, policy):
                            samples, _k, words = gpu_time(fn, x, policy, l2, wl.work("elementwise", params).footprint,
                                                         calls=calls)
                        medians.append(statistics.median(samples) * 1e3)
                        bests.append(min(samples) * 1e3)
                        del x, fn
                emit({"part": "A", "history": history, "case": params, "layouts": layouts, "calls": calls,
                      "medians_us": [round(m, 4) for m in medians], "best_us": round(min(bests), 4),
                      "spread_max_over_min": round(max(medians) / min(medians), 4),
                      "worst_median_over_best": round(max(medians) / min(bests), 4), "words": words,
                      **nvml_state()})


def part_b() -> None:
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        for pause in (1.0, 3.0):
            # the sweep's history: the TF32 8192² point, then this one
            a = torch.randn(8192, 8192, device=DEV)
            b = torch.randn(8192, 8192, device=DEV)
            for _ in range(40):
                torch.matmul(a, b)
            torch.cuda.synchronize()
            del a, b
            a = torch.randn(16384, 16384, device=DEV)
            b = torch.randn(16384, 16384, device=DEV)
            for _ in range(5):
                torch.matmul(a, b)
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(2):
                    torch.matmul(a, b)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            rows = []
            for _ in range(20):
                start.record()
                g.replay()
                end.record()
                end.synchronize()
                ms = start.elapsed_time(end) / 2
                rows.append({"ms": round(ms, 4), **nvml_state()})
                time.sleep(2 * ms * pause / 1e3)
            meds = [r["ms"] for r in rows]
            emit({"part": "B", "pause_factor": pause, "median_ms": round(statistics.median(meds), 4),
                  "best_ms": round(min(meds), 4), "samples": rows})
            del g, a, b
            torch.cuda.empty_cache()
            time.sleep(3.0)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False


if __name__ == "__main__":
    OUT = Path(sys.argv[1])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    parts = sys.argv[2] if len(sys.argv) > 2 else "BA"  # which parts, in order (e.g. "A")
    emit({"part": "env", "gpu": torch.cuda.get_device_name(DEV), "torch": torch.__version__, **nvml_state()})
    for part in parts:
        {"A": part_a, "B": part_b}[part]()
