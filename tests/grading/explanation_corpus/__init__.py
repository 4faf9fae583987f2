"""Hand-written student explanations, one file per explanation cell (``<lesson>.<grade_id>.txt``), with
what a careful TA finds in each. The format (also at the top of README.md in this folder)::

    === <id> | <category> | grade=<none|partial|full>
    text, with every number to judge written as [<as the student wrote it>|<label>]

Labels: a variant name (a right figure of that variant, in the case the sentence names), ``any`` (a right
figure of no one variant: traffic ratio, speedup, roofline), ``given`` (restates an input size: no credit),
``misattributed`` (another variant's or case's figure), ``wrong`` (no fact within 15 %).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
LABELS_ANY = ("any", "given", "misattributed", "wrong")
_SPAN = re.compile(r"\[([^\[\]|]+)\|([a-z_]+)\]")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str
    label: str


@dataclass(frozen=True)
class Entry:
    lesson: str
    grade_id: str
    id: str
    category: str
    grade: str
    text: str
    spans: tuple[Span, ...]

    @property
    def name(self) -> str:
        return f"{self.lesson}.{self.grade_id}.{self.id}"


def _entry(lesson: str, grade_id: str, header: str, body: str) -> Entry:
    ident, category, grade = (p.strip() for p in header.split("|"))
    assert grade.startswith("grade="), header
    text, spans, at = [], [], 0
    for m in _SPAN.finditer(body):
        text.append(body[at:m.start()])
        start = sum(map(len, text))
        spans.append(Span(start, start + len(m.group(1)), m.group(1), m.group(2)))
        text.append(m.group(1))
        at = m.end()
    text.append(body[at:])
    return Entry(lesson, grade_id, ident, category, grade.removeprefix("grade="), "".join(text).strip("\n"),
                 tuple(spans))


def load(path: Path) -> list[Entry]:
    lesson, grade_id = path.stem.split(".", 1)
    entries, header, body = [], None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") and header is None:
            continue
        if line.startswith("=== "):
            if header is not None:
                entries.append(_entry(lesson, grade_id, header, "\n".join(body)))
            header, body = line[4:], []
        elif header is not None and not line.startswith("#"):
            body.append(line)
    if header is not None:
        entries.append(_entry(lesson, grade_id, header, "\n".join(body)))
    return entries


def corpus(folder: Path = HERE) -> list[Entry]:
    return [e for p in sorted(folder.glob("*.*.txt")) for e in load(p)]  # <lesson>.<grade_id>.txt, not a README.txt


@dataclass(frozen=True)
class Check:
    """One annotated number against what the pre-reader found there (``found`` None: it found nothing)."""

    span: Span | None
    verdict: str | None  # the pre-reader's verdict, None if it found nothing there
    of: str | None
    ok: bool


def _credited(label: str, verdict: str) -> bool:
    """What the grade depends on: credit for a right figure, none for the rest (a TA's "misattributed"
    that the pre-reader finds in nobody's figures is still no credit, and vice versa)."""
    if label == "given":
        return verdict == "given"
    if label in ("misattributed", "wrong"):
        return verdict in ("misattributed", "unmatched", "unchecked")
    return verdict == "match"


def _agrees(label: str, verdict: str, of: str | None) -> bool:
    if label == "given":
        return verdict == "given"
    if label == "misattributed":
        return verdict == "misattributed"
    if label == "wrong":
        return verdict == "unmatched"
    # a variant's figure: credited (which fact it equals is the finding's business: eager and compiled may
    # share a value, e.g. a per-kernel traffic)
    return verdict == "match"


def credit_checks(entry: Entry, grade) -> list[Check]:
    """:func:`check` on the credit each number earns (the test's standard)."""
    return check(entry, grade, lambda label, verdict, of: _credited(label, verdict))


def check(entry: Entry, grade, agrees=None) -> list[Check]:
    """Pair each annotated span with the finding that overlaps it; findings over no span are extra.
    ``agrees``: the standard (default: the exact verdict the label names)."""
    agrees = agrees or _agrees
    out, used = [], set()
    for s in entry.spans:
        hits = [i for i, f in enumerate(grade.found) if f.span and f.span[0] < s.end and s.start < f.span[1]]
        if not hits:
            out.append(Check(s, None, None, False))
            continue
        f = grade.found[hits[0]]
        used.update(hits)
        out.append(Check(s, f.verdict, f.of, agrees(s.label, f.verdict, f.of) and len(hits) == 1))
    for i, f in enumerate(grade.found):
        if i not in used and f.verdict != "given":  # a restated input nobody annotated costs nothing
            out.append(Check(None, f.verdict, f.of, False))
    return out


def grade_of(fraction: float) -> str:
    return "none" if fraction == 0 else "full" if fraction == 1 else "partial"
