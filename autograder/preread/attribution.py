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

import bisect
import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..mentions import Mention, variant_mentions
from ..records import ParamValue
from ..workload import Workload
from .blocks import Block, Cell, blocks
from .blocks import cells as table_cells
from .numbers import Reading, Stated, bare_numbers, extract
from .rules import FORMULA, named
from .spellings import with_translations, with_typos

__all__ = ["Attributed", "Context", "attribute"]

_SENTENCE_END = named('sentence.end', 'where a sentence ends: after . ! ? and space, a blank line, a new list item',
        ('It is 4x. Then', 'a\n\nb', 'a\n1. b'),
        ('3.9x',))(r"(?<=[.!?])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
_ABBREVIATION = named('sentence.abbreviation',
    'a full stop of an abbreviation (e.g., i.e., vs., approx.) does not end the sentence',
        ('e.g.', 'vs.', 'approx.'),
        ('kernel.',))(r"\b(?:e\.g|i\.e|vs|approx|ca|cf|resp|fig)\.$", re.I)
_CONTRAST = r"but|while|whereas|against|versus|vs\.?|compared (?:to|with)|instead of|unlike"
_CLAUSE_BREAK = named('clause.break',
    "where a clause ends: ; : ( ) [ ] — a comma not in a number, ' - ', a contrast word",
        (';', 'a, b', ' but ', ' compared to '),
        ('1,048,576',))(r"[;:()\[\]—]|,(?!\d{3})|\s-\s|\b(?:" + _CONTRAST + r")\b", re.I)
_SEGMENT_BREAK = named('clause.segment_break',
    "a contrast that starts a new stretch for pronouns: ';', 'but', 'while', 'whereas'",
        ('; ', ' while ', ' whereas '),
        ('a, b',))(r";|\b(?:" + _CONTRAST + r")\b", re.I)
_OPENS_WITH_CONTRAST = named('clause.opens_with_contrast',
    'a clause that opens with a contrast word names none of the earlier variants',
        ('but ', ' while '),
        ('the kernel',))(r"^\W*(?:" + _CONTRAST + r")\b", re.I)
_ITEM_END = named('sentence.item_end', "a list item ends at its line's end unless the next line is indented",
        ('- eager: 4 kernels\nfused', '1. a\nb'),
        ('- a\n  wrapped',))(r"^[ \t]*(?:[-*•→]|\d+[.)])[ \t][^\n]*\n(?![ \t])", re.M)
_NEW_ITEM = named('sentence.new_item',
    "a new list item or paragraph between a number and a variant: the variant is not the number's",
        ('\n- fused', '\n\n', '\nfused: '),
        ('fused',))(r"\n\s*(?:[-*•]|\d+[.)]|\n)|\n\s*\S+\s*:")  # a new list item or paragraph
_PAIR = named('subject.pair',
    "right after a number, 'vs 25', '/ 18.4': the number is one side of a comparison, no one variant's",
        (' vs 25', ' / 18.4', ' compared to about 3'),
        (' kernels',))(r"\s*(?:vs\.?|versus|against|compared (?:to|with)|instead of|statt|anstatt|frente a|contre|"
                       r"contra|en lugar de|au lieu de|em vez de|/)\s*(?:~|≈|about\s+)?\d", re.I)
_LABEL_AHEAD = named('subject.label_ahead',
    "a variant followed by ':' or '=' labels the number after it, not the one before ('137 GFLOP (add: 16.8')",
        (': 16.8', ' = 25 µs'),
        (' kernel',))(r"\s*[:=]\s*[~≈]?\s*\d")
_COPULA = named('subject.copula', "'X is a single fused kernel': the word inside the number describes the subject X",
        ("because it's ", 'is just ', 'was '),
        ('moves ',))(r"\b(?:is|it's|it’s|it is|being|was)\s+(?:just\s+|only\s+|still\s+)?$", re.I)
_RELATIVE = named('subject.relative', "'..., whose 5 kernels': the number belongs to the variant just named",
        (' whose ',),
        ('which',))(r"^\W*whose\b", re.I)
_RELATIVE_WHICH = named('subject.relative_which',
    "'... for compiled, which launches 5 kernels': a relative clause right after a variant's name is about it",
        (', which launches ', ', that takes ', ', der braucht ', ', que lanza ', ', qui lance ', ', che lancia '),
        (' whose ', 'which is why'))(r"^\W*(?:which|that|who|der|die|das|welche[rs]?|que|qui|che|cui)\b(?!\s+is\s+why)",
                                    re.I)
_FROM = named('subject.from', "'from 4 to 1': the first number is the before-value of a change, no one variant's",
        ('from ', 'from about '),
        ('for ',))(r"\bfrom\s+(?:about\s+|roughly\s+|~\s*|≈\s*)?$", re.I)
_THAN = named('subject.than',
    "a variant right after 'than', 'as', 'vs', 'over', 'compared to' is what the sentence compares with, "
    "not its subject",
        ('faster than ', 'speedup over ', 'compared to the ', 'schneller als '),
        ('the ',))(
    r"\b(?:than|as|like|unlike|vs\.?|versus|against|compared (?:to|with)|over|relative to|als|que|sobre|"
    r"par rapport (?:à|au)|gegenüber|frente a|instead of|statt|anstatt|contre|contra|en lugar de|au lieu de|"
    r"em vez de)\s+(?:the\s+|that of\s+|for\s+)?$", re.I
)
#: between a number and the variant it is said of: "41 µs for the library kernel", "0.31 FLOP/B unfused",
#: "7 µs for the three eager kernels"
_RIGHT_AFTER = named('subject.right_after',
    "between a number and the variant right after it: '41 µs for the library kernel', '0.31 FLOP/B "
    "unfused'",
        (' for the ', ' ', ' of the three ', ' no ', ' für die ', ' pour la ', ' en el ', ' di '),
        (' and then the ',))(
    r"^\s*(?:\(\s*)?(?:(?:for|of|in|on|by|with|from|no|na|do|da|para|en|del|im|beim|bei|für|pour|du|des|di|dell[aoe]?)\s+)?"
    r"(?:the\s+|an?\s+|a single\s+|one\s+|el\s+|la\s+|le\s+|les\s+|die\s+|der\s+|den\s+|o\s+|a\s+)?"
    r"(?:\d+\s+|(?:two|three|four|five|six|seven|eight)\s+)?$", re.I)
#: a variant that labels the number: "eager: 11 µs", "eager's 27 µs", "compiled = 9 µs"
_LABELS = named('subject.label', "a variant that labels the number: 'eager: 11 µs', 'eager's 27 µs', 'compiled = 9 µs'",
        (': ', "'s ", ' = about '),
        (' moves ', ' with '))(r"^(?:\s*[:=–(]|['’]s)\s*(?:~|≈|about\s+|only\s+|just\s+)?$", re.I)
#: words that bring a sentence back to the cell's own case
_HERE = named('case.here',
    "words that bring a sentence back to the cell's own case ('here', 'in this case'; 'at this size' "
    "keeps the dtype)",
        ('here', 'at this size', 'in this case'),
        ('there',))(r"\b(?:here|at this size|in this case|for this case|this shape|this size)\b", re.I)


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
    clause: str = ""  # the sentence up to the end of the number's clause
    own_clause: str = ""  # the number's clause alone (a per-kernel figure needs "each" there)
    other: str | None = None  # the variant the sentence compares with ("faster than eager": eager)
    after: str = ""  # the words right after the number, to the end of its clause ("faster than eager")
    before: str = ""  # the words of its clause right before it ("the speedup is about")
    #: ``clause`` is the answer's text from ``offset`` on (False: a table cell's words joined with its headers')
    in_one_span: bool = True
    #: the variant is named in the number's own clause (not carried from earlier: "…, so it's 7x longer")
    variant_in_clause: bool = True
    #: the case parameters the sentence (or a table cell's headers) names itself ("TF32 at 384 TFLOP/s": dtype)
    named_params: frozenset[str] = frozenset()
    #: a table cell's column header ("" elsewhere): a timing method it names is its cells' ("GPU eager/compiled")
    column: str = ""


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


def _around(spans: list[tuple[int, int]], starts: list[int], pos: int) -> tuple[int, int]:
    """The span of sorted, disjoint ``spans`` (their ``starts``) holding ``pos``: a binary search."""
    i = bisect.bisect_right(starts, pos) - 1
    if i >= 0 and spans[i][0] <= pos < spans[i][1]:
        return spans[i]
    return (pos, pos + 1)


def _mask(text: str, mentions: list[Mention]) -> str:
    """Case-naming mentions become ``#`` so "2^24 x" or "fp32" is never read as a number."""
    chars = list(text)
    for m in mentions:
        for i in range(m.start, m.end):
            if chars[i] not in " \n":
                chars[i] = "#"
    return "".join(chars)


#: the longest stretch one rule looks at: a sentence longer than this (no real one is; a hostile answer's
#: may be megabytes) is read in pieces of at most this length, cut at a space, so that no rule's work
#: grows with the length of the answer and the whole pre-read is linear in it
MAX_SENTENCE = 1000
#: how far back a rule that reads "the words just before" looks ("faster than ", "from about ")
LOOKBACK = 64


def _cap(a: int, b: int, text: str) -> list[tuple[int, int]]:
    out = []
    while b - a > MAX_SENTENCE:
        cut = text.rfind(" ", a + MAX_SENTENCE // 2, a + MAX_SENTENCE)
        cut = cut + 1 if cut > a else a + MAX_SENTENCE
        out.append((a, cut))
        a = cut
    out.append((a, b))
    return out


def _sentences(text: str, more: Sequence[int] = ()) -> list[tuple[int, int]]:
    """Sentence spans; "e.g. 5 kernels" does not end a sentence; a list item ends at its line's end unless
    the next line is indented (a wrapped item); ``more``: other places a sentence ends (lines of code); none
    is longer than :data:`MAX_SENTENCE`."""
    out: list[tuple[int, int]] = []
    cuts = {m.end() for m in _SENTENCE_END.finditer(text)} | set(more)
    cuts |= {m.end() for m in _ITEM_END.finditer(text)}
    ends = sorted(cuts)
    for a, b in zip([0, *ends], [*ends, len(text)], strict=True):
        if out and _ABBREVIATION.search(text[max(out[-1][0], out[-1][1] - 16):out[-1][1]].rstrip()):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return [piece for a, b in out for piece in _cap(a, b, text)]


def _tail(pattern: re.Pattern[str], text: str, lo: int, end: int) -> bool:
    """Whether ``text[lo:end]`` ends with ``pattern`` (a pattern anchored with ``$``), looking back at most
    :data:`LOOKBACK` characters."""
    return pattern.search(text[max(lo, end - LOOKBACK):end]) is not None


class _Names:
    """The variant mentions of a text, indexed for the questions :func:`_variant` asks of each number
    (binary searches over their positions, so each question costs the same however long the text)."""

    def __init__(self, names: list[Mention], text: str, sentences: list[tuple[int, int]],
                 sentence_starts: list[int]) -> None:
        self.names = names
        self.text = text
        self.starts = [m.start for m in names]
        # a name right after "than", "as", "vs": what the sentence compares with, not its subject
        self.after_than = [
            _tail(_THAN, text, _around(sentences, sentence_starts, m.start)[0], m.start) for m in names
        ]
        self.subjects = [m for m, t in zip(names, self.after_than, strict=True) if not t]
        self.subject_starts = [m.start for m in self.subjects]
        # the latest earlier subject naming another variant (or none): "one variant since here" in O(1)
        self.prev_other: list[int] = []
        for i, m in enumerate(self.subjects):
            if i == 0:
                self.prev_other.append(-1)
            elif self.subjects[i - 1].variant != m.variant:
                self.prev_other.append(i - 1)
            else:
                self.prev_other.append(self.prev_other[i - 1])

    def between(self, a: int, b: int) -> list[Mention]:
        """Names starting in ``[a, b)``."""
        return self.names[bisect.bisect_left(self.starts, a):bisect.bisect_left(self.starts, b)]

    def last_subject(self, a: int, end: int) -> int | None:
        """Index (in :attr:`subjects`) of the last subject starting at or after ``a`` and ending by ``end``."""
        i = bisect.bisect_right(self.subject_starts, end) - 1
        while i >= 0 and self.subjects[i].end > end:
            i -= 1
        return i if i >= 0 and self.subjects[i].start >= a else None

    def only_variant(self, a: int, end: int) -> tuple[bool, str | None]:
        """(whether subjects name exactly one variant in ``[a, end)``, that variant)."""
        i = self.last_subject(a, end)
        if i is None:
            return False, None
        j = self.prev_other[i]
        return (j < 0 or self.subjects[j].start < a), self.subjects[i].variant


_PAIR_VERB = named('subject.pair_verb',
    "between a variant and the first number of a pair ('fused took 65 µs against 262'): a verb that makes the "
    "variant that number's subject",
        (' took ', ' takes ', ' moves ', ' runs in ', ' needs about ', ' launches '),
        (' and eager ', ' vs '))(
    r"^\s*(?:kernel\s+|call\s+|version\s+|one\s+)?(?:took|takes|take|needs?|needed|moves?|moved|runs?(?:\s+in)?|ran(?:\s+in)?|"
    r"lasts?|lasted|launch(?:es)?|launched|costs?|is|was|reads?|writes?)\s+(?:in\s+|at\s+)?(?:about\s+|~\s*|≈\s*|only\s+|just\s+)?$",
    re.I)


def _variant(num: Stated, text: str, names: _Names, sentence: tuple[int, int],
             clause: tuple[int, int], opener: str, segment: int) -> str | None:
    inside = names.between(num.start, num.end)  # "one fused kernel"
    if inside:
        # "the library call ... because it's a single fused kernel": the word describes the subject named before
        if _tail(_COPULA, text, sentence[0], num.start):
            last = names.last_subject(sentence[0], num.start)
            if last is not None:
                return names.subjects[last].variant
        return inside[0].variant
    right_after = [
        m for m in names.between(num.end, min(sentence[1], num.end + LOOKBACK))
        if not _NEW_ITEM.search(text[num.end:m.end + 3]) and _RIGHT_AFTER.match(text[num.end:m.start])
        and not _LABEL_AHEAD.match(text, m.end)  # "137 GFLOP (add: 16.8 MFLOP)": the add labels the next number
    ]
    if right_after:
        return right_after[0].variant
    held = _in_parenthesis_of(num, text, names, sentence)
    if held is not None:  # "7.7x slower than eager (26 µs, 5 kernels, 16.8 MB)": eager's figures
        return held
    pair = _PAIR.match(text, num.end)
    if pair and not _tail(_THAN, text, sentence[0], num.start):
        # "eager moves 268 MB vs 67 MB for fused": the subject before, the other variant after the pair
        last = names.last_subject(clause[0], num.start)
        after = [m for m in names.between(pair.end(), min(sentence[1], pair.end() + LOOKBACK))
                 if _RIGHT_AFTER.match(re.sub(r"^[\d.,]*\s*\S*", "", text[pair.end():m.start], count=1))]
        if last is not None and after and after[0].variant not in (None, names.subjects[last].variant):
            return names.subjects[last].variant
        # "in GPU time fused took 65 µs against 262 µs": the one variant named so far in its stretch, in the
        # number's own clause, with none named in the rest of the sentence, is the first side's
        if (last is not None and names.subjects[last].variant is not None
                and names.only_variant(segment, num.start) == (True, names.subjects[last].variant)
                and not names.between(num.end, sentence[1])
                and _PAIR_VERB.search(text[names.subjects[last].end:num.start])):
            return names.subjects[last].variant
    if _tail(_THAN, text, sentence[0], num.start) or pair:
        return None  # "slower than four aten launches", "174 µs vs 25 µs": one side of a comparison
    labels = [m for m in names.between(max(sentence[0], num.start - LOOKBACK), num.start)
              if m.end <= num.start and _LABELS.match(text[m.end:num.start])]
    if labels:
        return labels[-1].variant
    # "faster than eager": the thing compared with, not the subject
    last = names.last_subject(clause[0], num.start)
    if last is not None:
        before = names.subjects[last]
        if _tail(_FROM, text, before.end, num.start):
            return None
        return before.variant
    if opener and _OPENS_WITH_CONTRAST.match(opener):
        return None
    # "..., whose 5 kernels": the variant just named
    if _RELATIVE.match(text[clause[0]:min(num.start, clause[0] + LOOKBACK)]):
        near = [m for m in names.between(sentence[0], clause[0]) if m.end <= clause[0]]
        return near[-1].variant if near else None
    if _RELATIVE_WHICH.match(text[clause[0]:min(num.start, clause[0] + LOOKBACK)]):
        near = [m for m in names.between(sentence[0], clause[0]) if m.end <= clause[0]]
        if near and not text[near[-1].end:clause[0]].strip(" ,"):  # the name ends the clause before
            return near[-1].variant
    # the stretch since the last contrast ("while the add, which is memory bound, needs 174 µs"), then the sentence
    for start in (segment, sentence[0]):
        one, variant = names.only_variant(start, num.start)
        if names.last_subject(start, num.start) is not None:
            return variant if one else None
    # "The multiply has 341 FLOP/byte. It runs at 346 TFLOP/s": a sentence that opens with a pronoun is about
    # the one variant the sentence before names
    if _OPENS_WITH_PRONOUN.match(text[sentence[0]:min(sentence[1], sentence[0] + 16)]):
        one, variant = names.only_variant(max(0, sentence[0] - 2 * LOOKBACK), sentence[0])
        return variant if one else None
    return None


_OPENS_WITH_PRONOUN = named('subject.pronoun_opens',
    "a sentence that opens with 'It', 'Its', 'This kernel': about the one variant the sentence before names",
        ('It runs at', "Its time is", 'This kernel takes', "It's at", 'Er läuft', 'Il tourne'),
        ('Its of', 'Then it', 'Both run'))(
    r"^\s*(?:it|its|it's|this kernel|that kernel|this one|er|sie|il|elle|él|ele|ela)\b(?!\s+of\b)", re.I)


_PAREN_OF = named('subject.parenthesis_of_name',
    "an opening parenthesis right after a variant's name ('than eager (26 µs, 5 kernels)', 'eager's (71 µs'): "
    "the figures inside it are that variant's",
        (' (', "'s (", ' (', "'s simple streaming passes (", "'s 5 kernels ("),
        (' is (', ' ran (', "'s kernel is fast ("))(
    r"^(?:['’]s(?:\s+(?!(?:is|are|was|were|has|have|does|do|runs?|takes?|moves?)\b)[\w-]+){0,3})?\s*\($", re.I)


def _in_parenthesis_of(num: Stated, text: str, names: _Names, sentence: tuple[int, int]) -> str | None:
    """The variant whose name opens the parenthesis the number is in, if it is still open (bounded window)."""
    lo = max(sentence[0], num.start - LOOKBACK)
    opened = text.rfind("(", lo, num.start)
    if opened < 0 or ")" in text[opened:num.start]:
        return None
    named_ = [m for m in names.between(max(sentence[0], opened - 40), opened) if m.end <= opened]
    if named_ and named_[-1].variant is not None and _PAREN_OF.match(text[named_[-1].end:opened + 1]):
        return named_[-1].variant
    return None


_OWN_THAN = named('subject.own_than',
    "right after a ratio, its own comparison up to the variant it is set against: 'x faster than the ', "
    "' slower than ', 'x vs '",
        ('x faster than the ', ' slower than ', ' faster than ', 'x vs '),
        (' and 3x faster than ', ', slower than ', ' faster; than '))(
    r"^(?:(?![,;.]\s|\band\b|\bbut\b)[^\n])*?\b(?:than|vs\.?|versus|compared (?:to|with)|als|que)\s+"
    r"(?:(?:the|le|la|el|der|die|das|o|a)\s+)?$", re.I)


def _other(num: Stated, names: _Names, sentence: tuple[int, int], subject: str | None,
           segment: tuple[int, int] | None = None) -> str | None:
    """The variant the sentence compares the number's subject with: the nearest name after "than", "vs",
    "compared to" in its stretch of the sentence (since the last ';' or contrast: "eager 268 vs fused 67;
    speedup 3.85" compares nothing at the 3.85) ("3.9x faster than eager", "compared with eager, fused is 3.9x
    faster")."""
    best: tuple[int, str] | None = None
    a, b = segment or sentence
    lo, hi = max(a, num.start - MAX_SENTENCE // 4), min(b, num.end + MAX_SENTENCE // 4)
    i0 = bisect.bisect_left(names.starts, lo)
    for i in range(bisect.bisect_left(names.starts, num.end), bisect.bisect_left(names.starts, hi)):
        m = names.names[i]  # the number's own "than" right after it wins ("2.7x faster than eager and 21x
        # faster than the library": the library, not the nearer eager)
        if names.after_than[i] and m.variant is not None and m.variant != subject:
            if _OWN_THAN.search(names.text[num.end:m.start]):  # (within the bounded window)
                return m.variant
            break  # (only the first compared name after it: a bounded look)
    for i in range(i0, bisect.bisect_left(names.starts, hi)):
        m = names.names[i]
        if names.after_than[i] and m.variant is not None and m.variant != subject:
            d = num.start - m.end if m.end <= num.start else m.start - num.end
            if best is None or d < best[0]:
                best = (d, m.variant)
    return best[1] if best else None


def _complete(params: dict[str, ParamValue], named: Mapping[str, ParamValue], last: Mapping[str, ParamValue],
              known: Sequence[Mapping[str, ParamValue]]) -> dict[str, ParamValue]:
    """A case whose other parameters are left over from an earlier sentence, completed from the measured
    cases that agree with what this sentence names ("at 4096 columns" in a sweep whose rows shrink as its
    columns grow), or failing that with the latest mention alone."""
    if not known or any(dict(k) == params for k in known) or set(named) >= set(params):
        return params  # measured, or named in full by the sentence (judged by the work model there)
    for wanted in (named, last):
        agree = [dict(k) for k in known if all(k.get(p) == v for p, v in wanted.items())]
        if wanted and agree:
            return max(agree, key=lambda k: sum(k.get(p) == v for p, v in params.items()))
    return params


_DTYPE_MODIFIER = named('case.dtype_modifier',
    "a dtype right before what it describes of something else ('rounded float32 inputs', 'fp32 accumulation', "
    "'bf16 operands'): it does not move the sentence's case",
        (' inputs', ' accumulation', ' operands', ' range', '-range', ' mantissa', ' accumulator'),
        (' matmul', ' is', ' at 4096'))(
    r"[\s-]*(?:inputs?|operands?|accumulat\w*|range|mantissas?|exponents?|storage|values|data|Eingaben|entradas|"
    r"entrées|operandos)\b", re.I)


_DTYPE_ROUNDED = named('case.dtype_rounded',
    "a dtype right after 'rounded', 'truncated' or 'emulating' ('tensor cores on rounded fp32') is what another "
    "dtype is made from: it does not move the sentence's case",
        ('on rounded ', 'truncated ', 'emulates '),
        ('in ', 'at '))(r"\b(?:rounded|truncated|emulat\w*|gerundet\w*|redondead\w*|arrondi\w*|arrotondat\w*)\s+$",
                        re.I)


class _Cases:
    """The case mentions of a text ("at 2^22", "fp32", "here"), indexed: the case a number is said of is
    the fold of every mention before it, kept as a running state from sentence to sentence (numbers are
    asked in text order), then the few mentions of its own sentence."""

    def __init__(self, cases: list[Mention], text: str, case: Mapping[str, ParamValue]) -> None:
        self.cases = cases
        self.starts = [m.start for m in cases]
        self.text = text
        self.case = dict(case)
        # "the same 6.3 MB as bf16 ... runs at": what it is compared with, not where it is
        self.compared = [_THAN.search(text[max(0, m.start - 20):m.start]) is not None
                         or (m.params is not None and "dtype" in m.params
                             and _DTYPE_ROUNDED.search(text[max(0, m.start - 20):m.start]) is not None)
                         or (m.params is not None and "dtype" in m.params
                             and _DTYPE_MODIFIER.match(text, m.end) is not None)
                         for m in cases]
        self.contrasts = [m.start() for m in _CLAUSE_CONTRAST.finditer(text)]
        self._at = 0  # mentions before this index are folded into the state below
        self._params: dict[str, ParamValue] = dict(case)
        self._last: Mapping[str, ParamValue] = {}

    def _state_at(self, pos: int) -> tuple[dict[str, ParamValue], Mapping[str, ParamValue]]:
        """(params, latest mention) after every mention that starts before ``pos`` (a sentence's start)."""
        if pos < (self.cases[self._at - 1].start if self._at else -1):
            self._at, self._params, self._last = 0, dict(self.case), {}  # asked out of order: start again
        while self._at < len(self.cases) and self.cases[self._at].start < pos:
            m = self.cases[self._at]
            if m.params is None:
                self._params = {**self._params, **self.case} if m.keeps is None else {
                    **self._params, **{k: v for k, v in self.case.items() if k not in m.keeps}}
            elif not self.compared[self._at]:
                self._params = {**self._params, **m.params}
                self._last = m.params
            self._at += 1
        return dict(self._params), self._last

    def in_range(self, a: int, b: int) -> range:
        return range(bisect.bisect_left(self.starts, a), bisect.bisect_left(self.starts, b))

    def params(self, num: Stated, sentence: tuple[int, int],
               known: Sequence[Mapping[str, ParamValue]]) -> tuple[dict[str, ParamValue], bool, frozenset[str]]:
        text, cases = self.text, self.cases
        params, last = self._state_at(sentence[0])
        named: dict[str, ParamValue] = {}
        for i in self.in_range(sentence[0], num.start):
            m = cases[i]
            if m.end > num.start:
                break
            if m.params is None:  # "here": the cell's case again ("at this size": its size, not its dtype)
                if m.keeps is None:
                    params, named = dict(self.case), {}
                else:
                    params = {**params, **{k: v for k, v in self.case.items() if k not in m.keeps}}
                    named = {k: v for k, v in named.items() if k in m.keeps}
                continue
            if self.compared[i] and m.end < num.start - 2 and not _POSSESSIVE.match(text, m.end, num.start):
                continue  # ("vs float32's 2.69 ms": the figure is float32's all the same)
            params.update(m.params)
            last = m.params
            named = {**named, **m.params}
        before_here = bool(self.in_range(sentence[0], num.start))
        after = self.in_range(num.end, sentence[1])
        if after:
            first = after.start
            m = cases[first]
            between = text[num.end:m.start]
            contrast = bisect.bisect_left(self.contrasts, num.end)
            crossed = contrast < len(self.contrasts) and self.contrasts[contrast] < m.start
            if (len(between) <= 2 * LOOKBACK and _CASE_TAIL.match(between)) or (not before_here and not crossed):
                if m.params is None:
                    params, named = dict(self.case), {}
                else:  # with the mentions right after it: "at 2^22 fp16"
                    end = m.start
                    for n in cases[first:first + 8]:
                        if not n.params:
                            continue
                        if not re.fullmatch(r"[\s,/]*(?:in|and)?[\s,/]*", text[end:n.start]):
                            break
                        params.update(n.params)
                        named.update(n.params)
                        last, end = n.params, n.end
        in_sentence = bool(self.in_range(sentence[0], sentence[1]))
        return _complete(params, named, last, known), in_sentence, frozenset(named)


_POSSESSIVE = named('case.possessive', "a case's name right before its figure: \"float32's 2.69 ms\", \"bf16's ~761\"",
        ("'s ", "’s about ", "'s ~"),
        (" is ", "'s peak of "))(r"['’]s\s*(?:~\s*|≈\s*|about\s+|only\s+)?$", re.I)
_CLAUSE_CONTRAST = named('case.contrast',
    "a case named after a contrast or a new statement ('; but at 2^22', ': that is dispatch, so in the middle "
    "(2^16)', ', and at 2^20') is not the number's",
        ('; ', ' but ', ' whereas ', ': that is', ', so ', ' because ', ', and '),
        (', ', '2:1', ' also '))(r"[;]|:\s|,\s*and\b|\b(?:but|while|whereas|instead|so|because|since|hence|thus|"
                                  r"therefore)\b", re.I)
#: "20 MB at 2^22", "50 TFLOP/s for plain fp32", "90 µs of GPU time at 2^22": a few words, then the case
_CASE_TAIL = named('case.tail',
    "a few words between a number and the case after it: '20 MB at 2^22', '90 µs of GPU time at 2^22'",
        (' at ', ' of GPU time at ', ' for plain ', ' (', ' '),
        (' and then at ', ' sits between ', ' is still below '))(
    r"^(?!.*\b(?:and|or|but|as|than|like|vs|versus|while|whereas|against|between|among|zwischen|entre|tra|fra)\b)"
    r"(?!.*[,;])\s*(?:\(\s*)?(?:(?:[a-zA-Z-]+\s+){0,3}?(?:at|for|in|with|on|of|bei|für|mit|en|para|con|pour|à|em|com|a|ad|di|de|du|da)"
    r"\s+(?:[a-zA-Z-]+\s+){0,2})?$", re.I
)


_POWER_HEAD = named('table.power_head',
    "a column header saying its cells are exponents of two ('2^k', 'log2 n', 'k', 'log₂(N)'): a row's '24' is 2^24",
        ('2^k', 'log2 n', 'k', 'log₂(N)', '2^#'),
        ('kernels', 'n'))(r"^\s*(?:2\s*\^\s*[\w#]+|log_?(?:2|₂)\s*\(?\s*\w*\)?|k)\s*$", re.I)


_COUNT_HEAD = named('table.count_head',
    "a column header saying its cells are counts of elements ('N', 'n', 'numel', 'elements', 'size (elements)'): a "
    "row's bare '4096' or '16,777,216' names the case of that many elements (a power of two), as 'N = 4096' does",
        ('N', 'n', 'numel', 'elements', 'size (elements)', 'n_elements', 'N (elements)'),
        ('kernels', 'bytes', 'size (MB)', 'log2_n'))(
    r"^\s*(?:N|n|numel|n_?elements|elements|size\s*\(\s*elements\s*\)|N\s*\(\s*elements\s*\))\s*$", re.I)


def _exponent_cell(num: Stated, cell: Cell, text: str) -> bool:
    """A bare whole number alone in a cell under a column of exponents of two ('2^k', 'log2_n'): a case."""
    head = cell.column_head
    return (head is not None and _POWER_HEAD.match(text[head[0]:head[1]]) is not None
            and re.fullmatch(r"\s*\d{1,2}\s*", text[cell.start:cell.end]) is not None and not num.unit)


def _row_case(cell: Cell, text: str, workload: Workload) -> dict[str, ParamValue]:
    """The case a row names by an exponent under a '2^k' column ("| 24 | 97.5 | ..."), else none."""
    if len(cell.heads) < 3:
        return {}
    row, corner = cell.heads[1], cell.heads[2]
    exponent = re.fullmatch(r"\s*(\d{1,2})\s*", text[row[0]:row[1]])
    count = re.fullmatch(r"\s*(\d{1,3}(?:,\d{3})+|\d{3,12})\s*", text[row[0]:row[1]])
    if count is not None and _COUNT_HEAD.match(text[corner[0]:corner[1]]):  # "| 4096 |" under "N"
        n = int(count.group(1).replace(",", ""))
        exponent = re.fullmatch(r"(\d+)", str(n.bit_length() - 1)) if n & (n - 1) == 0 else None
    elif exponent is None or not _POWER_HEAD.match(text[corner[0]:corner[1]]):
        return {}
    if exponent is None:
        return {}
    got = [m.params for m in workload.mentions(f"at 2^{exponent.group(1)}") if m.params]
    return dict(got[0]) if got else {}


def _in_table(num: Stated, cell: Cell, text: str, case: Mapping[str, ParamValue], cases: _Cases,
              names: _Names, known: Sequence[Mapping[str, ParamValue]],
              row_case: Mapping[str, ParamValue] | None = None) -> Attributed:
    """A number in a table cell: the variant its column or row header names, the case its row, column or
    corner names (else the cell's own text, else the explanation's case)."""
    spans = [(cell.start, cell.end), *cell.heads]
    variant = next((m.variant for a, b in spans for m in names.between(a, b)), None)
    params, named = {**case, **(row_case or {})}, dict(row_case or {})
    for a, b in reversed(spans):
        for i in cases.in_range(a, b):
            m = cases.cases[i]
            if m.params:
                params.update(m.params)
                named.update(m.params)
    words = " ".join(text[a:b] for a, b in spans)
    return Attributed(num, Context(variant, _complete(params, named, named, known), words, cell.start,
                                   bool(named), words, text[cell.start:cell.end], in_one_span=False,
                                   named_params=frozenset(named),
                                   column=text[cell.column_head[0]:cell.column_head[1]] if cell.column_head else ""))


def _here(text: str) -> list[Mention]:
    """"here", "in this case": back to the cell's case; "at this size", "this shape": back to its size, the
    dtype the text named stays."""
    return [Mention(m.start(), m.end(), variant=None, params=None,
                    keeps=frozenset({"dtype"}) if re.search(r"size|shape", m.group(0), re.I) else None)
            for m in _HERE.finditer(text)]


@dataclass(frozen=True)
class Frame:
    """What the attribution and the conclusion check both read: the lesson's case mentions, the text with
    them masked, its markdown blocks and its sentences."""

    mentioned: list[Mention]
    masked: str
    blocks: list[Block]
    sentences: list[tuple[int, int]]
    names: list[Mention]  # where the text names a variant (or all of them: variant None)


_TILE = named('case.tile_shape',
    "a shape of tiles or blocks ('64 tuiles de 128 × 128', '128x128 Kacheln') is the kernel's tiling, not a case",
        ('tuiles de ', 'tiles of ', 'Kacheln von ', 'bloques de ', 'bloques (tiles) de ', 'output tiels of '),
        ('matrices of ', 'at '))(r"\b(?:tiles?|tiels?|tlies|tuiles?|Kacheln|Kachel|bloques|blocos|blocks?|mosaicos)\s+"
                                  r"(?:\([^()]{0,16}\)\s*)?(?:of|de|von|aus|do|da)\s*$",
                                  re.I)
_TILE_AFTER = named('case.tile_shape_after',
    "a shape right before a word for tiles or blocks, maybe one word between or misspelt ('128 × 128 tiles', "
    "'128x128-Kacheln', '128 x 128 output tiles', '128x128 tiels') is not a case",
        (' tiles', '-Kacheln', ' tuiles', ' bloques', ' output tiles', ' tiels', ' thread blocks', ' CTAs'),
        (' matrix', ' output matrix', ' the tiles'))(
    r"^[\s-]*(?:(?:output|thread|result|cuBLAS|GEMM|matmul|Ausgabe|salida|sortie|saída)[\s-]+)?(?:tiles?|tiels?|tlies|tilse|tuiles?|Kacheln|bloques|blocos|blocks?|CTAs?|"
    r"mosaicos|blocchi|ladrilhos)\b", re.I)


_AFTER_FACTOR = named('case.after_factor',
    "a number right after 'a factor of', 'a ratio of', 'a speedup of' is that ratio's value, not a case ('a factor "
    "of 8192 between them')",
        ('a factor of ', 'a ratio of about ', 'speedup of ~', 'Faktor '),
        ('at ', 'n = '))(r"\b(?:factor|ratio|speed-?\s?up|Faktor|facteur|fator|factor)\s+(?:of\s+|von\s+|de\s+)?"
                         r"(?:about\s+|roughly\s+|~\s*|≈\s*)?$", re.I)
_SIZE_IS_VALUE = named('case.size_is_value',
    "a power of two or a number right before a unit of bytes or FLOPs ('2^31 FLOP', '2^22 B', 'a row of 8 KB') is "
    "a count, not a case",
        (' FLOP', ' B', ' bytes', ' MiB'),
        (' elements', ' x 4096'))(r"^\s*(?:[kmgt]i?b\b|bytes?\b|(?-i:B)\b|[kmgtp]?flops?\b|octets?\b)", re.I)


_PART_SIZE = named('case.part_size',
    "a case's word followed by its size in bytes ('one row is only 8 KB', 'a row holds 8 KiB') speaks of how big a "
    "part is, not of the case the answer is about",
        (' is only 8 KB', ' holds 8 KiB', ' is 8,192 bytes', ' is just ~8 KB'),
        (' is 4x faster', ' takes 41 µs', ' of 2^20'))(
    r"^\s*(?:is|are|was|has|holds|takes up|occupies)\s+(?:(?:only|just|about|roughly)\s+)?(?:~\s*)?"
    r"\d[\d.,]*\s*(?:[kmgt]i?b\b|bytes?\b|(?-i:B)\b)", re.I)


_RATIO_AFTER = named('case.ratio_after',
    "a number right before 'times' or a ratio word ('8192 times longer', '8192x slower', '1365-fold') is a ratio's "
    "value, not a case",
        (' times longer', 'x slower', ' times', '-fold', ' mal länger', ' veces más', ' fois plus', ' volte più'),
        (' x 4096', ' times 4096', ' elements', ' fp16 elements'))(
    r"^(?:\s*(?:times|fold|mal|veces|fois|vezes|volte)(?!\s*\d)|-fold|\s*[x×]\s*(?:longer|shorter|faster|slower|more|"
    r"less|fewer|larger|smaller|higher|lower)\b)", re.I)
_PER_WORKER = named('case.per_worker',
    "a case's word followed by 'per program', 'per block', 'per thread' ('one row per program') says how the work is "
    "split, not which case the answer is about",
        (' per program', ' per block', ' per thread block', ' per CTA', ' pro Block', ' par bloc', ' por bloque'),
        (' per call', ' of 2^20', ' per second'))(
    r"^\s*(?:per|for each|for every|pro|por|par|each)\s+(?:thread\s+|triton\s+|CUDA\s+)?"
    r"(?:programs?|blocks?|threads?|CTAs?|SMs?|warps?|instances?|Block|bloc|bloque|bloco)\b", re.I)
_WORKER_DOES = named('case.worker_does',
    "a case's word right after what each program, block or thread does ('each program does one row', 'every block "
    "handles one row', 'jeder Block bearbeitet eine Zeile') says how the work is split, not which case it is",
        ('each program does ', 'every block handles ', 'one thread block per ', 'each Triton program reads ',
         'jeder Block bearbeitet ', 'cada bloque procesa '),
        ('each kernel moves ', 'at ', 'the program does '))(
    r"\b(?:each|every|one|per|jeder|jede|cada|chaque|ogni)\s+(?:thread\s+|triton\s+|CUDA\s+)?"
    r"(?:programs?|blocks?|threads?|CTAs?|warps?|instances?|Block|bloc|bloque|bloco|programa|programme)"
    r"\s+(?:[^\W\d]+\s+){0,2}$", re.I)
_AS_IN = named('case.as_in',
    "a case named after 'as in', 'like at', 'wie bei', 'comme pour', 'como en' ('fuses everything into 1 kernel as "
    "in the 4096 x 4096 case') is a case compared with, not the one the number is of",
        ('as in the ', 'like at ', 'just like in ', 'wie bei ', 'comme pour ', 'como en el ', 'como no ', 'come nel '),
        ('at ', 'in the ', 'as '))(
    r"\b(?:as|like)\s+(?:in|at|for|with|on)\s+(?:the\s+)?$|\b(?:wie\s+(?:bei|im)|comme\s+(?:pour|dans|avec|à)|"
    r"como\s+(?:en|no|na|con|em)|come\s+(?:nel|per|con|a))\s+(?:(?:the|le|la|el|o|a|dem|der)\s+)?$", re.I)
_ELEMENTS = named('case.elements_word',
    "a case named by its count of elements ('4096 fp16 elements'): its size in bytes "
    "after it restates the case, it names no part",
        ('4096 fp16 elements', '2^24 Elemente', '2^20 elementos', '2^12 éléments'),
        ('one row', '4096 x 4096'))(r"\b(?:elements?|Elemente?|elementos?|éléments?|elementi)\s*$", re.I)


_TILE_NEAR = named('case.tile_shape_near',
    "a square shape ('128 by 128', '128 x 128') a few words after tiles or blocks are named ('cuts C into tiles, "
    "and if they are 128 by 128') is the tiling, not a case",
        ('cuts C into tiles, and if they are ', 'tiles, each ', 'blocks of size '),
        ('the tiles. At ', 'tiles; at ', 'blocks: '))(
    r"\b(?:tiles?|tiels?|tuiles?|Kacheln|bloques|blocos|blocks?|blocchi)\b[^.;:!?\n]{0,40}$", re.I)
_SQUARE = named('case.square_side',
    "the words next to a side of a square shape: ' by 128' after it, or '128 x ' before it",
        (' by 128', ' x 128', '128 × '),
        (' tiles', 'at '))(r"^\s*(?:x|×|by|\*|por|mal|par)\s*\d|(?<=\d)\s*(?:x|×|by|\*|por|mal|par)\s*$", re.I)


def _square_after_tiles(m: Mention, text: str) -> bool:
    """A mention that is a side of a square shape ("128 by 128") named a few words after tiles or blocks."""
    square = (_SQUARE.match(text[m.end:m.end + 8]) is not None or _SQUARE.search(text[max(0, m.start - 8):m.start])
              or re.search(r"\d\s*(?:x|×|by|\*|por|mal|par)\s*\d", text[m.start:m.end], re.I))
    return bool(square) and _TILE_NEAR.search(text[max(0, m.start - 56):m.start]) is not None


def _not_tiles(mentioned: list[Mention], text: str) -> list[Mention]:
    """The lesson's case mentions less those that are no case: a tiling ('tiles of 128 x 128') or a count
    of bytes or FLOPs, written as a power of two ('2^31 FLOP') or not ('a row of 8 KB')."""
    return [m for m in mentioned
            if m.variant is not None or not m.params or "dtype" in m.params
            or not (_TILE.search(text[max(0, m.start - 24):m.start]) or _TILE_AFTER.match(text[m.end:m.end + 12])
                    or _square_after_tiles(m, text)
                    or _AFTER_FACTOR.search(text[max(0, m.start - 30):m.start])
                    or (_PART_SIZE.match(text[m.end:m.end + 40]) and not _ELEMENTS.search(text[m.start:m.end]))
                    or _RATIO_AFTER.match(text[m.end:m.end + 16])
                    or _PER_WORKER.match(text[m.end:m.end + 32])
                    or _WORKER_DOES.search(text[max(0, m.start - 48):m.start])
                    or _AS_IN.search(text[max(0, m.start - 24):m.start])
                    or (re.search(r"(?:^|\s|of)(?:\d+|2\s?(?:\^|\*\*)\s?\d{1,2})$", text[m.start:m.end])
                        and _SIZE_IS_VALUE.match(text[m.end:m.end + 12])))]


def frame(text: str, workload: Workload) -> Frame:
    mentioned = _not_tiles(sorted(_lesson_mentions(workload, text), key=lambda m: m.start), text)
    masked = _mask(text, mentioned)
    blks = blocks(masked)
    # a line of a code block is a sentence of its own (pasted output: one record a line)
    sentences = _sentences(masked, [m.end() for b in blks if b.kind == "code"
                                    for m in _NEWLINE.finditer(masked, b.start, b.end)])
    words = with_typos(with_translations(workload.names_of_variants()))
    return Frame(mentioned, masked, blks, sentences, variant_mentions(masked, words))


def attribute(text: str, workload: Workload, case: Mapping[str, ParamValue],
              known: Sequence[Mapping[str, ParamValue]] = (), framed: Frame | None = None) -> list[Attributed]:
    """Every number of ``text`` (an explanation of ``case``) with what it is said of. ``known``: the cases
    a reference measured, to complete a case the text names only in part.

    Linear in the length of ``text``: every pattern runs once over the text (the lesson's own case
    patterns once per piece of at most :data:`MAX_SENTENCE` characters), and each number asks only
    binary searches and windows of bounded length (:data:`LOOKBACK`, :data:`MAX_SENTENCE`)."""
    framed = framed or frame(text, workload)
    mentioned, masked, blks, sentences = framed.mentioned, framed.masked, framed.blocks, framed.sentences
    # a size inside a formula ("= 8192/6") is masked like any mention but names no case
    quotes = [(b.start, b.end) for b in blks if b.kind == "quote"]
    outside = "".join(masked[a:b] for a, b in zip([0, *(e for _, e in quotes)], [*(s for s, _ in quotes), len(masked)],
                                                  strict=True))
    if not outside.strip():
        quotes = []  # the whole answer is a quote: the student's own words, formatted so
    # (nor does a case a quoted prompt names: "> ... and why TF32 sits between bf16 and float32." is the question's)
    naming = [m for m in mentioned if not _in_formula(text, m) and not any(a <= m.start < b for a, b in quotes)]
    cases = _Cases(sorted([*naming, *_here(masked)], key=lambda m: m.start), masked, case)
    sentence_starts = [a for a, _ in sentences]
    names = _Names(framed.names, masked, sentences, sentence_starts)
    breaks = list(_CLAUSE_BREAK.finditer(masked))
    clauses = _spans(_CLAUSE_BREAK, masked)
    clause_starts = [a for a, _ in clauses]
    openers = {m.end(): m.group(0) for m in breaks}
    segments = [m.end() for m in _SEGMENT_BREAK.finditer(masked)]
    seg_starts = [m.start() for m in _SEGMENT_BREAK.finditer(masked)]
    cells = table_cells(masked, blks)
    cell_starts = [c.start for c in cells]
    out = []
    read = _with_unitless_cells(extract(masked, workload.counted), masked, cells)
    read = sorted([*read, *bare_numbers(masked, read)], key=lambda s: s.start)
    for num in read:
        if any(a <= num.start < b for a, b in quotes):
            continue  # a quoted prompt ("> Explain why the 3.9x ..."): the question's numbers, not the answer's
        i = bisect.bisect_right(cell_starts, num.start) - 1
        cell = cells[i] if i >= 0 and cells[i].start <= num.start < cells[i].end else None
        if cell is not None:
            if _exponent_cell(num, cell, masked):
                continue  # "| 24 | 97.5 |" under "log2_n": the row's case, not a figure
            out.append(_in_table(num, cell, text, case, cases, names, known, _row_case(cell, masked, workload)))
            continue
        sentence = _around(sentences, sentence_starts, num.start)
        clause = _around(clauses, clause_starts, num.start)
        opener = openers.get(clause[0], "") if clause[0] > sentence[0] else ""
        clause = (max(clause[0], sentence[0]), min(clause[1], sentence[1]))
        j = bisect.bisect_right(segments, num.start) - 1
        segment = segments[j] if j >= 0 and segments[j] > sentence[0] else sentence[0]
        segment_end = min(sentence[1], seg_starts[j + 1] if j + 1 < len(seg_starts) else sentence[1])
        variant = _variant(num, masked, names, sentence, clause, opener, segment)
        params, named, named_params = cases.params(num, sentence, known)
        # the words a fact may need ("each", "peak", "L2"): the sentence up to the end of the number's clause
        out.append(Attributed(num, Context(
            variant, params, text[sentence[0]:sentence[1]], sentence[0], named, text[sentence[0]:clause[1]],
            text[clause[0]:clause[1]], _other(num, names, sentence, variant, (segment, segment_end)),
            text[num.end:min(sentence[1], num.end + LOOKBACK)], text[max(clause[0], num.start - LOOKBACK):num.start],
            variant_in_clause=any(m.variant == variant for m in names.between(clause[0], clause[1])),
            named_params=named_params,
        )))
    return out


_NEWLINE = re.compile("\n")
_HEAD_UNIT = named('table.head_unit',
    "the unit a column header names: 'time (µs)', 'traffic [MB]', 'gpu_us', 'GB/s', 'GB/s (GPU)'",
        ('time (µs)', 'traffic [MB]', 'gpu_us', 'GB/s', 'GB/s (GPU)'),
        ())(r"\(([^()]{1,12})\)|\[([^\[\]]{1,12})\]|(?:^|[\s_])([^\s_()\[\]]{1,10})\s*$|"
            r"^\s*([^\s_()\[\]]{1,10})(?=\s)")
_HEAD_RATIO = named('table.head_ratio', "a column header of ratios: 'speedup', 'ratio', 'x'",
        ('speedup', 'GPU ratio', 'x', 'wall ×', 'GPU x'),
        ('time', 'x86'))(r"\b(?:speed-?\s?ups?|ratios?|factor|Faktor|facteur|rapport|Verhältnis|razón|razão|"
                        r"aceleraci[óo]n|aceleração|accélération|Beschleunigung)\b|(?:^|\s)[x×]\s*$", re.I)
#: a caption that gives the unit of a table's times: "(times in µs)", "all times in ms", "Zeiten in µs"
_CAPTION_TIME = named('table.caption_time_unit',
    "a caption that names the unit of a table's times: '(times in µs)', 'all times are in ms', 'Zeiten in µs'",
        ('(times in µs.)', 'all times are in ms', 'Zeiten in µs', 'tiempos en µs', 'temps en µs'),
        ('in time',))(r"\b(?:times?|timings?|Zeiten|tiempos|temps|tempos)\s+(?:are\s+|sind\s+|son\s+|sont\s+)?"
                      r"(?:in|en|em)\s+(µs|μs|us|ms|ns|s)\b", re.I)
#: a column header that names a timing method or a time, whose bare numbers are times (in the caption's unit)
_HEAD_TIME = named('table.head_time', "a column header of times: 'eager wall', 'fused GPU', 'gpu_time', 'time'",
        ('eager wall', 'fused GPU', 'gpu_time', 'time', 'Zeit'),
        ('kernels', 'wall ×'))(r"(?<![A-Za-z])(?:wall|gpu|time|times|zeit|tiempo|temps|tempo)(?![A-Za-z])"
                               r"(?!.*[x×]\s*$)",
                               re.I)
_BARE = named('table.bare_number', "a cell that is only a number (it takes its column's unit)",
        ('71.1', ' ~18 ', '4.2e9', '100.7 M', '137.4 G'),
        ('71.1 µs', 'eager', '4 MB'))(r"^\s*[~≈]?\s*(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?:\s?((?-i:[kKMGT])))?\s*$")
_SI = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _head_readings(head: str, caption: str | None = None) -> tuple[str, tuple[Reading, ...]] | None:
    """The unit a column header names ("time (µs)", "GB/s", "gpu_us", "kernels", "speedup"): (unit, readings
    of one of it), or None. ``caption``: the time unit the answer gives its table's times ("(times in µs)")."""
    if _HEAD_RATIO.search(head):
        return "x", (Reading("ratio", 1.0),)
    for m in _HEAD_UNIT.finditer(head):
        unit = next(g for g in m.groups() if g)
        got = extract(f"1 {unit.strip()}")
        if len(got) == 1 and got[0].end == len(unit.strip()) + 2:
            return got[0].unit, got[0].readings
    got = extract(f"1 {head.strip()}")
    if len(got) == 1 and got[0].kind == "launches":
        return got[0].unit, got[0].readings
    if caption is not None and _HEAD_TIME.search(head):
        got = extract(f"1 {caption}")
        if len(got) == 1 and got[0].kind == "time":
            return got[0].unit, got[0].readings
    return None


def _with_unitless_cells(found: list[Stated], text: str, cells: list[Cell]) -> list[Stated]:
    """``found`` and the bare numbers of table cells whose column header names their unit, in text order."""
    starts = [f.start for f in found]
    extra = []
    said = _CAPTION_TIME.search(text) if cells else None
    caption = said.group(1) if said else None
    units: dict[tuple[int, int], tuple[str, tuple[Reading, ...]] | None] = {}
    for c in cells:
        m = _BARE.match(text[c.start:c.end])
        if m is None or c.column_head is None:
            continue
        a, b = c.start + m.start(1), c.start + m.end(1)
        i = bisect.bisect_left(starts, a)
        if (i < len(found) and found[i].start < b) or (i > 0 and found[i - 1].end > a):
            continue
        if c.column_head not in units:
            units[c.column_head] = _head_readings(text[c.column_head[0]:c.column_head[1]], caption)
        got = units[c.column_head]
        if got is None:
            continue
        n = float(m.group(1))
        unit, readings = got
        if m.group(2):  # "100.7 M" under "bytes": an SI prefix on a header's unit
            if unit == "x" or any(r.kind in ("time", "launches", "ratio", "fraction") for r in readings):
                continue
            n, b = n * _SI[m.group(2)], c.start + m.end(2)
            readings = tuple(Reading(r.kind, r.value) for r in readings if r.value == 1.0) or readings[:1]
        extra.append(Stated(text[a:b], a, b, unit, n, tuple(Reading(r.kind, n * r.value) for r in readings),
                            unitless=True))
    return sorted([*found, *extra], key=lambda s: s.start) if extra else found


def _in_formula(text: str, m: Mention) -> bool:
    return bool(FORMULA.match(text[m.end:m.end + 8])) or bool(
        re.search(r"[/÷*·]\s*$", text[max(0, m.start - 3):m.start])) or bool(
        _RESULT_OF_FORMULA.search(text[max(0, m.start - 6):m.start]))


_RESULT_OF_FORMULA = named('case.formula_result',
    "a size right after '=' that follows a formula ('2·4096³ = 2^37', '8·2^24 = 2^27') is the formula's value, not a "
    "case ('n = 4096' is one)",
        ('4096³ = ', '2^24 = ', '(2n) = '),
        ('n = ', 'N = ', 'size = '))(r"[\d⁰¹²³⁴⁵⁶⁷⁸⁹)#]\s*=\s*$")


def _lesson_mentions(workload: Workload, text: str) -> list[Mention]:
    """The lesson's case mentions, read paragraph by paragraph (pieces of at most a few sentences), so a
    lesson's pattern that is slow on a long run of text ("1,000,000,...") stays linear in the answer; and the
    counts of elements it would read as "N elements" written otherwise (:data:`_ELEMENT_COUNT`)."""
    out: list[Mention] = []
    at = 0
    for para in re.finditer(r"\n[ \t]*\n", text):
        out += _mentions_in(workload, text, at, para.start())
        at = para.end()
    out += _mentions_in(workload, text, at, len(text))
    return out + _element_counts(workload, text, out)


_ELEMENT_COUNT = named('case.element_count',
    "a count of elements with a dtype between, in another language or misspelt ('4096 fp16 elements', '4096 "
    "Elementen', '4096 elementi', '4096 elemnts'): the case the lesson reads in 'N elements', if it reads one",
        ('4096 fp16 elements', 'Bei 4096 Elementen', 'Con 4096 elementi', '4096 elemnts', '16,777,216 valeurs'),
        ('4096 x 4096', '4096 bytes', '4 kernels'))(
    r"(?<![\w.,^])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:(?:fp16|fp32|bf16|float16|float32|bfloat16|half|halves|floats?)\s+)?"
    r"(?:elements?|elemnts?|elments?|elemets?|elemens|Elemente[n]?|elementi|elementos|éléments?|valeurs|Werte[n]?|"
    r"valores|valori|values)\b", re.I)


_N_EQUALS = named('case.n_equals',
    "a size written as the count it equals ('N = 4096', '$N = 4096$', 'n=16,777,216', 'N = 4.096e3'): the case the "
    "lesson reads in 'N elements', if it reads one",
        ('At N = 4096:', 'At $N = 4096$:', 'n=16,777,216 elements', 'N = 4.096e3'),
        ('N = 2^24', 'N·s = 8192', 'N = 4 kernels', 'S = 4.2'))(
    r"(?<![\w.·*])[Nn]\s*=\s*\$?\s*(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?[eE]\+?\d{1,2}|\d+)(?![\d.,^]\d|[\w^])"
    r"(?!\s*(?:kernels?|launch|[kmgt]i?b\b|bytes?\b|(?-i:B)\b))")
_SCI_COUNT = named('case.scientific_count',
    "a count of elements written in scientific notation ('4.096e3 elements', '1.68e7 fp16 elements'): read as the "
    "integer it is, then as 'N elements'",
        ('At 4.096e3 elements', '1.6777216e7 elements'),
        ('4096 elements', '6.55e4 B'))(
    r"(?<![\w.])(\d+(?:\.\d+)?[eE]\+?\d{1,2})\s+(?:(?:fp16|fp32|bf16|float16|float32|bfloat16)\s+)?"
    r"(?:elements?|values)\b", re.I)


def _count(written: str) -> str | None:
    """'16,777,216' or '4.096e3' as the integer's digits ('4096'); None where it is no whole number."""
    if "e" not in written.lower():
        return written
    value = float(written)
    return str(int(value)) if value == int(value) and value < 1e12 else None


def _element_counts(workload: Workload, text: str, have: list[Mention]) -> list[Mention]:
    """The case of each :data:`_ELEMENT_COUNT` (and :data:`_N_EQUALS`, :data:`_SCI_COUNT`) the lesson's own mentions
    missed, as the lesson reads the same count written "N elements" (a lesson that reads no such case gets none)."""
    out: list[Mention] = []
    spans = sorted((m.start, m.end) for m in have if m.params and "dtype" not in m.params)
    starts = [a for a, _ in spans]
    found = sorted([*_ELEMENT_COUNT.finditer(text), *_N_EQUALS.finditer(text), *_SCI_COUNT.finditer(text)],
                   key=lambda m: m.start(1))
    for m in found:
        i = bisect.bisect_right(starts, m.start(1)) - 1
        if i >= 0 and spans[i][1] > m.start(1):
            continue  # the lesson read it already
        if any(o.start == m.start(1) for o in out):
            continue  # two rules read the same count
        count = _count(m.group(1))
        if count is None:
            continue
        got = [g.params for g in workload.mentions(f"{count} elements") if g.params and "dtype" not in g.params]
        if got:
            out.append(Mention(m.start(1), m.end(), params=got[0]))
    return out


def _mentions_in(workload: Workload, text: str, a: int, b: int) -> list[Mention]:
    out = []
    for lo, hi in _cap(a, b, text) if b - a > 4 * MAX_SENTENCE else [(a, b)]:
        out += [dataclasses.replace(m, start=m.start + lo, end=m.end + lo) for m in workload.mentions(text[lo:hi])]
    return out
