"""Check issue 3's GPU targets against stored reference runs (three back-to-back runs of one device).

    python benchmarks/check_targets.py RUN1.json RUN2.json RUN3.json

Prints each target with the numbers behind it and PASS/FAIL; exit 1 if any fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder.traffic import traffic

from autograder.bench.derive import speedup
from autograder.records import ReferenceRun
from autograder.spec import load_spec


def main(paths: list[str]) -> int:
    runs = [ReferenceRun.model_validate_json(Path(p).read_text()) for p in paths]
    spec = load_spec(Path(__file__).resolve().parents[1] / "source" / runs[0].assignment)
    first = runs[0]
    ok = True
    print(
        f"device: {first.device.name} ({first.device.key}), torch {first.device.torch}, "
        f"copy roofline {first.device.copy_gbps:.0f} GB/s"
    )
    print("\n1) fused gpu_time >= 90% of copy bandwidth for N >= 2^26")
    for m in first.measurements:
        if m.case.variant == "compiled" and m.method == "gpu_time" and m.case.log2_n >= 26:
            frac = m.achieved_gbps / first.device.copy_gbps
            ok &= frac >= 0.90
            verdict = "PASS" if frac >= 0.9 else "FAIL"
            print(f"   {m.case.key:22} {m.achieved_gbps:8.0f} GB/s = {100 * frac:5.1f}%  {verdict}")
    print("\n2) gpu_time speedup within +-7% of the traffic-model ratio for N >= 2^24")
    for dtype, sizes in first.sizes.items():
        for k in sizes:
            if k < 24:
                continue
            s = speedup(first.measurements, dtype, k, "gpu_time")
            if s is None:
                continue
            from autograder.records import Case

            model = (
                traffic(Case(variant="eager", dtype=dtype, log2_n=k), len(spec.chain)).bytes_moved
                / traffic(Case(variant="compiled", dtype=dtype, log2_n=k), len(spec.chain)).bytes_moved
            )
            dev = s[0] / model - 1
            ok &= abs(dev) <= 0.07
            print(
                f"   {dtype} 2^{k}: measured {s[0]:.2f}x, model {model:.0f}x, {100 * dev:+.1f}%  "
                f"{'PASS' if abs(dev) <= 0.07 else 'FAIL'}"
            )
    if len(runs) > 1:
        print(f"\n3) {len(runs)} back-to-back runs agree within 3% on memory-bound quantities (gpu_time, N >= 2^24)")
        worst = 0.0
        for m in first.measurements:
            if m.method != "gpu_time" or m.case.log2_n < 24:
                continue
            vals = [r.find(m.case, m.method) for r in runs]
            meds = [v.stats.median for v in vals if v is not None]
            spread = max(meds) / min(meds) - 1
            worst = max(worst, spread)
            print(f"   {m.case.key:22} " + " ".join(f"{v:8.4f}" for v in meds) + f"  spread {100 * spread:4.1f}%")
        ok &= worst <= 0.03
        print(f"   worst spread {100 * worst:.1f}%  {'PASS' if worst <= 0.03 else 'FAIL'}")
    print(
        "\n4) wall time of each full reference run (compiles included): "
        + ", ".join(f"{r.duration_s:.1f} s" for r in runs)
        + ("  PASS" if all(r.duration_s <= 90 for r in runs) else "  FAIL")
    )
    ok &= all(r.duration_s <= 90 for r in runs)
    print("\nALL TARGETS PASS" if ok else "\nSOME TARGETS FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
