"""Where a class's grading time went, submission by submission: the phases of stored kernel results.

    python benchmarks/kernel_phases.py FOLDER     # a course's .kernel_results/LESSON/DEVICE, or a copy of it

Each stored result (one per distinct kernel text graded) carries its verdict, its seconds and the seconds of
each phase (the child's start, torch's import, making inputs, the hidden checks, timing, the parent's
verification).  Prints one line per result and the median / mean / max of every phase.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def main(folder: Path) -> None:
    results = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    if not results:
        sys.exit(f"no kernel results (*.json) in {folder}")
    print(f"# {len(results)} kernel results in {folder}: verdict, family, seconds, seconds per phase")
    for r in sorted(results, key=lambda r: -float(r.get("seconds", 0))):
        phases = "  ".join(f"{k} {v:.2f}" for k, v in (r.get("phases") or {}).items())
        print(f"{r['verdict']:>14} {r.get('family') or '':>16} {float(r['seconds']):6.2f} s   {phases}")
    secs = [float(r["seconds"]) for r in results]
    print(f"\nper submission: median {statistics.median(secs):.2f} s, mean {statistics.mean(secs):.2f} s, "
          f"max {max(secs):.2f} s ({3600 / statistics.mean(secs):.0f} an hour, one after another)")
    names = sorted({k for r in results for k in r.get("phases") or {}})
    for k in names:
        v = [float(r["phases"][k]) for r in results if k in (r.get("phases") or {})]
        print(f"  {k:>13}: median {statistics.median(v):.3f}  mean {statistics.mean(v):.3f}  max {max(v):.2f}"
              f"  (in {len(v)})")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
