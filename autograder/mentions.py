"""What a sentence of an explanation is about: the variant it names and the case (dtype, size) it names.

The pre-reader judges "eager moves 20 MB" against the eager variant's traffic, and "at 2^22 the fused kernel
moves 40 MB" against the case 2^22, not the cell's own case. A workload says how its variants and cases
are written (:attr:`Workload.variant_words`, :meth:`Workload.mentions`); the helpers here read the
spellings every lesson shares (dtype names, powers of two) so a lesson only adds its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .records import ParamValue

__all__ = [
    "DTYPE_BYTES",
    "DTYPE_WORDS",
    "dtype_mentions",
    "power_of_two_mentions",
    "variant_mentions",
    "words_pattern",
]


@dataclass(frozen=True)
class Mention:
    """A span of the text that names a variant (``variant``; None for "both", "either": not one of them)
    or parameters of a case (``params``)."""

    start: int
    end: int
    variant: str | None = None
    params: Mapping[str, ParamValue] | None = None
    #: for a "here" (``params`` None): the parameters it does not send back to the cell's case ("at this
    #: size" keeps the dtype the text named); None: it sends all of them back
    keeps: frozenset[str] | None = None

    @property
    def names_variant(self) -> bool:
        return self.params is None


#: bytes per element of the dtypes lessons use (tf32 is stored as float32)
DTYPE_BYTES: dict[str, int] = {
    "float64": 8, "float32": 4, "tf32": 4, "float16": 2, "bfloat16": 2, "int8": 1, "float8_e4m3fn": 1,
}
_DTYPES = [
    ("bfloat16", r"bf16|bfloat16|bfloat-16|brain[- ]?float"),
    ("tf32", r"tf32|tensor[- ]?float[- ]?32"),
    ("float16", r"fp16|float16|f16|half[- ]precision|half[- ]floats?|(?<=in )half|float-16|fp-16"),
    ("float32", r"fp32|float32|f32|single(?:[- ]precision)|float-32|fp-32|plain float"),
    ("float64", r"fp64|float64|f64|double[- ]precision"),
]
#: any dtype's name (a regular expression)
DTYPE_WORDS = r"(?<![\w.])(?:" + "|".join(pat for _, pat in _DTYPES) + r")(?![\w])"
#: ``2^24``, ``2**24``, ``2^{24}``, ``2<sup>24</sup>`` not followed by a byte unit
POWER_OF_TWO = re.compile(
    r"(?<![\w.^])2\s?(?:\^\{?|\*\*|<sup>)\s?(\d{1,2})(?:\}|</sup>)?(?!\s*(?:[kmgt]i?b|bytes?)\b)(?![\d])", re.I
)
BOTH = r"both|either|neither|each (?:version|variant|one|of them)|all (?:three|two|versions|variants|of them)"


def words_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of ``words`` (regular expressions) as whole words,
    longest first so "unfused" is not read as "fused"."""
    alts = sorted(set(words), key=len, reverse=True)
    return re.compile(r"(?<![\w.])(?:" + "|".join(f"(?:{w})" for w in alts) + r")(?![\w])", re.I)


def dtype_mentions(text: str, param: str = "dtype") -> list[Mention]:
    """fp16, bf16, "half precision", tf32, ... as ``{param: "float16"}`` etc."""
    out = []
    for value, pat in _DTYPES:
        for m in re.finditer(r"(?<![\w.])(?:" + pat + r")(?![\w])", text, re.I):
            if re.search(r"\b(?:without|no|not|w/o)\s+$", text[max(0, m.start() - 10):m.start()], re.I):
                continue  # "fp32 without TF32" is fp32
            out.append(Mention(m.start(), m.end(), params={param: value}))
    return out


def power_of_two_mentions(text: str, param: str) -> list[Mention]:
    """``2^24``, ``2**24``, ``2^{24}``, ``2<sup>24</sup>`` as ``{param: 24}`` (a ``log2_*`` parameter), unless
    a byte unit follows (then it is a number of bytes, not a size)."""
    return [Mention(m.start(), m.end(), params={param: int(m.group(1))}) for m in POWER_OF_TWO.finditer(text)]


def variant_mentions(text: str, words: Mapping[str, Iterable[str]]) -> list[Mention]:
    """Where each variant is named (``words``: variant -> regular expressions), and where the text speaks
    of all of them at once ("both", "either": variant None)."""
    out: list[Mention] = []
    taken: list[tuple[int, int]] = []
    by_word = {w: v for v, ws in words.items() for w in ws}
    pattern = words_pattern(by_word)
    for m in pattern.finditer(text):
        variant = next((v for w, v in by_word.items() if re.fullmatch(w, m.group(0), re.I)), None)
        if variant is not None:
            out.append(Mention(m.start(), m.end(), variant=variant))
            taken.append((m.start(), m.end()))
    for m in re.finditer(r"(?<![\w])(?:" + BOTH + r")(?![\w])", text, re.I):
        if not any(m.start() < e and s < m.end() for s, e in taken):
            out.append(Mention(m.start(), m.end(), variant=None))
    return sorted(out, key=lambda x: x.start)
