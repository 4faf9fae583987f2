"""GPU probe (one process): do pauses between samples keep long kernels off the power limit, and does a
graph sized from a trial graph make tiny kernels repeatable?  Also the facts of a student-written fused
kernel (the chain relu(x*2+1)*0.5 as one Triton kernel) before a lesson asks about them.

    python benchmarks/gpu_probe_throttle.py OUT.jsonl        # on the GPU machine

A. 03_roofline's long multiplies (bf16 / fp32 4096, bf16 8192) timed with gpu_time after two histories --
   "cold" (3 s idle, then the harness's steady-clock warm-up) and "hot" (5 s of bf16 8192 multiplies just
   before) -- with the old policy (no pauses) and the new one (idle as long as each sample was busy).
B. Tiny kernels: five independent gpu_time measurements (each a new CUDA graph) of 04's and 03's smallest
   cases; the spread between them.
C. A fused Triton kernel of the chain vs eager vs torch.compile at fp16/fp32, 2^20..2^28: gpu_time, bytes
   over time against the copy roofline; a slow block size; the first call's time (JIT compile).
Every row is a JSON line, printed and appended to OUT.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch

from autograder.bench.clocks import bring_to_steady, sm_clock_mhz
from autograder.bench.fingerprint import copy_bandwidth
from autograder.bench.timing import TimingPolicy, gpu_time, pinned_host
from autograder.records import summarize
from autograder.spec import load_spec

DEV = torch.device("cuda")
OUT: Path


def emit(row: dict) -> None:
    print(json.dumps(row), flush=True)
    with OUT.open("a") as f:
        f.write(json.dumps(row) + "\n")


def timed(fn, x, policy: TimingPolicy, l2: int, ws: int) -> dict:
    with pinned_host(DEV, policy):
        s, k, _ = gpu_time(fn, x, policy, l2, ws)
    st = summarize(s)
    return {"median_ms": round(st.median, 6), "min_ms": round(min(s), 6), "iqr_rel": round(st.iqr_rel, 4),
            "n": len(s), "k": k, "sm_mhz": sm_clock_mhz(DEV)}


def heat(seconds: float) -> None:
    a = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            a @ a
        torch.cuda.synchronize()


def part_a(l2: int) -> None:
    spec = load_spec(REPO / "source" / "03_roofline")
    wl = spec.workload
    cases = [("matmul", {"dtype": "bfloat16", "log2_n": 12}), ("matmul", {"dtype": "float32", "log2_n": 12}),
             ("elementwise", {"dtype": "bfloat16", "log2_n": 12}), ("matmul", {"dtype": "bfloat16", "log2_n": 13})]
    for cooldown in (0.0, 1.0):
        pol = TimingPolicy(cooldown=cooldown)
        for history in ("cold", "hot"):
            for variant, params in cases:
                if history == "cold":
                    torch.cuda.synchronize()
                    time.sleep(3.0)
                    bring_to_steady(DEV, min_s=0.5)
                else:
                    heat(3.0)
                x = wl.inputs(params, DEV)
                fn = wl.build(variant, params)
                fn(*x)
                r = timed(fn, x, pol, l2, wl.work(variant, params).footprint)
                emit({"part": "A", "cooldown": cooldown, "history": history, "variant": variant, **params, **r})
                del fn, x


def part_b(l2: int) -> None:
    for lesson, variant, params in [
        ("04_fusion", "compiled", {"dtype": "float16", "log2_n": 12}),
        ("04_fusion", "compiled", {"dtype": "float16", "log2_n": 16}),
        ("04_fusion", "eager", {"dtype": "float16", "log2_n": 12}),
        ("04_fusion", "compiled", {"dtype": "float32", "log2_n": 16}),
        ("03_roofline", "matmul", {"dtype": "bfloat16", "log2_n": 6}),
        ("03_roofline", "elementwise", {"dtype": "bfloat16", "log2_n": 8}),
        ("03_roofline", "matmul", {"dtype": "bfloat16", "log2_n": 9}),
    ]:
        wl = load_spec(REPO / "source" / lesson).workload
        x = wl.inputs(params, DEV)
        meds = []
        for rep in range(5):
            ctx = wl.prepare(variant, params)
            if ctx is not None:
                with ctx():
                    fn = wl.build(variant, params)
                    fn(*x)
                    r = timed(fn, x, TimingPolicy(), l2, wl.work(variant, params).footprint)
            else:
                fn = wl.build(variant, params)
                fn(*x)
                r = timed(fn, x, TimingPolicy(), l2, wl.work(variant, params).footprint)
            meds.append(r["median_ms"])
            emit({"part": "B", "lesson": lesson, "variant": variant, "rep": rep, **params, **r})
        emit({"part": "B-summary", "lesson": lesson, "variant": variant, **params,
              "max_over_min": round(max(meds) / min(meds), 4)})


def part_c(l2: int, copy_gbps: float) -> None:
    import triton
    import triton.language as tl

    @triton.jit
    def chain_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.maximum(x * 2.0 + 1.0, 0.0) * 0.5
        tl.store(out_ptr + offs, y.to(x.dtype), mask=mask)

    def make(block: int):
        def fused(x):
            out = torch.empty_like(x)
            n = x.numel()
            chain_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
            return out
        return fused

    def eager(x):
        return torch.relu(x * 2.0 + 1.0) * 0.5

    t0 = time.perf_counter()
    xx = torch.randn(1 << 20, device=DEV, dtype=torch.float16)
    make(1024)(xx)
    torch.cuda.synchronize()
    emit({"part": "C", "first_call_s": round(time.perf_counter() - t0, 3), "what": "triton JIT of BLOCK=1024, fp16"})
    for dt, s in (("float16", 2), ("float32", 4)):
        for log2_n in (20, 22, 24, 26, 28):
            n = 1 << log2_n
            x = (torch.randn(n, device=DEV, dtype=getattr(torch, dt)),)
            ref = eager(*x)
            variants = {"eager": eager, "triton_1024": make(1024), "triton_4096": make(4096), "triton_32": make(32)}
            torch._dynamo.reset()
            variants["compiled"] = torch.compile(lambda t: torch.relu(t * 2.0 + 1.0) * 0.5, dynamic=False)
            for name, fn in variants.items():
                got = fn(*x)
                err = float((got.float() - ref.float()).abs().max())
                bytes_moved = (8 if name == "eager" else 2) * n * s
                r = timed(fn, x, TimingPolicy(), l2, 2 * n * s)
                gbps = bytes_moved / (r["median_ms"] * 1e-3) / 1e9
                emit({"part": "C", "variant": name, "dtype": dt, "log2_n": log2_n, "max_err": err,
                      "bytes": bytes_moved, "GBps": round(gbps, 1), "share_of_copy": round(gbps / copy_gbps, 4), **r})
            del x, ref


def main() -> None:
    global OUT
    OUT = Path(sys.argv[1])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    l2 = int(torch.cuda.get_device_properties(DEV).L2_cache_size)
    bring_to_steady(DEV, min_s=0.5)
    copy_gbps, _ = copy_bandwidth(DEV)
    emit({"part": "fingerprint", "gpu": torch.cuda.get_device_name(DEV), "copy_GBps": round(copy_gbps, 1),
          "torch": torch.__version__, "l2": l2})
    which = sys.argv[2] if len(sys.argv) > 2 else "CBA"
    for part in which:
        {"A": lambda: part_a(l2), "B": lambda: part_b(l2), "C": lambda: part_c(l2, copy_gbps)}[part]()


if __name__ == "__main__":
    main()
