"""How often the pre-read's suggested score falls in the TA's band over every spent blind set, under the
suggestion's constants as they are and as they were (issue 19 item 4).

    .venv/bin/python benchmarks/suggestion_fit.py [--grid]

Each answer of every ``benchmarks/explanation_heldout*`` set is pre-read once against its set's frozen
references; what :func:`autograder.preread.explanations.suggest` was handed (the numbers' verdicts, wrong
conclusions, parts left out) is kept, and the suggestion is recomputed under other values of
``SLIPS_PER_FACTS``, ``FORGIVING_FROM`` and ``FACTS_FOR_FULL`` (the terse and "admits a part left out" caps
applied as the pre-read applies them). The sets are spent: they choose constants, they do not measure them
(a new blind set does that, once).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import explanation_matching as em

import autograder.preread.explanations as ex_mod
from autograder.grading.references import ReferenceStore
from autograder.spec import load_spec

WAS = {"SLIPS_PER_FACTS": 4, "FORGIVING_FROM": 5, "FACTS_FOR_FULL": 3}


def collect() -> list[dict[str, Any]]:
    seen: dict[str, Any] = {}
    real = ex_mod.suggest

    def spy(found, wrong_conclusions=0, missing=0,  # type: ignore[no-untyped-def]
            facts_for_full=ex_mod.FACTS_FOR_FULL_FIGURES):
        seen.update(found=list(found), wrong=wrong_conclusions, missing=missing,
                    parts=facts_for_full != ex_mod.FACTS_FOR_FULL_FIGURES)
        return real(found, wrong_conclusions, missing, facts_for_full)

    ex_mod.suggest = spy
    rows = []
    try:
        for folder in sorted(REPO.glob("benchmarks/explanation_heldout*")):
            entries = em.corpus(folder)
            store = ReferenceStore(folder / "references" if (folder / "references").is_dir() else REPO / "references")
            lessons = {name: (load_spec(REPO / "source" / name / "lesson.toml"), store.load(name, "nvidia-h200"))
                       for name in sorted({e.lesson for e in entries})}
            for e in entries:
                spec, ref = lessons[e.lesson]
                ex = next(x for x in spec.explanations if x.grade_id == e.grade_id)
                seen.clear()
                g = em.grade_explanation(e.text, spec, ex, ref, others=em._others(lessons, e.lesson))
                rows.append({"set": folder.name, "ta": e.grade, "flags": g.flags, "parts": bool(ex.parts), **seen})
    finally:
        ex_mod.suggest = real
    return rows


def fraction(r: dict[str, Any], c: dict[str, int]) -> float:
    if "found" not in r:  # blank or no numbers: suggest was not asked
        return 0.0
    saved = {k: getattr(ex_mod, k) for k in ("SLIPS_PER_FACTS", "FORGIVING_FROM")}
    try:
        ex_mod.SLIPS_PER_FACTS, ex_mod.FORGIVING_FROM = c["SLIPS_PER_FACTS"], c["FORGIVING_FROM"]
        full = c["FACTS_FOR_FULL"] if r["parts"] else ex_mod.FACTS_FOR_FULL_FIGURES
        f, _ = ex_mod.suggest(r["found"], r["wrong"], r["missing"], full)
    finally:
        ex_mod.SLIPS_PER_FACTS, ex_mod.FORGIVING_FROM = saved["SLIPS_PER_FACTS"], saved["FORGIVING_FROM"]
    if "terse" in r["flags"] or "admits_left_out" in r["flags"]:
        f = min(f, 0.75)
    return f


def in_band(rows: list[dict[str, Any]], c: dict[str, int]) -> Counter[str]:
    return Counter(r["set"] for r in rows if em.grade_of(fraction(r, c)) == r["ta"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", action="store_true", help="also try every nearby combination of the three constants")
    a = ap.parse_args()
    rows = collect()
    now = {k: getattr(ex_mod, k) for k in WAS}
    total = Counter(r["set"] for r in rows)
    old, new = in_band(rows, WAS), in_band(rows, now)
    print(f"{'set':<34} {'was ' + str(tuple(WAS.values())):>16} {'now ' + str(tuple(now.values())):>16}")
    for s in sorted(total):
        print(f"{s:<34} {old[s]:>9}/{total[s]:<6} {new[s]:>9}/{total[s]:<6}")
    more = sum(new[s] > old[s] for s in total)
    fewer = sum(new[s] < old[s] for s in total)
    print(f"{'all':<34} {sum(old.values()):>9}/{len(rows):<6} {sum(new.values()):>9}/{len(rows):<6} "
          f"(more on {more} sets, fewer on {fewer})")
    print("(SLIPS_PER_FACTS, FORGIVING_FROM, FACTS_FOR_FULL)")
    if a.grid:
        print("\ngrid: in band over all sets (more / fewer sets than 'was')")
        for full in (3, 4, 5, 6):
            for per in (3, 4, 5):
                for start in (5, 6, 7, 8):
                    c = {"SLIPS_PER_FACTS": per, "FORGIVING_FROM": start, "FACTS_FOR_FULL": full}
                    got = in_band(rows, c)
                    print(f"  {(per, start, full)}: {sum(got.values())} "
                          f"({sum(got[s] > old[s] for s in total)} / {sum(got[s] < old[s] for s in total)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
