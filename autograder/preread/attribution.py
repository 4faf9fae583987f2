"""Which variant and which case each stated number is about.

"Eager launches 3 kernels and moves 60 MB; the fused kernel moves 20 MB" states 60 MB of eager and 20 MB
of the fused kernel; "at 2^22 the fused kernel moves 40 MB" is about 2^22. The rules, in order:

- a variant named inside the number ("one fused kernel") or right after it ("0.31 FLOP/B unfused",
  "41 µs for the library kernel");
- else the variant named nearest before it in its *clause* (split at ``; , : ( ) —`` and at contrast words:
  but, while, whereas, against, versus, compared to, instead of); a variant right after "than" is what
  the sentence compares with, not its subject, and is skipped;
- else, if no variant precedes it in the clause: none when the clause opens with a contrast word; else the
  one variant named earlier in the sentence (a pronoun: "it moves 60 MB"); none if several were;
- "both"/"either" name none on purpose; "from X to Y" reads X as the before-value of a change.
- the case is the cell's, updated by every case mention before the number (sizes carry across sentences:
  "At 2^12 ... . In GPU time ..."; "here" and "at this size" return to the cell's case), or one right
  after it ("20 MB at 2^22"). A partly named case is completed from the measured cases that agree.

Pure functions over the text and the workload's spellings.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..mentions import Mention, variant_mentions
from ..records import ParamValue
from ..workload import Workload
from .numbers import Stated, extract

__all__ = ["Attributed", "Context", "attribute"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|vs|approx|ca|cf|resp|fig)\.$", re.I)
_CONTRAST = r"but|while|whereas|against|versus|vs\.?|compared (?:to|with)|instead of|unlike"
_CLAUSE_BREAK = re.compile(r"[;:()\[\]—]|,(?!\d{3})|\s-\s|\b(?:" + _CONTRAST + r")\b", re.I)
_SEGMENT_BREAK = re.compile(r";|\b(?:" + _CONTRAST + r")\b", re.I)
_OPENS_WITH_CONTRAST = re.compile(r"^\W*(?:" + _CONTRAST + r")\b", re.I)
_ITEM_END = re.compile(r"^[ \t]*(?:[-*•→]|\d+[.)])[ \t][^\n]*\n(?![ \t])", re.M)
_NEW_ITEM = re.compile(r"\n\s*(?:[-*•]|\d+[.)]|\n)|\n\s*\S+\s*:")  # a new list item or paragraph
_PAIR = re.compile(r"\s*(?:vs\.?|versus|against|compared (?:to|with)|/)\s*(?:~|≈|about\s+)?\d", re.I)
_RELATIVE = re.compile(r"^\W*whose\b", re.I)
_FROM = re.compile(r"\bfrom\s+(?:about\s+|roughly\s+|~\s*|≈\s*)?$", re.I)
_THAN = re.compile(
    r"\b(?:than|as|like|unlike|vs\.?|versus|against|compared (?:to|with))\s+(?:the\s+|that of\s+|for\s+)?$", re.I
)
#: between a number and the variant it is said of: "41 µs for the library kernel", "0.31 FLOP/B unfused",
#: "7 µs for the three eager kernels"
_RIGHT_AFTER = re.compile(
    r"^\s*(?:\(\s*)?(?:(?:for|of|in|on|by|with|from)\s+)?(?:the\s+|an?\s+|a single\s+|one\s+)?"
    r"(?:\d+\s+|(?:two|three|four|five|six|seven|eight)\s+)?$", re.I)
#: a variant that labels the number: "eager: 11 µs", "eager's 27 µs", "compiled = 9 µs"
_LABELS = re.compile(r"^(?:\s*[:=–(]|['’]s)\s*(?:~|≈|about\s+|only\s+|just\s+)?$", re.I)
#: words that bring a sentence back to the cell's own case
_HERE = re.compile(r"\b(?:here|at this size|in this case|for this case|this shape|this size)\b", re.I)


@dataclass(frozen=True)
class Context:
    """What a number is said of: a variant (None: not one in particular), the case, the sentence it is in
    (some facts need its words: "each kernel", "L2"), and whether the text named that case (then a number that
    belongs to another case is a misattribution, not merely wrong)."""

    variant: str | None
    params: Mapping[str, ParamValue]
    sentence: str = ""
    offset: int = 0  # where the sentence starts in the text
    named_case: bool = False
    clause: str = ""


@dataclass(frozen=True)
class Attributed:
    stated: Stated
    context: Context


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """The pieces of ``text`` between matches of ``pattern``."""
    out, at = [], 0
    for m in pattern.finditer(text):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, len(text)))
    return out


def _around(spans: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    return next(((a, b) for a, b in spans if a <= pos < b), (pos, pos + 1))


def _mask(text: str, mentions: list[Mention]) -> str:
    """Case-naming mentions become ``#`` so "2^24 x" or "fp32" is never read as a number."""
    chars = list(text)
    for m in mentions:
        for i in range(m.start, m.end):
            if chars[i] not in " \n":
                chars[i] = "#"
    return "".join(chars)


def _sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans; "e.g. 5 kernels" does not end a sentence; a list item ends at its line's end unless
    the next line is indented (a wrapped item)."""
    out: list[tuple[int, int]] = []
    cuts = {m.end() for m in _SENTENCE_END.finditer(text)}
    cuts |= {m.end() for m in _ITEM_END.finditer(text)}
    ends = sorted(cuts)
    for a, b in zip([0, *ends], [*ends, len(text)], strict=True):
        if out and _ABBREVIATION.search(text[out[-1][0]:out[-1][1]].rstrip()):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _variant(num: Stated, text: str, names: list[Mention], sentence: tuple[int, int],
             clause: tuple[int, int], opener: str) -> str | None:
    inside = [m for m in names if num.start <= m.start < num.end]  # "one fused kernel"
    if inside:
        return inside[0].variant
    right_after = [
        m for m in names
        if num.end <= m.start < sentence[1] and not _NEW_ITEM.search(text[num.end:m.end + 3])
        and _RIGHT_AFTER.match(text[num.end:m.start])
    ]
    if right_after:
        return right_after[0].variant
    if _THAN.search(text[sentence[0]:num.start]) or _PAIR.match(text, num.end):
        return None  # "slower than four aten launches", "174 µs vs 25 µs": one side of a comparison
    labels = [m for m in names if sentence[0] <= m.start <= m.end <= num.start and _LABELS.match(text[m.end:num.start])]
    if labels:
        return labels[-1].variant
    # "faster than eager": the thing compared with, not the subject
    subjects = [m for m in names if not _THAN.search(text[sentence[0]:m.start])]
    in_clause = [m for m in subjects if clause[0] <= m.start < clause[1]]
    before = [m for m in in_clause if m.end <= num.start]
    if before:
        if _FROM.search(text[before[-1].end:num.start]):
            return None
        return before[-1].variant
    if opener and _OPENS_WITH_CONTRAST.match(opener):
        return None
    if _RELATIVE.match(text[clause[0]:num.start]):  # "..., whose 5 kernels": the variant just named
        near = [m for m in names if sentence[0] <= m.start and m.end <= clause[0]]
        return near[-1].variant if near else None
    # the stretch since the last contrast ("while the add, which is memory bound, needs 174 µs"), then the sentence
    segment = max((b.end() for b in _SEGMENT_BREAK.finditer(text, sentence[0], num.start)), default=sentence[0])
    for start in (segment, sentence[0]):
        earlier = {m.variant for m in subjects if start <= m.start and m.end <= num.start}
        if earlier:
            return earlier.pop() if len(earlier) == 1 else None
    return None


def _complete(params: dict[str, ParamValue], named: Mapping[str, ParamValue], last: Mapping[str, ParamValue],
              known: Sequence[Mapping[str, ParamValue]]) -> dict[str, ParamValue]:
    """A case whose other parameters are left over from an earlier sentence, completed from the measured
    cases that agree with what this sentence names ("at 4096 columns" in a sweep whose rows shrink as its
    columns grow), or failing that with the latest mention alone."""
    if not known or any(dict(k) == params for k in known):
        return params
    for wanted in (named, last):
        agree = [dict(k) for k in known if all(k.get(p) == v for p, v in wanted.items())]
        if wanted and agree:
            return max(agree, key=lambda k: sum(k.get(p) == v for p, v in params.items()))
    return params


def _params(num: Stated, text: str, case: Mapping[str, ParamValue], cases: list[Mention],
            sentence: tuple[int, int], known: Sequence[Mapping[str, ParamValue]]) -> tuple[dict[str, ParamValue], bool]:
    params = dict(case)
    named: dict[str, ParamValue] = {}
    last: Mapping[str, ParamValue] = {}
    for m in cases:
        if m.end > num.start:
            break
        if m.params is None:  # "here": the cell's case again
            params, named = dict(case), {}
            continue
        if _THAN.search(text[max(0, m.start - 20):m.start]) and m.end < num.start - 2:
            continue  # "the same 6.3 MB as bf16 ... runs at": what it is compared with, not where it is
        params.update(m.params)
        last = m.params
        named = {**named, **m.params} if m.start >= sentence[0] else named
    before_here = any(sentence[0] <= m.start < num.start for m in cases)
    for m in cases:
        if m.start < num.end or m.start >= sentence[1]:
            continue
        between = text[num.end:m.start]
        if _CASE_TAIL.match(between) or (not before_here and not _CLAUSE_CONTRAST.search(between)):
            if m.params is None:
                params, named = dict(case), {}
            else:  # with the mentions right after it: "at 2^22 fp16"
                end = m.start
                for n in (c for c in cases if c.start >= m.start and c.params):
                    if not re.fullmatch(r"[\s,/]*(?:in|and)?[\s,/]*", text[end:n.start]):
                        break
                    params.update(n.params or {})
                    named.update(n.params or {})
                    last, end = n.params or {}, n.end
        break
    in_sentence = any(sentence[0] <= m.start < sentence[1] for m in cases)
    return _complete(params, named, last, known), in_sentence


_CLAUSE_CONTRAST = re.compile(r"[;]|\b(?:but|while|whereas|instead)\b", re.I)
#: "20 MB at 2^22", "50 TFLOP/s for plain fp32", "90 µs of GPU time at 2^22": a few words, then the case
_CASE_TAIL = re.compile(
    r"^(?!.*\b(?:and|or|but|as|than|like|vs|versus|while|whereas|against)\b)(?!.*[,;])"
    r"\s*(?:\(\s*)?(?:[a-zA-Z-]+\s+){0,3}?(?:at|for|in|with|on|of)?\s*(?:[a-zA-Z-]+\s+){0,2}$", re.I
)


def _in_table(num: Stated, cell: _Cell, text: str, case: Mapping[str, ParamValue], cases: list[Mention],
              names: list[Mention], known: Sequence[Mapping[str, ParamValue]]) -> Attributed:
    """A number in a table cell: the variant its column or row header names, the case its row, column or
    corner names (else the cell's own text, else the explanation's case)."""
    spans = [(cell.start, cell.end), *cell.heads]
    variant = next((m.variant for a, b in spans for m in names if a <= m.start < b), None)
    params, named = dict(case), dict[str, ParamValue]()
    for a, b in reversed(spans):
        for m in cases:
            if a <= m.start < b and m.params:
                params.update(m.params)
                named.update(m.params)
    words = " ".join(text[a:b] for a, b in spans)
    return Attributed(num, Context(variant, _complete(params, named, named, known), words, cell.start,
                                   bool(named), words))


def _here(text: str) -> list[Mention]:
    return [Mention(m.start(), m.end(), variant=None, params=None) for m in _HERE.finditer(text)]


@dataclass(frozen=True)
class _Cell:
    """A markdown table cell: where it is, and the header cells that say what its numbers are about."""

    start: int
    end: int
    heads: tuple[tuple[int, int], ...]  # the column's header cell, the row's first cell, the table's corner


def _table_cells(text: str) -> list[_Cell]:
    """Cells of markdown tables (``| | eager | compiled |`` ...): a number in a cell is about its column's
    and its row's headers, not about the sentence around the table."""
    out: list[_Cell] = []
    header: list[tuple[int, int]] | None = None
    at = 0
    for line in text.splitlines(keepends=True):
        start, body = at, line.rstrip("\n")
        at += len(line)
        if not body.lstrip().startswith("|"):
            header = None
            continue
        bounds = [start + i for i, ch in enumerate(body) if ch == "|"]
        cells = [(a + 1, b) for a, b in itertools.pairwise(bounds)]
        if re.fullmatch(r"[\s|:-]+", body):
            continue  # the |---|---| line
        if header is None:
            header = cells
            continue
        for i, (a, b) in enumerate(cells):
            heads = [c for c in (header[i] if i < len(header) else None, cells[0] if i else None, header[0]) if c]
            out.append(_Cell(a, b, tuple(heads)))
    return out


def attribute(text: str, workload: Workload, case: Mapping[str, ParamValue],
              known: Sequence[Mapping[str, ParamValue]] = ()) -> list[Attributed]:
    """Every number of ``text`` (an explanation of ``case``) with what it is said of. ``known``: the cases
    a reference measured, to complete a case the text names only in part."""
    mentioned = sorted(workload.mentions(text), key=lambda m: m.start)
    masked = _mask(text, mentioned)
    cases = sorted([*mentioned, *_here(masked)], key=lambda m: m.start)
    names = variant_mentions(masked, workload.names_of_variants())
    sentences = _sentences(masked)
    breaks = list(_CLAUSE_BREAK.finditer(masked))
    clauses = _spans(_CLAUSE_BREAK, masked)
    openers = {m.end(): m.group(0) for m in breaks}
    cells = _table_cells(masked)
    out = []
    for num in extract(masked):
        cell = next((c for c in cells if c.start <= num.start < c.end), None)
        if cell is not None:
            out.append(_in_table(num, cell, text, case, cases, names, known))
            continue
        sentence = _around(sentences, num.start)
        clause = _around(clauses, num.start)
        opener = openers.get(clause[0], "") if clause[0] > sentence[0] else ""
        clause = (max(clause[0], sentence[0]), min(clause[1], sentence[1]))
        variant = _variant(num, masked, names, sentence, clause, opener)
        params, named = _params(num, masked, case, cases, sentence, known)
        # the words a fact may need ("each", "peak", "L2"): the sentence up to the end of the number's clause
        out.append(Attributed(num, Context(variant, params, text[sentence[0]:sentence[1]], sentence[0], named,
                                           text[sentence[0]:clause[1]])))
    return out
