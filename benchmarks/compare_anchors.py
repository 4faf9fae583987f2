"""Measure the reference's cases with the two anchor harnesses and report how ours agrees.

    python benchmarks/compare_anchors.py REFERENCE.json [--out anchors.json]

Anchors: ``triton.testing.do_bench`` (CUDA events around each call, L2 cleared between calls by zeroing
a 256 MB buffer, median) and ``torch.utils.benchmark.Timer.blocked_autorange`` (host wall time of blocks
of back-to-back calls, synchronised at block ends: dispatch overlaps the previous kernel, so for small N
it measures dispatch throughput).  Each is compared with our ``gpu_time`` (CUDA-graph replay) and our
``wall_per_call`` (events around one call).  GPU only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder.bench.chain import compile_fresh, make_chain

from autograder.records import ReferenceRun
from autograder.spec import load_spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference", type=Path)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("compare_anchors needs a CUDA device")
    import triton.testing
    from torch.utils.benchmark import Timer

    run = ReferenceRun.model_validate_json(args.reference.read_text())
    spec = load_spec(Path(__file__).resolve().parents[1] / "source" / run.assignment)
    rows = []
    pairs = sorted({(m.case.dtype, m.case.log2_n) for m in run.measurements})
    for dtype, k in pairs:
        x = torch.randn(1 << k, device="cuda", dtype=getattr(torch, dtype))
        fns = {"eager": make_chain(spec.chain), "compiled": compile_fresh(spec.chain)}
        fns["compiled"](x)
        for variant, fn in fns.items():
            ours = {
                m.method: m
                for m in run.measurements
                if m.case.dtype == dtype and m.case.log2_n == k and m.case.variant == variant
            }
            db = triton.testing.do_bench(lambda fn=fn, x=x: fn(x), warmup=25, rep=200, return_mode="median")
            t = Timer(stmt="fn(x)", globals={"fn": fn, "x": x}).blocked_autorange(min_run_time=0.3)
            row = {
                "case": f"{variant}/{dtype}/2^{k}",
                "ours_gpu_time_ms": ours["gpu_time"].stats.median,
                "ours_wall_per_call_ms": ours["wall_per_call"].stats.median,
                "ours_profiler_kernel_ms": ours["gpu_time"].profiler_kernel_ms,
                "do_bench_ms": db,
                "timer_ms": t.median * 1e3,
            }
            row["gpu_time_vs_do_bench"] = row["ours_gpu_time_ms"] / db
            row["wall_vs_do_bench"] = row["ours_wall_per_call_ms"] / db
            row["gpu_time_vs_timer"] = row["ours_gpu_time_ms"] / row["timer_ms"]
            rows.append(row)
        del x, fns
        torch.cuda.empty_cache()
    cols = ("gpu_time", "kernel", "wall/call", "do_bench", "Timer")
    hdr = f"{'case':24} " + " ".join(f"{c:>9}" for c in cols) + f" {'gt/db':>6} {'gt/T':>6}"
    print(hdr)
    for r in rows:
        print(
            f"{r['case']:24} {r['ours_gpu_time_ms']:9.4f} {r['ours_profiler_kernel_ms'] or 0:9.4f} "
            f"{r['ours_wall_per_call_ms']:9.4f} {r['do_bench_ms']:9.4f} {r['timer_ms']:9.4f} "
            f"{r['gpu_time_vs_do_bench']:6.2f} {r['gpu_time_vs_timer']:6.2f}"
        )
    if args.out:
        args.out.write_text(json.dumps({"device": run.device.model_dump(mode="json"), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
