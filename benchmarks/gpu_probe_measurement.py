"""Probe: why do the reference run and the student's notebook time the same case differently?

    python benchmarks/gpu_probe_measurement.py OUTDIR          # on the GPU machine (wheels on PYTHONPATH)

Each scenario runs in a fresh interpreter and times 04_fusion at float16 2^24 (both variants, both
methods) through the one harness, after a different history in the same process:
  alone        nothing before it
  progress     a rich progress bar live while timing (as `autograder bench` shows one)
  fingerprint  the device fingerprint (copy roofline, matmul peaks) first
  sweep        the whole reference sweep first (`run_reference`), the case read from it
  steady       the GPU brought to steady clocks first (autograder.bench.clocks)
Then, for 03_roofline's matrix multiplies, the harness's gpu_time against a best-of-N probe of the same
case in the same process, with the SM clock read around each.  Everything prints as JSON lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CASE = {"dtype": "float16", "log2_n": 24}


def _summary(ms: list) -> dict:
    out = {}
    for m in ms:
        if m.case.params.get("dtype") == CASE["dtype"] and m.case.params.get("log2_n") == CASE["log2_n"]:
            out[f"{m.case.variant}/{m.method}"] = round(m.median_ms * 1e3, 2)
    for method in ("wall_per_call", "gpu_time"):
        e, c = out.get(f"eager/{method}"), out.get(f"compiled/{method}")
        if e and c:
            out[f"speedup/{method}"] = round(e / c, 3)
    return out


def scenario(name: str) -> None:
    import torch

    from autograder.bench.clocks import bring_to_steady, sm_clock_mhz
    from autograder.bench.harness import Harness
    from autograder.spec import load_spec

    dev = torch.device("cuda")
    spec = load_spec(REPO / "source" / "04_fusion")
    l2 = int(torch.cuda.get_device_properties(dev).L2_cache_size)
    h = Harness(device=dev, l2_bytes=l2)
    clock0 = sm_clock_mhz(dev)
    extra: dict = {}
    if name == "fingerprint":
        from autograder.bench.fingerprint import fingerprint

        fingerprint(dev)
    if name == "steady":
        extra["clocks"] = bring_to_steady(dev).describe()
    if name == "sweep":
        from autograder.bench.runner import run_reference

        run = run_reference(spec, dev)
        extra["from_sweep"] = _summary(run.measurements)
    if name == "progress":
        from rich.progress import Progress

        with Progress() as bar:
            bar.add_task("x", total=None)
            ms = h.measure(spec.workload, CASE)
    else:
        ms = h.measure(spec.workload, CASE)
    print(json.dumps({"scenario": name, "clock_before": clock0, "clock_after": sm_clock_mhz(dev),
                      **_summary(ms), **extra}), flush=True)


def roofline() -> None:
    import torch

    from autograder.bench.clocks import bring_to_steady, sm_clock_mhz
    from autograder.bench.harness import Harness
    from autograder.spec import load_spec

    dev = torch.device("cuda")
    spec = load_spec(REPO / "source" / "03_roofline")
    l2 = int(torch.cuda.get_device_properties(dev).L2_cache_size)
    print(json.dumps({"probe": "clock_idle", "mhz": sm_clock_mhz(dev)}), flush=True)
    traj = []
    a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        for _ in range(20):
            a = (a @ a).clamp_(-1, 1)
        torch.cuda.synchronize()
        traj.append((round(time.perf_counter() - t0, 2), sm_clock_mhz(dev)))
    print(json.dumps({"probe": "clock_under_load", "trajectory": traj[::4]}), flush=True)
    print(json.dumps({"probe": "steady", "state": bring_to_steady(dev).describe()}), flush=True)
    h = Harness(device=dev, l2_bytes=l2)
    for dtype, k in (("bfloat16", 9), ("bfloat16", 12), ("bfloat16", 13), ("tf32", 12), ("float32", 12)):
        params = {"dtype": dtype, "log2_n": k}
        try:
            ms = h.measure(spec.workload, params, ["matmul"], methods=("gpu_time",))
        except Exception as exc:  # the probe reports and goes on
            print(json.dumps({"probe": "roofline", "params": params, "error": repr(exc)}), flush=True)
            continue
        m = ms[0]
        ctx = spec.workload.prepare("matmul", params)
        import contextlib

        x = spec.workload.inputs(params, dev)
        with ctx() if ctx is not None else contextlib.nullcontext():
            fn = spec.workload.build("matmul", params)
            for _ in range(5):
                fn(*x)
            torch.cuda.synchronize()
            best = float("inf")
            for _ in range(30):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                fn(*x)
                e.record()
                e.synchronize()
                best = min(best, s.elapsed_time(e))
        print(json.dumps({"probe": "roofline", "params": params, "harness_median_us": round(m.median_ms * 1e3, 2),
                          "harness_min_us": round(min(m.samples_ms) * 1e3, 2), "best_of_30_us": round(best * 1e3, 2),
                          "ratio": round(m.median_ms / best, 3), "clock": sm_clock_mhz(dev),
                          "calls_per_sample": m.calls_per_sample}), flush=True)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    log = out / "probe.jsonl"
    with log.open("w") as f:
        for name in ["alone", "alone", "progress", "fingerprint", "steady", "sweep", "alone"]:
            cmd = [sys.executable, __file__, "--scenario", name]
            r = subprocess.run(cmd, check=False, capture_output=True, text=True)
            lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
            f.write("\n".join(lines) + "\n")
            print("\n".join(lines) or f"{name}: rc={r.returncode} {r.stderr[-2000:]}", flush=True)
        r = subprocess.run([sys.executable, __file__, "--roofline"], check=False, capture_output=True, text=True)
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
        f.write("\n".join(lines) + "\n")
        print("\n".join(lines) or f"roofline: rc={r.returncode} {r.stderr[-2000:]}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--scenario"]:
        scenario(sys.argv[2])
    elif sys.argv[1:2] == ["--roofline"]:
        roofline()
    else:
        main(Path(sys.argv[1]))
