"""Pre-read a byte-level explanation: find the numbers it states, judge each against the work model and the
reference *in the context the sentence gives it* (variant, dtype, size), and suggest a score.

The instructor still grades the cell in formgrader; this writes what was found as a comment. A number
that is right for another variant or case than the one its sentence names ("eager moves 20 MB", where 20 MB
is the fused traffic) is a misattribution and earns nothing; restating the problem's input sizes is
recognised but earns nothing on its own, so a wrong conclusion cannot be rescued by quoting them.
Pure functions: text in, findings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..records import ExplanationGrade, FoundNumber, ParamValue, ReferenceRun, render_params
from ..spec import ExplanationSpec, LessonSpec
from ..workload import Fact
from .attribution import Attributed, Context, attribute
from .factbook import Candidate, FactBook, fact_book
from .numbers import Stated

__all__ = ["PREREAD", "Fact", "extract_numbers", "grade_explanation", "judge", "model_facts", "suggest"]

# how every pre-read begins: the feedback and formgrader adapters tell a pre-read from other automatic comments by it
PREREAD = "Autograder pre-read:"

REL_TOL = 0.15


def extract_numbers(text: str) -> list[FoundNumber]:
    """Numbers with units (or named as ratios), in base units: bytes, GB/s, ms, launches, ratio, ...
    Without a lesson, so without context: what the text states, not whether it is right."""
    from .numbers import extract

    return [FoundNumber(text=s.text, value=s.value, unit=s.unit, kind=s.kind) for s in extract(text)]


def model_facts(spec: LessonSpec, ex: ExplanationSpec, ref: ReferenceRun | None) -> list[Fact]:
    """What a correct explanation of the cell's own case can cite (the work model, its inputs, the
    reference's measurements there and the device's figures)."""
    return [c.fact for c in fact_book(spec, ex, ref).at(ex.case)]


def _close(s: Stated, f: Fact, rel: float) -> bool:
    """Within ``rel`` of the fact (a range: overlapping it)."""
    low, high = f.value * (1 - rel), f.value * (1 + rel)
    for r in s.readings:
        if r.kind != f.kind or f.value <= 0:
            continue
        if r.kind == "launches":
            if r.value == f.value:
                return True
            continue
        if s.low is not None and s.high is not None and r is s.readings[0]:
            if s.low <= high and low <= s.high:
                return True
        if low <= r.value <= high:
            return True
    return False


def _error(s: Stated, f: Fact) -> float:
    return min((abs(r.value - f.value) / f.value for r in s.readings if r.kind == f.kind), default=1.0)


_TOPIC = re.compile(
    r"((?:time|speed|wall|gpu)[\s-]*ratio|speed|faster|slower|time|µs|latency|wall|gpu)"
    r"|(traffic|bytes?|memory|moves?|moving|ratio)", re.I
)


def _about_traffic(window: str, start: int, end: int) -> bool | None:
    """Whether the words nearest a number (``window[start:end]``) speak of bytes (True) or of time (False):
    the closest topic word before it in its sentence or after it in its clause ("4x less traffic", "3.9x in
    GPU time"; a bare "ratio" is the traffic ratio); None if there is none."""
    words = [(start - m.end(), 0, m) for m in _TOPIC.finditer(window, 0, start)]
    words += [(m.start() - end, 1, m) for m in _TOPIC.finditer(window, end)]
    return None if not words else min(words, key=lambda w: (w[0], w[1]))[2].group(2) is not None


def _best(s: Stated, cands: Iterable[Candidate], rel: float, ctx: Context | None = None) -> Candidate | None:
    ok = [c for c in cands if _close(s, c.fact, rel)]
    # a ratio said of time is a speedup, one said of bytes a traffic ratio
    about_traffic = _about_traffic(ctx.clause, s.start - ctx.offset, s.end - ctx.offset) if ctx else None

    def off_topic(c: Candidate) -> bool:
        return c.fact.kind == "ratio" and about_traffic is not None and ("traffic" in c.fact.label) != about_traffic

    # a derived fact before a restated input of the same value; then the one on topic; then the closest
    return min(ok, key=lambda c: (c.fact.given, off_topic(c), _error(s, c.fact))) if ok else None


class _Cues:
    """Which cues a clause has, each searched once (a case has hundreds of facts and a handful of cues)."""

    def __init__(self, clause: str) -> None:
        self.clause = clause
        self.seen: dict[str, bool] = {}

    def __call__(self, c: Candidate) -> bool:
        if c.cue is None:
            return True
        if c.cue not in self.seen:
            self.seen[c.cue] = re.search(c.cue, self.clause, re.I) is not None
        return self.seen[c.cue]


def _about(ctx: Context, variant_named: bool) -> str:
    where = render_params(dict(ctx.params), short=False, sep=" ")
    return f"{ctx.variant} at {where}" if variant_named and ctx.variant else where


def judge(a: Attributed, book: FactBook, text: str, rel: float = REL_TOL) -> FoundNumber:
    """One number's verdict: a fact of what its sentence names (match / given), a fact of something else
    (misattributed), or nothing the model or the reference knows (unmatched)."""
    s, ctx = a.stated, a.context
    cued = _Cues(ctx.clause)
    kinds = {r.kind for r in s.readings}
    here = [c for c in book.at(ctx.params) if c.fact.kind in kinds and cued(c)]
    fits = [
        c for c in here
        if ctx.variant is None
        or (c.fact.variant in (None, ctx.variant) and (c.compares is None or ctx.variant in c.compares))
    ]
    shown = text[s.start:s.end]
    base = FoundNumber(text=shown, value=s.value, unit=s.unit, kind=s.kind, about=_about(ctx, True),
                       span=(s.start, s.end))
    hit = _best(s, fits, rel, ctx)
    if hit is not None:
        verdict = "given" if hit.fact.given else "match"
        return base.model_copy(update={"matches": hit.fact.label, "verdict": verdict, "of": hit.fact.variant})
    # another variant's figure in a sentence that names this one, or another case's (one parameter away) in
    # a sentence that names a case: a misattribution. A figure nobody's in particular is just wrong; ratios are
    # so dense across a sweep that only another pair at this case counts.
    fitting = {id(c) for c in fits}
    elsewhere: list[Candidate] = [c for c in here if id(c) not in fitting] if ctx.variant is not None else []
    if ctx.named_case and s.kind != "ratio":
        for params in _neighbours(book, ctx.params):
            elsewhere += [c for c in book.at(params) if c.fact.kind in kinds and cued(c)]
    other = _best(s, [c for c in elsewhere if not c.fact.given], rel, ctx)
    if other is not None:
        return base.model_copy(update={"verdict": "misattributed", "actually": other.fact.label})
    # an input's size at another case the sentence names is still only a restated input
    given = _best(s, [c for c in elsewhere if c.fact.given], rel, ctx)
    if given is not None:
        return base.model_copy(update={"matches": given.fact.label, "verdict": "given"})
    return base


def _neighbours(book: FactBook, params: Mapping[str, ParamValue]) -> list[dict[str, ParamValue]]:
    """The measured cases one parameter away from ``params`` (another size, or another dtype)."""
    return [k for k in book.known_cases() if sum(k.get(p) != v for p, v in params.items()) == 1]


def suggest(found: list[FoundNumber]) -> tuple[float, int]:
    """(suggested fraction, distinct derived facts). Each distinct fact of the model or reference stated
    right is worth a quarter after the first (one right: half credit; three: full); a misattributed or
    unmatched number takes a quarter back and full credit needs none of them; input sizes count nothing."""
    derived = {f.matches for f in found if f.verdict == "match"}
    bad = sum(f.verdict in ("misattributed", "unmatched") for f in found)
    if not derived:
        return 0.0, 0
    fraction = min(1.0, 0.25 + 0.25 * len(derived)) - 0.25 * bad
    if bad:
        fraction = min(fraction, 0.75)
    return max(0.25, fraction), len(derived)


def _describe(f: FoundNumber) -> str:
    if f.verdict == "match":
        return f"{f.text} (= {f.matches} ✓)"
    if f.verdict == "given":
        return f"{f.text} (= {f.matches}: restates the problem)"
    if f.verdict == "misattributed":
        return f"{f.text} (said of {f.about}, but it is {f.actually} ✗)"
    return f"{f.text} (no match in the model or the reference for {f.about})"


def grade_explanation(
    text: str, spec: LessonSpec, ex: ExplanationSpec, ref: ReferenceRun | None, rel_tol: float = REL_TOL
) -> ExplanationGrade:
    """Find the numbers, judge each in its sentence's context, suggest a score and write the comment."""
    book = fact_book(spec, ex, ref)
    case: dict[str, ParamValue] = dict(ex.case)
    found = [judge(a, book, text, rel_tol) for a in attribute(text, spec.workload, case, book.known_cases())]
    fraction, derived = suggest(found)
    flags: list[str] = []
    stripped = text.strip()
    if not stripped or stripped == "YOUR ANSWER HERE":
        flags.append("blank")
        comment = f"{PREREAD} no answer written."
    elif not found:
        flags.append("no_numbers")
        comment = (
            f"{PREREAD} no numbers with units (bytes, GB/s, µs/ms, kernels, ×) found — "
            "the explanation is in adjectives, not bytes and launches."
        )
    else:
        if not derived:
            flags.append("input_sizes_only" if any(f.verdict == "given" for f in found) else "numbers_unmatched")
        if any(f.verdict == "misattributed" for f in found):
            flags.append("misattributed")
        comment = (
            f"{PREREAD} found {len(found)} number(s), {derived} distinct fact(s) of the work model "
            f"or reference stated right: " + "; ".join(_describe(f) for f in found)
            + f". Suggested {fraction * ex.points:.2f}/{ex.points:g}."
        )
    return ExplanationGrade(
        grade_id=ex.grade_id,
        found=found,
        matched=derived,
        suggested_fraction=fraction,
        max_points=ex.points,
        comment=comment,
        flags=flags,
    )
