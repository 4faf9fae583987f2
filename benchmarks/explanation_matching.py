"""Precision and recall of the explanation pre-reader on the hand-written corpus (issue 12, item 5).

    .venv/bin/python benchmarks/explanation_matching.py [--baseline REV]
                                                        [--out benchmarks/results/explanation-matching.txt]
    .venv/bin/python benchmarks/explanation_matching.py --corpus DIR [--references DIR] [--out FILE]

``--corpus DIR`` (written to ``benchmarks/results/explanation-matching-DIRNAME.txt`` unless ``--out``) measures
one other corpus in the same format (``<lesson>.<grade_id>.txt`` files, as in
benchmarks/explanation_heldout/) instead of the two bundled ones; ``--references DIR`` is the reference store
(``<lesson>/nvidia-h200.json``) it is judged against (default: ``DIR/references`` if it exists, else the
repository's live ``references/``). The two bundled corpora are judged against the frozen copies of the H200
references they were written against (``<corpus>/references/``), so a re-measured reference does not move
their figures.

The corpus (tests/grading/explanation_corpus/, one file per explanation cell of every lesson) marks every
number a TA would judge with what it is: a right figure of a variant or of none in particular, a restated
input, another variant's or case's figure (misattributed), or wrong. Against the H200 reference of each
lesson this prints, per cell and overall:

- reading: of the annotated numbers, how many the pre-reader finds (recall), and of what it finds (restated
  inputs aside), how many are annotated (precision);
- credit: of the numbers it credits, how many deserve credit (precision), and of those that deserve it,
  how many it credits (recall);
- misattribution: of the numbers annotated misattributed, how many it names so (recall), and of those it
  names so, how many are (precision);
- score band: how often the suggested score falls in the TA's band (none / partial / full).

Two corpora: the development one (the test's; the rules were written against it) and a held-out one
(benchmarks/explanation_heldout/, 16 explanations per cell written afterwards by someone who had seen
neither the development corpus nor the code): the held-out figures are the ones to quote.

``--baseline REV`` also runs the pre-reader of git revision REV (default c28a3cc, the last one that did not
read context) on both, for comparison; it needs the repository's history.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.grading.references import ReferenceStore
from autograder.preread import grade_explanation
from autograder.records import ExplanationGrade, FoundNumber
from autograder.spec import load_spec
from tests.grading.explanation_corpus import Entry, corpus, grade_of

CREDITED = "credited"


class Tally:
    def __init__(self) -> None:
        self.n = defaultdict(int)

    def add(self, key: str, by: int = 1) -> None:
        self.n[key] += by

    def ratio(self, num: str, den: str) -> str:
        d = self.n[den]
        return f"{self.n[num] / d:6.1%} ({self.n[num]}/{d})" if d else "     - (0/0)"


def _overlap(f: FoundNumber, a: int, b: int) -> bool:
    return f.span is not None and f.span[0] < b and a < f.span[1]


def _locate(text: str, found: list[FoundNumber]) -> list[FoundNumber]:
    """Spans for findings of a pre-reader that did not record them (the baseline): in text order."""
    out, at = [], 0
    for f in found:
        i = text.find(f.text, at)
        if i < 0:
            i = text.find(f.text)
        out.append(f.model_copy(update={"span": (i, i + len(f.text)) if i >= 0 else None}))
        at = i + len(f.text) if i >= 0 else at
    return out


def _is_credit(f: FoundNumber) -> bool:
    # the baseline had no verdicts: a number with a match was credited
    return f.verdict == "match" or (f.verdict == "unmatched" and f.matches is not None)


def tally(entry: Entry, g: ExplanationGrade, t: Tally) -> None:
    found = g.found if all(f.span for f in g.found) else _locate(entry.text, g.found)
    used: set[int] = set()
    for s in entry.spans:
        t.add("annotated")
        hits = [i for i, f in enumerate(found) if _overlap(f, s.start, s.end)]
        used.update(hits)
        f = found[hits[0]] if hits else None
        deserves = s.label not in ("given", "misattributed", "wrong")
        t.add("deserves", deserves)
        if f is None:
            continue
        t.add("read")
        credited = _is_credit(f)
        t.add("credited", credited)
        t.add("credited_annotated", credited)
        t.add("credited_right", credited and deserves)
        if s.label == "misattributed":
            t.add("misattributed")
            t.add("named_misattributed_right", f.verdict == "misattributed")
        t.add("named_misattributed", f.verdict == "misattributed")
    for i, f in enumerate(found):
        if f.verdict == "given" and i not in used:
            continue  # an unannotated restated input: neither right nor wrong
        t.add("found")
        t.add("found_annotated", i in used)
        if i not in used:
            t.add("credited", _is_credit(f))
            t.add("named_misattributed", f.verdict == "misattributed")
    t.add("entries")
    t.add("band_right", grade_of(g.suggested_fraction) == entry.grade)


def misses(entry: Entry, g: ExplanationGrade) -> list[str]:
    """Every miss of one explanation, one line each: a right figure not credited, a misattribution not named
    so, a false credit, a finding over no annotated number, a suggested score out of the TA's band."""
    found = g.found if all(f.span for f in g.found) else _locate(entry.text, g.found)
    out: list[str] = []
    used: set[int] = set()
    for s in entry.spans:
        hits = [i for i, f in enumerate(found) if _overlap(f, s.start, s.end)]
        used.update(hits)
        f = found[hits[0]] if hits else None
        deserves = s.label not in ("given", "misattributed", "wrong")
        verdict = f.verdict if f else "not read"
        what = f" ({f.matches or f.actually or f.about})" if f else ""
        if deserves and not (f and _is_credit(f)):
            out.append(f"  missed   [{s.text}|{s.label}]: {verdict}{what}")
        elif not deserves and f and _is_credit(f):
            out.append(f"  FALSE    [{s.text}|{s.label}]: credited as {f.matches}")
        elif s.label == "misattributed" and verdict != "misattributed":
            out.append(f"  unnamed  [{s.text}|{s.label}]: {verdict}{what}")
    for i, f in enumerate(found):
        if i not in used and f.verdict != "given":
            out.append(f"  extra    {f.text!r}: {f.verdict} ({f.matches or f.actually or f.about})")
    if grade_of(g.suggested_fraction) != entry.grade:
        out.append(f"  band     {entry.grade}, suggested {g.suggested_fraction:.2f} {g.flags}: "
                   f"{g.comment[g.comment.find('Wrong'):] if 'Wrong' in g.comment else ''}"
                   f"{g.comment[g.comment.find('Missing'):] if 'Missing' in g.comment else ''}")
    return [f"{entry.name} ({entry.category}, {entry.grade})", *out] if out else []


def report(name: str, tallies: dict[str, Tally]) -> list[str]:
    lines = [f"## {name}", "",
             f"{'cell':34} {'reading recall':>17} {'reading precision':>17} {'credit precision':>17} "
             f"{'credit recall':>17} {'misattr. recall':>17} {'misattr. precision':>18} {'score band':>17}"]
    for cell, t in tallies.items():
        lines.append(
            f"{cell:34} {t.ratio('read', 'annotated'):>17} {t.ratio('found_annotated', 'found'):>17} "
            f"{t.ratio('credited_right', 'credited'):>17} {t.ratio('credited_right', 'deserves'):>17} "
            f"{t.ratio('named_misattributed_right', 'misattributed'):>17} "
            f"{t.ratio('named_misattributed_right', 'named_misattributed'):>18} {t.ratio('band_right', 'entries'):>17}"
        )
    t = tallies["all"]
    unannotated = t.n["credited"] - t.n["credited_annotated"]
    if unannotated:
        # a writer who leaves right figures unbracketed ("4 kernels") makes each of them count as a false credit
        # above; this line is the credit precision over the numbers the writer annotated only
        lines.append(f"{'':34} credited but not annotated: {unannotated}; credit precision over annotated numbers "
                     f"only: {t.ratio('credited_right', 'credited_annotated').strip()}")
    return [*lines, ""]


def _others(lessons: dict, lesson: str) -> dict:
    """The other lessons' references of the corpus's store (as grading passes them: another lesson's figure is
    named so)."""
    return {k: ref for k, (_, ref) in lessons.items() if k != lesson}


def run(grade: Callable[..., ExplanationGrade], entries: list[Entry], lessons: dict) -> dict[str, Tally]:
    out: dict[str, Tally] = defaultdict(Tally)
    for e in entries:
        spec, ref = lessons[e.lesson]
        ex = next((x for x in spec.explanations if x.grade_id == e.grade_id), None)
        if ex is None:
            raise SystemExit(f"{e.lesson}.{e.grade_id}.txt: {e.lesson} has no explanation cell {e.grade_id!r}")
        # (the baseline's pre-reader knows no other lessons)
        g = grade(e.text, spec, ex, ref, **({"others": _others(lessons, e.lesson)} if grade is grade_explanation
                                            else {}))
        tally(e, g, out[f"{e.lesson} {e.grade_id}"])
        tally(e, g, out["all"])
    return {k: out[k] for k in [*sorted(k for k in out if k != "all"), "all"]}


def baseline(rev: str) -> Callable[..., ExplanationGrade] | None:
    try:
        source = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:autograder/grading/explanations.py"],
                                check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"no baseline: git show {rev} failed ({exc})", file=sys.stderr)
        return None
    spec = importlib.util.spec_from_loader("autograder.grading._baseline_explanations", loader=None)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "autograder.grading"
    exec(compile(source, f"<{rev}:explanations.py>", "exec"), mod.__dict__)
    return mod.grade_explanation  # type: ignore[no-any-return]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="c28a3cc",
                    help="git revision of the pre-reader to compare with ('' for none)")
    ap.add_argument("--out", type=Path, default=None,
                    help="where to write the table (default: benchmarks/results/explanation-matching.txt; with "
                         "--corpus DIR: benchmarks/results/explanation-matching-DIRNAME.txt)")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="measure this corpus folder (the held-out format) instead of the two bundled ones")
    ap.add_argument("--misses", action="store_true",
                    help="also print every miss of each explanation (to stdout only, not to --out)")
    ap.add_argument("--references", type=Path, default=None,
                    help="reference store to judge --corpus against (default: CORPUS/references, else references/)")
    args = ap.parse_args()
    if args.out is None:
        name = f"explanation-matching-{args.corpus.resolve().name}.txt" if args.corpus else "explanation-matching.txt"
        args.out = REPO / "benchmarks" / "results" / name
    heldout = REPO / "benchmarks" / "explanation_heldout"
    development = REPO / "tests" / "grading" / "explanation_corpus"
    if args.corpus is not None:
        if not args.corpus.is_dir() or not any(args.corpus.glob("*.txt")):
            print(f"--corpus {args.corpus}: no <lesson>.<grade_id>.txt files there", file=sys.stderr)
            return 2
        refs = args.references or (args.corpus / "references" if (args.corpus / "references").is_dir()
                                   else REPO / "references")
        folders = {f"corpus {args.corpus.name}": (args.corpus, refs)}
    else:
        folders = {"held-out": (heldout, args.references or heldout / "references"),
                   "development": (development, args.references or development / "references")}
    sets = {name: corpus(folder) for name, (folder, _) in folders.items()}
    lessons: dict[str, dict] = {}
    for name, (_, refs) in folders.items():
        store = ReferenceStore(refs)
        lessons[name] = {}
        for lesson in sorted({e.lesson for e in sets[name]}):
            lessons[name][lesson] = (load_spec(REPO / "source" / lesson / "lesson.toml"),
                                     store.load(lesson, "nvidia-h200"))
    old = baseline(args.baseline) if args.baseline else None
    shown = " ".join(a for a in sys.argv[1:]) or f"--baseline {args.baseline}"
    lines = [f"# python benchmarks/explanation_matching.py {shown}  "
             f"({platform.python_version()}, {platform.machine()})", ""]
    for name, entries in sets.items():
        refs_name = folders[name][1]
        shown_refs = refs_name.relative_to(REPO) if refs_name.is_relative_to(REPO) else refs_name
        lines += [f"# {name}: references from {shown_refs}"]
        run(grade_explanation, entries[:5], lessons[name])  # build the fact books before timing
        started = time.perf_counter()
        now = run(grade_explanation, entries, lessons[name])
        per_entry_ms = (time.perf_counter() - started) / len(entries) * 1e3
        lines += [
            f"# {name} corpus: {len(entries)} explanations, {sum(len(e.spans) for e in entries)} annotated numbers, "
            f"{len(now) - 1} cells; {per_entry_ms:.2f} ms per explanation (one process)",
            "",
            *report(f"{name}, now: each number judged in its sentence's context", now),
        ]
        if old is not None:
            lines += report(f"{name}, baseline {args.baseline}: every number against every fact of the cell's case",
                            run(old, entries, lessons[name]))
    text = "\n".join(lines)
    print(text)
    if args.misses:
        for name, entries in sets.items():
            for e in entries:
                spec, ref = lessons[name][e.lesson]
                ex = next(x for x in spec.explanations if x.grade_id == e.grade_id)
                g = grade_explanation(e.text, spec, ex, ref, others=_others(lessons[name], e.lesson))
                lines_of = misses(e, g)
                if lines_of:
                    print("\n".join(lines_of))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
