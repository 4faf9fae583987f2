"""Pre-read a byte-level explanation: find numbers with units and check them against the work model.

The instructor still grades the cell in formgrader; this writes what was found as a comment and suggests
a score. Pure functions: text in, findings out.
"""

from __future__ import annotations

import re

from ..records import ExplanationGrade, FoundNumber, ReferenceRun
from ..spec import ExplanationSpec, LessonSpec
from ..workload import Fact

__all__ = ["PREREAD", "Fact", "extract_numbers", "grade_explanation", "model_facts"]

# how every pre-read begins: the feedback and formgrader adapters tell a pre-read from other automatic comments by it
PREREAD = "Autograder pre-read:"

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "single": 1}
_BYTES = {
    "b": 1,
    "bytes": 1,
    "byte": 1,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
}
_BW = {"gb/s": 1.0, "tb/s": 1e3, "mb/s": 1e-3, "gib/s": 2**30 / 1e9}
_FLOP_RATE = {"tflop/s": 1.0, "tflops/s": 1.0, "tflops": 1.0, "gflop/s": 1e-3, "gflops/s": 1e-3, "gflops": 1e-3,
              "pflop/s": 1e3}
_FLOPS = {"flop": 1.0, "flops": 1.0, "kflop": 1e3, "mflop": 1e6, "gflop": 1e9, "tflop": 1e12}
_TIME = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3}

_NUM = r"(\d+(?:[.,]\d+)*(?:\s*[eE][-+]?\d+)?)"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("flop_rate", re.compile(_NUM + r"\s*(tflops?/s|gflops?/s|pflop/s|tflops|gflops)(?![a-z])", re.I)),
    ("intensity", re.compile(_NUM + r"\s*(flops?\s*/\s*(?:byte|b)\b|flops?\s+per\s+byte)", re.I)),
    ("flops", re.compile(_NUM + r"\s*(tflop|gflop|mflop|kflop|flops?)\b", re.I)),
    ("bandwidth", re.compile(_NUM + r"\s*(gib/s|gb/s|tb/s|mb/s)", re.I)),
    ("bytes", re.compile(_NUM + r"\s*(kib|mib|gib|kb|mb|gb|tb|bytes?|b)\b", re.I)),
    ("time", re.compile(_NUM + r"\s*(ns|µs|μs|us|ms)\b", re.I)),
    (
        "launches",
        re.compile(
            r"(\d+|one|two|three|four|five|six|seven|eight|single)\s+"
            r"(?:\w+\s+)?(kernels?|launch(?:es)?)\b",
            re.I,
        ),
    ),
    ("ratio", re.compile(_NUM + r"\s*(x|×)(?![a-z0-9])", re.I)),
]


def _to_float(s: str) -> float | None:
    s = s.strip().lower()
    if s in _WORDS:
        return float(_WORDS[s])
    s = s.replace(" ", "")
    if s.count(",") and "." not in s:
        s = s.replace(",", "")  # 1,048,576
    s = s.replace(",", "")
    try:
        return float(s)
    except ValueError:
        return None


def extract_numbers(text: str) -> list[FoundNumber]:
    """Numbers with units, in base units: bytes, GB/s, ms, launches, ratio. Spans never overlap."""
    found: list[tuple[int, FoundNumber]] = []
    taken: list[range] = []
    for kind, pat in _PATTERNS:
        for m in pat.finditer(text):
            if any(m.start() in r or (m.end() - 1) in r for r in taken):
                continue
            num = _to_float(m.group(1))
            if num is None:
                continue
            unit = m.group(2).lower()
            if kind == "bytes":
                num *= _BYTES[unit]
            elif kind == "bandwidth":
                num *= _BW[unit]
            elif kind == "time":
                num *= _TIME[unit]
            elif kind == "flop_rate":
                num *= _FLOP_RATE[unit]
            elif kind == "flops":
                num *= _FLOPS[unit.rstrip("s") if unit.endswith("flops") else unit]
            elif kind == "intensity":
                unit = "flop/byte"
            found.append((m.start(), FoundNumber(text=m.group(0).strip(), value=num, unit=unit, kind=kind)))
            taken.append(range(m.start(), m.end()))
    return [f for _, f in sorted(found, key=lambda t: t[0])]


def model_facts(spec: LessonSpec, ex: ExplanationSpec, ref: ReferenceRun | None) -> list[Fact]:
    """What a correct explanation of this case can cite: the lesson's work-model facts, then the
    reference's (copy roofline, quantity values, times and rates of this case and of the sweep's
    smallest size)."""
    wl = spec.workload
    facts = list(wl.facts(ex.case))
    if ref is not None:
        dev = ref.device.name
        facts.append(Fact("bandwidth", ref.device.copy_gbps, f"{dev} copy roofline"))
        for key, peak in sorted((getattr(ref.device, "peaks", None) or {}).items()):
            if key.startswith("matmul_tflops:"):
                facts.append(Fact("flop_rate", peak, f"{dev} matmul peak ({key.split(':', 1)[1]})"))
        for q in ref.quantities.values():
            if isinstance(q.value, float):
                facts.append(Fact("ratio", q.value, f"{dev} reference {q.quantity}"))
        size = wl.size_param
        rest = {k: v for k, v in ex.case.items() if k != size}
        related = [m for m in ref.measurements if {k: v for k, v in m.case.params.items() if k != size} == rest]
        smallest = min((m.case.params.get(size, 0) for m in related), default=None, key=float)
        for m in related:
            at = m.case.params.get(size)
            if at in (ex.case.get(size), smallest):
                facts.append(Fact("time", m.stats.median, f"{dev} {m.case.key} {m.method}"))
                if at == ex.case.get(size):
                    facts.append(Fact("bandwidth", m.achieved_gbps, f"{dev} {m.case.key} achieved ({m.method})"))
                    if m.flops:
                        facts.append(Fact("flop_rate", m.achieved_tflops, f"{dev} {m.case.key} TFLOP/s ({m.method})"))
    return facts


def _match(n: FoundNumber, facts: list[Fact], rel: float) -> Fact | None:
    best: tuple[float, Fact] | None = None
    for f in facts:
        if f.kind != n.kind or f.value <= 0:
            continue
        if n.kind == "launches":
            err = 0.0 if n.value == f.value else 1.0
        else:
            err = abs(n.value - f.value) / f.value
        if err <= rel and (best is None or err < best[0]):
            best = (err, f)
    return best[1] if best else None


def grade_explanation(
    text: str, spec: LessonSpec, ex: ExplanationSpec, ref: ReferenceRun | None, rel_tol: float = 0.15
) -> ExplanationGrade:
    """Find numbers, match each against the model (bytes also in MiB/GiB readings), suggest a score."""
    facts = model_facts(spec, ex, ref)
    found: list[FoundNumber] = []
    matched_labels: set[str] = set()
    for n in extract_numbers(text):
        fact = _match(n, facts, rel_tol)
        if fact is None and n.kind == "bytes" and n.unit in ("kb", "mb", "gb"):
            alt = n.model_copy(
                update={"value": n.value / _BYTES[n.unit] * {"kb": 2**10, "mb": 2**20, "gb": 2**30}[n.unit]}
            )
            fact = _match(alt, facts, rel_tol)
        found.append(n.model_copy(update={"matches": fact.label if fact else None}))
        if fact:
            matched_labels.add(fact.label)
    flags: list[str] = []
    stripped = text.strip()
    if not stripped or stripped == "YOUR ANSWER HERE":
        flags.append("blank")
        fraction = 0.0
        comment = f"{PREREAD} no answer written."
    elif not found:
        flags.append("no_numbers")
        fraction = 0.0
        comment = (
            f"{PREREAD} no numbers with units (bytes, GB/s, µs/ms, kernels, ×) found — "
            "the explanation is in adjectives, not bytes and launches."
        )
    else:
        fraction = min(1.0, 0.25 + 0.25 * len(matched_labels))
        parts = [f"{n.text} ({'= ' + n.matches + ' ✓' if n.matches else 'no match in the model'})" for n in found]
        if not matched_labels:
            flags.append("numbers_unmatched")
        comment = (
            f"{PREREAD} found {len(found)} number(s) with units, {len(matched_labels)} matching "
            f"the traffic model or reference: "
            + "; ".join(parts)
            + f". Suggested {fraction * ex.points:.2f}/{ex.points:g}."
        )
    return ExplanationGrade(
        grade_id=ex.grade_id,
        found=found,
        matched=len(matched_labels),
        suggested_fraction=fraction,
        max_points=ex.points,
        comment=comment,
        flags=flags,
    )
