"""How the explanation pre-read's time grows with the length of an answer (issue 19, item 5).

    .venv/bin/python benchmarks/preread_speed.py [--out benchmarks/results/preread-speed.txt]

Two kinds of answer, each at doubling lengths up to the read cap (``autograder.preread.explanations.MAX_READ``):

- *corpus*: the development corpus's 04 answers pasted one after another (real sentences, tables, lists);
- *hostile*: one endless sentence dense with numbers, units and variant names ("eager 4x fused 3 kernels 2 µs
  ..."), the worst case for the per-number rules.

For each it prints the CPU seconds per answer (process time: the shared machine's load does not bend the
curve), the time per 1,000 characters and the fitted exponent k of time ~ length^k (least squares on log-log;
1.0 is linear; issue 19 measured ~2.9 for the pre-reader before this rewrite), then grades one hostile 20 MB
answer whole (read up to the cap; its time is what a hostile submission costs).
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.grading.references import ReferenceStore
from autograder.preread import MAX_READ, grade_explanation
from autograder.spec import load_spec
from tests.grading.explanation_corpus import corpus

LENGTHS = (5_000, 10_000, 20_000, 40_000, 80_000)


def _slope(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "preread-speed.txt")
    args = ap.parse_args()
    store = ReferenceStore(REPO / "tests" / "grading" / "explanation_corpus" / "references")
    spec = load_spec(REPO / "source" / "04_fusion" / "lesson.toml")
    ref = store.load("04_fusion", "nvidia-h200")
    ex = spec.explanations[0]
    texts = {
        "corpus": "\n\n".join(e.text for e in corpus() if e.lesson == "04_fusion"),
        "hostile": "eager 4x fused 3 kernels 2 µs " * 4000,
    }
    grade_explanation(texts["corpus"][:2000], spec, ex, ref)  # build the fact book before timing
    lines = [f"# python benchmarks/preread_speed.py  ({platform.python_version()}, {platform.machine()}, "
             f"one process; read cap {MAX_READ:,} characters)", "",
             f"{'answer':8} {'characters':>11} {'numbers':>8} {'CPU s':>9} {'ms per 1k chars':>16}"]
    for name, src in texts.items():
        xs, ys = [], []
        for n in LENGTHS:
            text = (src * (n // len(src) + 1))[:n]
            started = time.process_time()
            g = grade_explanation(text, spec, ex, ref)
            took = time.process_time() - started
            xs.append(n)
            ys.append(took)
            lines.append(f"{name:8} {n:>11,} {len(g.found):>8,} {took:>9.3f} {took / n * 1e6:>16.2f}")
        lines.append(f"{name:8} fitted exponent k = {_slope(xs, ys):.2f} (time ~ length^k)")
        lines.append("")
    huge = "eager 4x fused 3 kernels 2 µs " * (20_000_000 // 30)
    started = time.process_time()
    g = grade_explanation(huge, spec, ex, ref)
    took = time.process_time() - started
    lines.append(f"hostile answer of {len(huge):,} characters: {took:.2f} s, {len(g.found):,} numbers judged, "
                 f"flags {g.flags}")
    text = "\n".join(lines)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
