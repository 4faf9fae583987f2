"""Find the numbers an explanation states, with what each one measures, in base units.

A number counts when it carries a unit (bytes, GB/s, µs, kernels, FLOP, FLOP/s, FLOP/byte, ×, %) or when
the text says what it is ("the ratio is 4", "4 times faster", "a factor of 4", "against 0.17" after
"1365 FLOP/byte"). Sizes that name a case ("2^24 elements", "4096 x 4096") are not numbers to judge: the
caller masks them (see :mod:`autograder.grading.attribution`) and this module never reads ``2^k`` as
anything but bytes when a byte unit follows it. Pure functions: text in, findings out.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from .rules import named, rule

__all__ = ["Reading", "Stated", "bare_numbers", "extract"]

_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "single": 1, "a single": 1, "twice": 2, "half": 0.5,
    # German, Spanish, French, Portuguese (for "vier Kernel", "cuatro veces", "quatre fois", "quatro vezes")
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "zehn": 10,
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "diez": 10,
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "dix": 10,
    "dois": 2, "duas": 2, "três": 3, "quatro": 4, "sete": 7, "oito": 8, "dez": 10,
    "un seul": 1, "une seule": 1, "un solo": 1, "un único": 1, "um único": 1, "um só": 1, "ein einziger": 1,
    "einen einzigen": 1, "einem einzigen": 1,
    # "un kernel", "einen Kernel", "um kernel": one (read only before a kernel or launch word)
    "ein": 1, "einen": 1, "einem": 1, "un": 1, "une": 1, "uno": 1, "um": 1, "nur einen": 1,
}
_OTHER_WORDS = "|".join(sorted((w for w in _WORDS if w not in ("half", "twice")), key=len, reverse=True))
_DECIMAL = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}
_BINARY = {"kb": 2**10, "mb": 2**20, "gb": 2**30, "tb": 2**40}
_BYTES = {
    "b": 1, "byte": 1, "bytes": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kilobyte": 1e3, "kilobytes": 1e3, "megabyte": 1e6, "megabytes": 1e6, "gigabyte": 1e9, "gigabytes": 1e9,
    "terabyte": 1e12, "terabytes": 1e12, "kibibyte": 2**10, "kibibytes": 2**10, "mebibyte": 2**20,
    "mebibytes": 2**20, "gibibyte": 2**30, "gibibytes": 2**30,
    **_DECIMAL,
}
_BW = {"b/s": 1e-9, "kb/s": 1e-6, "gb/s": 1.0, "tb/s": 1e3, "mb/s": 1e-3, "gib/s": 2**30 / 1e9, "tib/s": 2**40 / 1e9,
       "gbps": 1.0,
       "gb per second": 1.0, "tb per second": 1e3, "gigabytes per second": 1.0, "gigabyte per second": 1.0,
       "terabytes per second": 1e3, "terabyte per second": 1e3}
_RATE = {"flop/s": 1e-12, "pflop/s": 1e3, "tflop/s": 1.0, "gflop/s": 1e-3, "pflops": 1e3, "tflops": 1.0, "gflops": 1e-3}
_COUNT = {"flop": 1.0, "kflop": 1e3, "mflop": 1e6, "gflop": 1e9, "tflop": 1e12, "pflop": 1e15}
_TIME = {"ns": 1e-6, "nanoseconds": 1e-6, "µs": 1e-3, "μs": 1e-3, "us": 1e-3, "usec": 1e-3, "microseconds": 1e-3,
         "microsecond": 1e-3, "millisecond": 1.0, "nanosecond": 1e-6,
         "ms": 1.0, "msec": 1.0, "milliseconds": 1.0, "s": 1e3, "sec": 1e3, "seconds": 1e3,
         # German, Spanish, French, Portuguese
         "mikrosekunden": 1e-3, "microsegundos": 1e-3, "microsecondes": 1e-3, "microssegundos": 1e-3,
         "millisekunden": 1.0, "milisegundos": 1.0, "millisecondes": 1.0, "milissegundos": 1.0,
         "sekunden": 1e3, "segundos": 1e3, "secondes": 1e3, "nanosekunden": 1e-6, "nanosegundos": 1e-6,
         "nanosecondes": 1e-6}
_TIME_WORDS = "|".join(sorted((u for u in _TIME if len(u) > 4), key=len, reverse=True))

# a number as students write it: 3.9, 1,048,576, 4.2e9, 10^9, 2^28, 2**28, ~90 (the ~ is not part of it)
_N = (r"(?<![\w.^*/])(\d+(?:\.\d+)?\s?[×x*·]\s?(?:10|2)\s?(?:\^|\*\*)\s?[-+]?\d+|\d{1,3}/\d{1,3}(?=\s?(?:flop|%))"
      r"|\d+(?:,\d{3})+(?:\.\d+)?"
      r"|\d+(?:\.\d+)?(?:\s?[eE][-+]?\d+)?|(?:2|10)\s?(?:\^|\*\*)\s?\d+)")
_WORD_N = r"(one|two|three|four|five|six|seven|eight|nine|ten|a single|single)"
_RANGE = r"(?:\s*(?:-|–|—|to)\s*" + _N + r")?(?:\s*(?P<mult>thousand|million|billion|trillion))?"
_MULT = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_END = r"(?![\w/])(?!=[^\s=])"  # not a key of pasted output: "bytes=100,663,296  flops=137,438,953,472"


@dataclass(frozen=True)
class Reading:
    """One way to read a number: its kind and value in the kind's base unit (bytes, GB/s, ms, launches,
    ratio, FLOP, TFLOP/s, FLOP/byte, fraction)."""

    kind: str
    value: float


@dataclass(frozen=True)
class Stated:
    """A number found in the text, where it is, and every way to read it (MB as 10^6 and as 2^20 bytes;
    "GFLOPS" as a count and as a rate). A range ("80-90 µs") reads as its two ends."""

    text: str
    start: int
    end: int
    unit: str
    number: float  # as written (the middle of a range)
    readings: tuple[Reading, ...]
    low: float | None = None  # a range's ends, in the first reading's unit
    high: float | None = None
    unitless: bool = field(default=False)
    #: a bare number whose unit no word gives: read in every unit a student leaves off ("gpu 69.2 vs 17.6",
    #: "tf32 348"), judged only to within rounding, and reported only where it is a figure of the case
    inferred: bool = field(default=False)

    @property
    def kind(self) -> str:
        return self.readings[0].kind

    @property
    def value(self) -> float:
        return self.readings[0].value


def to_float(s: str) -> float | None:
    """``"1,048,576"``, ``"4.2e9"``, ``"2^28"``, ``"four"`` as a float; None if it is not a number."""
    s = s.strip().lower()
    if s in _WORDS:
        return float(_WORDS[s])
    s = s.replace(" ", "").replace(",", "")
    m = re.fullmatch(r"(\d{1,3})/(\d{1,3})", s)
    if m and int(m.group(2)):
        return int(m.group(1)) / int(m.group(2))
    m = re.fullmatch(r"(2|10)(?:\^|\*\*)(\d+)", s)
    if m:
        return float(int(m.group(1)) ** int(m.group(2)))
    m = re.fullmatch(r"(\d+(?:\.\d+)?)[×x*·](10|2)(?:\^|\*\*)([-+]?\d+)", s)
    if m:
        return float(m.group(1)) * float(m.group(2)) ** int(m.group(3))
    try:
        return float(s)
    except ValueError:
        return None


def _bytes(unit: str) -> tuple[float, ...]:
    u = re.sub(r"^([kmgt]i?)bytes?$", r"\1b", unit.lower())
    u = "byte" if u.startswith("octet") else (u[:-1] + "b" if re.fullmatch(r"[kmgt]i?o", u) else u)
    if u in _DECIMAL:  # "MB" is read both ways: 10^6 and 2^20 (students mean either)
        return (_DECIMAL[u], _BINARY[u])
    return (_BYTES[u],)


def _rate_or_count(unit: str) -> list[Reading]:
    u = re.sub(r"^floating[- ]point operations$", "flop", unit.lower())
    u = u.replace("flops", "flop").replace(" ", "").removesuffix("ec")
    if u.endswith("/s"):
        return [Reading("flop_rate", _RATE[u])]
    # "137 GFLOPS" is a count to some students and a rate to others
    out = [Reading("flops", _COUNT[u])]
    if u + "s" in _RATE:
        out.append(Reading("flop_rate", _RATE[u + "s"]))
    return out


def _scales(kind: str, unit: str) -> list[Reading]:
    """Readings of 1 <unit>: multiply by the number."""
    u = unit.lower()
    if kind == "bytes":
        return [Reading("bytes", f) for f in _bytes(u)]
    if kind == "bandwidth":
        u = re.sub(r"(?:o|bytes?)\s?/\s?s(?:ec)?$|b\s?/\s?sec$|b\s/\ss$", "b/s", re.sub(r"\s+", " ", u))
        return [Reading("bandwidth", _BW[u])]
    if kind == "flop_rate":
        return _rate_or_count(u)
    if kind == "time":
        return [Reading("time", _TIME[u])]
    if kind == "ratio":
        return [Reading("ratio", 1.0)]
    if kind == "fraction":
        return [Reading("fraction", 0.01)]
    return [Reading(kind, 1.0)]


# (kind, pattern); the number is group 1, the unit group "u"; the first pattern to claim a span keeps it
_UNITS: list[tuple[str, re.Pattern[str]]] = [
    ("flop_rate", named('unit.flop_rate', 'a FLOP rate: TFLOP/s, GFLOPS, PFLOP / s, FLOP/s (in e-notation)',
        ('788 TFLOP/s', '750 tflops', '1.2 PFLOP / s', '784.8 Tflop/sec', '350 TFLOPs/s', '3.46e14 FLOP/s'),
        ('137 GFLOP',))(_N + _RANGE + r"[^\S\n]*(?P<u>[pgt]?flops?\s?/\s?s(?:ec)?|[pgt]flops)" + _END, re.I)),
    ("intensity", named('unit.intensity', 'arithmetic intensity: FLOP/byte, FLOP/B, FLOPs per byte',
        ('1365 FLOP/byte', '0.17 FLOP/B', '341 flops per byte', '341 FLOP/octet', '1/6 flop/byte', '1365 FLOP pro Byte',
         '341 FLOP por byte'),
        ('137 GFLOP',))(_N + _RANGE + r"[^\S\n]*(?P<u>flops?\s*/\s*(?:byte|b|octet)|"
                        r"flops?\s+(?:per|pro|por|par)\s+(?:byte|octet))"
        + _END, re.I)),
    ("flop_rate", named('unit.flop_count',
        "a count of FLOPs (GFLOP, MFLOP; 'GFLOPS' is read both as a count and a rate)",
        ('137 GFLOP', '16.8 MFLOP', '84 MFLOPs', '137000000000 floating point operations'),
        ('137 G',))(_N + _RANGE + r"[^\S\n]*(?P<u>[kmgtp]?flops?|floating[- ]point operations)" + _END, re.I)),
    # "Go/s", "Mo" are French for GB/s and MB
    ("bandwidth", named('unit.bandwidth', 'a bandwidth: GB/s, TB/s, GiB/s, Gbps, Go/s, B/s (in e-notation)',
        ('3777 GB/s', '4.2 TB/s', '3777 Go/s', '4 TB per second', '4180 GB/sec', '2039 GByte/s', '3.6 TB / s',
         '3.88e12 B/s'),
        ('3777 GB',))(_N + _RANGE + r"[^\S\n]*(?P<u>(?:[kgmt]i?)?(?:[bo]|bytes?)\s?/\s?s(?:ec)?|gbps|[gt]b per second|"
                      r"(?:giga|tera)bytes? per second)"
                      + _END,
                      re.I)),
    ("bytes", named('unit.bytes', 'a size in bytes: B, KB, MiB, GB, bytes, megabytes, octets, Mo',
        ('268 MB', '256 MiB', '268,435,456 bytes', '64 Mo', '2 B', '268.4 MByte', '67.1 MBytes'),
        ('268 Mb/s', '4 TB/s'))(
        _N + _RANGE + r"[^\S\n]*(?P<u>[kmgt]i?bytes?|[kmgt]ib|[kmgt]b|bytes?|b|kilobytes?|megabytes?|gigabytes?|"
        r"terabytes?|(?:kibi|mebi|gibi|tebi)bytes?|"
        r"octets?|"
        r"(?-i:[KMGT]i?o))"
        + _END, re.I)),
    ("time", named('unit.time', 'a time: ns, µs, us, ms, s and their words in five languages',
        ('71.1 µs', '18 us', '1.06 ms', '71 Mikrosekunden', '2 segundos'),
        ('71 USD',))(
        _N + _RANGE + r"[^\S\n]*(?P<u>(?-i:ns|us|ms|s)|µs|μs|usec|msec|sec|" + _TIME_WORDS + r")" + _END, re.I)),
    ("fraction", named('unit.fraction', 'a percentage: %, percent, per cent',
        ('90 %', '45 percent', '90%', '44.9 pct', '45 Prozent', '45 por ciento', '45 pour cent'),
        ('90 per',))(_N + _RANGE + r"[^\S\n]*(?P<u>%|percent|per\s?cent|pct\b|prozent|por\s?ciento|pour\s?cent|"
                     r"por\s?cento)",
                     re.I)),
    # "4x", "3.9×", "4 times", "4-fold"; not "4096 x 4096" nor "3 × n²"
    ("ratio", named('unit.ratio',
        "a factor: 4x, 3.9×, 4 times, 4-fold, 3,9-mal, 3 veces, 4 fois, 4 vezes, 3,44 volte; not '4096 x 4096' "
        "nor '3 × n²'",
        ('4x', '3.9×', '4 times', '4-fold', '3.9-mal', '3.2 veces', '4 fois', '0.81× a 2^20', '7.5x ####',
         '3.44 volte', '1 volta'),
        ('4096 x 4096', '3 × n'))(
        _N + _RANGE + r"[^\S\n]*(?P<u>x|×|times|-fold|fold|-?mal|-?fach|veces|fois|vezes|volte|volta)(?![\w])"
        r"(?!\s*\d)"
        # a masked case name after a spaced 'x' is a shape ('64 x 2^20'); after '7.5x' it is what is compared
        r"(?!(?<=\s[x×])\s*#)"
        r"(?!\s*(?!(?:a|à|e|y|o)\s)[A-Za-z](?![A-Za-zÀ-ÿ]))", re.I)),
]
# "seven times faster", "four times the traffic", "twice as fast" (not "read four times": a count)
_WORD_RATIO = named('number.word_ratio',
    "a factor in words before a comparison: 'seven times faster', 'twice as fast', 'vier mal schneller'",
        ('seven times faster', 'twice as fast', 'four times the traffic', 'vier mal schneller',
         'four times the minimum'),
        ('read four times', 'twice as wide', 'twice the tensor-core rate'))(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|twice|zwei|drei|vier|fünf|dos|tres|cuatro|cinco|deux|trois|"
    r"quatre|cinq|dois|duas|três|quatro)(?:\s+times|-fold|\s+fold|\s*mal|\s+veces|\s+fois|\s+vezes)?"
    r"(?=\s+(?:faster|slower|more|less|fewer|higher|lower|larger|smaller|bigger|quicker|longer|shorter|"
    r"greater|schneller|langsamer|weniger|mehr|más|menos|plus|moins|mais|"
    # "twice as fast", "four times the traffic"; not "twice as wide" (an operand's width) nor "twice the
    # tensor-core rate" (a device's peak): what is compared must be a time, a speed or the traffic
    r"as\s+(?:fast|slow|quick|long|much|many|high|low|big|large|efficient)|"
    r"the\s+(?:traffic|bytes|data|memory|time|speed|work|launches|kernels|minimum|model|ideal)|"
    r"the\s+(?:[\w-]+\s+)?(?:traffic|bytes|time|speedup))\b)", re.I
)
#: a word between a count and its noun ("one fused kernel", "4 separate CUDA kernels", "1 torch.compile kernel"):
#: not a number, not a sentence's end, not a verb or joint that makes the count another phrase's ("one has 5
#: launches", "1 SM. Eager launches", "4 because my kernel", "the compiled one is 1 kernal")
_BETWEEN = (r"(?!(?:because|has|have|had|is|are|was|were|and|or|but|so|than|vs|then|which|that|my|mine|its|their|"
            r"our|the|of|per|in|on|at|to|for|with|into|uses?|runs?|needs?|takes?|launch\w*|kernels?)\b)"
            r"[^\W\d][\w-]*(?:\.[\w-]+)*(?![\w.-])")
_LAUNCHES = named('number.launches',
    "a count of kernels or launches: '4 kernels', 'one fused kernel', 'cuatro kernels', 'vier Kerneln'",
        ('4 kernels', 'one fused kernel', 'a single launch', 'cuatro kernels', 'vier Kerneln', '4 lanci', '1 lancio',
         '4 kernals', '5 kernles', '1 lanch', '4 launchs', '1 lauch', '1 lanuch', '4 dispatches',
         '4 separate CUDA kernels', '1 torch.compile kernel'),
        ('kernels', 'one has many launches', '1 SM. Eager launches', '4 because my kernel', 'one of the kernels'))(
    r"(?<![\w.])(\d+|" + _WORD_N[1:-1] + "|" + _OTHER_WORDS + r")[^\S\n]+(?:" + _BETWEEN + r"[^\S\n]+){0,2}?"
    r"(?P<u>kernels?|kerneln|launch(?:es)?|núcleos?|noyaux|noyau|lanzamientos?|lancements?|lançamentos?|Kernel-?Starts?|Starts|"
    # Italian, and the typos students make of the two nouns ("kernals", "kernles", "launchs", "lanch")
    r"lanci|lancio|kern[ae]ls?|kernles|kenrels?|launchs|la?u?nch(?:e?s)?|lauch(?:e?s)?|lanuch(?:e?s)?|luanch(?:e?s)?|"
    r"dispatch(?:es)?)\b(?!=[^\s=])",
    re.I,
)
_ONE_PRONOUN = rule(
    "number.one_pronoun",
    "right before 'one launches', words that make 'one' a pronoun for a variant ('the compiled one launches more "
    "kernels', 'this one launches'): a verb follows, no count",
    r"\b(?:the|this|that|which)\s+(?:[\w-]+\s+)?$|\b(?:each|every)\s+$",
    ("the compiled ", "this ", "the fused ", "each "),
    ("in ", "only ", "each in "),
)
_SAVED = rule(
    "number.launches_saved",
    "right before a count of launches, words that make it a difference of two counts: 'saving three', 'removes "
    "3', 'three fewer' is no variant's count",
    r"\b(?:sav(?:es|ed|ing|e)|remov(?:es|ed|ing|e)|eliminat(?:es|ed|ing|e)|cut(?:s|ting)?|drops?|dropping|spar\w*|"
    r"ahorr\w*|économis\w*|economiz\w*)\s+(?:the\s+|those\s+|its\s+)?(?:other\s+)?$",
    ("saving ", "removes the ", "by cutting "),
    ("in ", "launches "),
)
# "4 vs 1" in a sentence about kernels: two launch counts; "…, so 4" right after: their ratio
_SM_COUNT = rule(
    "number.sm_count",
    "a count of the GPU's streaming multiprocessors: '132 SMs', 'one SM out of 132', '1 SM of 132', '132 SM'",
    r"(?<![\w.])(\d{2,4})\s*(?:SMs?|streaming multiprocessors?|multiprocesseurs|multiprocesadores)\b|"
    r"\bSMs?\b[^.;:\d]{0,12}?\b(?:of|out of|von|de|sur|su|di|aus|entre)\s+(?:the\s+|its\s+|the\s+GPU's\s+)?"
    r"(\d{2,4})\b(?![.,]\d)",
    ("132 SMs", "a single SM out of 132", "1 SM of 132", "one SM de 132"),
    ("4 SMs", "SM 90"),
)
_VS_PAIR = rule(
    "number.vs_pair",
    "two bare numbers compared ('4 vs 1') in a sentence about kernels or launches are two launch counts",
    r"(?<![\w.^*#/])(\d+)\s*(?:vs\.?|versus|against|gegen|contra|contre)\s*(\d+)(?![\w.%/#^]|\s*(?:[kmgt]i?b|µs|us|ms|x|×))",
    ("4 vs 1", "5 vs. 1", "4 versus 1"),
    ("4 vs 1 MB", "2^24 vs 2^20", "71.1 vs 18.4"),
)
_KERNEL_WORDS = rule(
    "subject.kernels",
    "the words of a sentence about kernel launches (what makes '4 vs 1' two launch counts)",
    r"\b(?:kernels?|launch(?:es)?|Kernel|núcleos?|noyaux|lançamentos?|lanzamientos?)\b",
    ("eager vs compiled launches", "Kernels:", "noyaux"),
    ("the bytes",),
)
_PAIR_RESULT = rule(
    "number.pair_result",
    "right after a compared pair ('4 vs 1, so 4'): the bare number that follows is their ratio",
    r"^\s*[,;)]?\s*(?:so|i\.e\.?|=|→|->|that's|that is|which is|giving|gives|also|also)\s*(?:a\s+)?"
    r"(?:ratio\s+of\s+|factor\s+of\s+)?[~≈]?\s*(\d+(?:\.\d+)?)(?![\w%/]|\.\d)"
    r"(?!\s*(?:[kmgt]i?b|µs|us|ms|%|x|×|kernels?|launch\w*)\b)",
    (", so 4", " = 4", " -> 4", ", i.e. 4"),
    (", so 4 MB", " and 4"),
)
# a bare number that is not a quantity: followed by what it counts, or part of a formula
_NOT_A_VALUE = (
    r"(?![\w·*/^×]|\.\d|\s*[·*×]\s*\w|\s*(?:elements?|values?|rows?|columns?|cols\b|SMs?\b|tiles?|threads?|"
    r"blocks?|warps?|bits?|bytes?|cores?|times\b|of them|passes|ops?\b|operations|reads?|writes?))"
)
_APPROX = r"(?:about\s+|roughly\s+|around\s+|approximately\s+|only\s+|just\s+|still\s+|nearly\s+|almost\s+|~\s*|≈\s*)*"
# "the ratio is 4", "a speedup of about 4", "a factor of 4", "fused is 4:1": unit-less but named
_NAMED_RATIO = named('number.named_ratio',
    "a bare number the text names a ratio: 'the ratio is 4', 'a speedup of about 4', 'a factor of 4'",
        ('the ratio is 4', 'a speedup of about 4', 'a factor of 4', 'a ratio of 4:1', 'le rapport de trafic est de 4',
         'das Verhältnis ist 4'),
        ('the ratio is high',))(
    r"\b(?:ratios?|speed-?\s?ups?|slow-?\s?downs?|factor|prediction|predicted|estimate|rapport|raz[óo]n|razão|"
    r"proporci[óo]n|Verhältnis|Faktor|facteur|fator|rapporto|aceleraci[óo]n|accélération|Beschleunigung|aceleração)\b(?:[^.;!?\d%|\s]|\s(?!\s)|\.(?=\d)){0,80}?"
    + _N + _NOT_A_VALUE + r"(?:\s*:\s*1\b)?", re.I
)
_NAMED_RATIO_WORD = named('number.named_ratio_word',
    "a small number in words that the text names a ratio: 'the traffic ratio of four', 'the speedup is about "
    "four', 'un facteur de quatre'",
        ('the traffic ratio of four', 'the speedup is about four', 'a factor of two'),
        ('the ratio of the two kernels', 'speedup for four kernels'))(
    r"\b(?:ratios?|speed-?\s?ups?|factor|Faktor|facteur|fator|Verhältnis|rapport|raz[óo]n|razão)\s+"
    r"(?:is\s+|of\s+|was\s+|ist\s+|est\s+|es\s+|é\s+|de\s+|von\s+)?(?:only\s+|just\s+|about\s+|roughly\s+|around\s+|"
    r"nearly\s+|almost\s+|exactly\s+|~\s*|≈\s*)*"
    r"(one|two|three|four|five|six|seven|eight|nine|ten|zwei|drei|vier|fünf|dos|tres|cuatro|cinco|deux|trois|"
    r"quatre|cinq|dois|três|quatro)\b(?!\s+(?:kernels?|launch\w*|times|passes|ops?|operations|of)\b)(?![-\w])",
    re.I,
)
# "beats compiled by 1.35", "faster by about 4"
_BY = named('number.faster_by', "a factor after 'faster/beats ... by': 'beats compiled by 1.35', 'faster by about 4'",
        ('beats compiled by 1.35', 'faster by about 4'),
        ('faster than before',))(
    r"\b(?:beats?|beating|wins?|winning|faster|slower|ahead|behind|loses?|outperforms?)\b[^.;:!?\d%#]{0,30}?"
    r"\bby\s+(?:a factor of\s+)?" + _APPROX + _N + _NOT_A_VALUE, re.I
)
# "torch/eager = 0.13", "B_eager / B_fused ≈ 4.0": a ratio of two named things
_NAMED_QUOTIENT = rule(
    "number.named_quotient",
    "a bare number that is the quotient of two named things: 'torch/eager = 0.13', 'B_eager / B_fused ≈ 4.0'",
    r"(?<![\w.])[A-Za-z_][\w.]*\s*/\s*[A-Za-z_][\w.]*\s*(?:=|≈|~)\s*(?:~\s*)?" + _N + _NOT_A_VALUE,
    ("torch/eager = 0.13", "B_eager / B_fused ≈ 4.0"),
    ("n/3 ≈ 1365", "2n/(3s) = 1365"),
)
# "71.1 µs / 18.4 µs = 3.86": a ratio of two stated figures
_QUOTIENT = named('number.quotient', "the result of dividing two stated figures: '71.1 µs / 18.4 µs = 3.86'",
        ('71.1 µs / 18.4 µs = 3.86', '268 MB / 67 MB = 4'),
        ('71.1 µs / 18.4 µs',))(
    r"(?<![\d.,])[\d.,]+\s*(?:µs|μs|us|ms|s|[kmgt]i?b(?:/s)?|flop/s|tflop/s)\s*(?:/|÷)\s*[\d.,]+\s*"
    r"(?:µs|μs|us|ms|s|[kmgt]i?b(?:/s)?|flop/s|tflop/s)\s*(?:=|≈|~)\s*" + _N + _NOT_A_VALUE, re.I
)
_NAMED_FRACTION = named('number.named_fraction',
    "a bare fraction the text names: 'an efficiency of 0.9', 'utilisation 0.45'",
        ('an efficiency of 0.9', 'utilisation 0.45'),
        ('efficiency is good',))(
    r"\b(?:fraction|share|efficiency|utili[sz]ation)\b[^.;:!?\d%#]{0,40}?" + _N + _NOT_A_VALUE, re.I
)
_NAMED_LAUNCHES = named('number.named_launches',
    "a bare launch count the text names: 'kernels: 5', 'the number of launches is 4', 'launches drop from "
    "4'",
        ('kernels: 5', 'the number of launches is 4', 'launches drop from 4'),
        ('kernels are fast',))(
    r"\b(?:number of (?:kernels|launches)|(?:kernel|launch) counts?|launches|kernels)\b"
    r"\s*(?:from|is|are|was|were|:|=|of|drops? from|goes from|go from)\s*(?:about\s+|~\s*)?" + _N
    + r"(?![\w.·*/^])", re.I
)
_OF_PEAK = named('number.of_peak', "a bare fraction of a ceiling: '0.45 of the peak', '0.9 of the copy roofline'",
        ('0.45 of the peak', '0.9 of the copy roofline'),
        ('0.45 of the time',))(_N + r"\s+of\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?P<u>peak|roofline)\b", re.I)
# a bare number shortly after a unit number and a comparison word takes that number's unit: "1365 FLOP/byte
# against 0.17", "6.5 µs vs 1.8", "3.9 (gpu) vs 0.8 (wall)", "about 1.9 in GPU time, compared with 7"
_CARRY = named('number.carried_unit',
    "right after a number with a unit, a bare number compared with it takes its unit: ' vs 1.8', ' "
    "against 0.17'",
        (' vs 1.8', ' against 0.17', ' (gpu) vs 0.8', ' at #### vs ~51', ' and fp32\'s 50', ' contra 1',
         ' at n = #### vs 51.3', ', between ####\'s 785', ' peak on the tensor cores vs 50.49'),
        (' and then',))(
    r"\s*(?:\([^()]{0,20}\)\s*)?(?:[\w#'’=-]+,?\s+){0,5}?,?\s*(?:\)\s*)?"
    r"(?:(?:against|vs\.?|versus|compared (?:to|with)|contra|contre|gegen|frente a|statt|between)\s+"
    r"(?:(?:the\s+)?[A-Za-z]+\s+)?"
    r"|(?:to|and|or|→|->|y|und|et|e)\s+)(?:(?:the\s+)?[\w#]+['’]s\s+)?" + _APPROX + _N + _NOT_A_VALUE,
    re.I,
)
# a bare number right before a comparison word and a number with a unit takes that unit: "~97 vs ~115 µs",
# "131.7 / 40.9 µs", "71 and 18 µs"
_CARRY_BACK = named('number.carried_back',
    "a bare number right before 'vs', '/', 'to' and a number with a unit takes that unit: '97 vs 115 µs' (not "
    "'and': 'needs 1 and 67 MB' lists two quantities)",
        ('97 vs ~115 µs', '131.7 / 40.9 µs', '80-90 µs'),
        ('2^24 vs 2^20', 'needs 1 and 67 MB'))(
    r"(?<![\w.^*#/,])(\d+(?:\.\d+)?)(?![\w.^*/]|\s*[·*×])\s*(?:vs\.?|versus|/|to|against|–|-)\s*"
    r"(?:~|≈|about\s+)?(?=\d+(?:\.\d+)?\s*[^\d\s.,;:)])", re.I)
# after a ratio, a sentence that lists more of them by case: "at 2^12: 0.8; at 2^20: 1.5", "it's 2.9"
_LISTED = named('number.listed_ratio', "after a ratio, more ratios listed by case: '# 0.8', ', 1.5', 'it's 2.9'",
        ("it's 2.9", ', 1.5', '# 0.8'),
        ('the kernel',))(
    r"(?:#[#\s]*|[(,]|\b(?:it's|it is|is|was|got|get|gets|reached|reaches|measured|gives?|gave))\s*[:,]?\s*"
    + _APPROX + _N + _NOT_A_VALUE, re.I
)


# "bytes: mm 100663296, add 100663296", "GPU times: eager 27.1, compiled 11.0 (µs)", "kernels 5 / 1": a quantity
# named once, then bare numbers of it (each variant's), its unit after them or nowhere (a count: bytes, FLOPs)
_LABEL = rule(
    "number.labelled",
    "a quantity named before a list of bare numbers of it: 'bytes: mm 100663296', 'GPU times: eager 27.1, ... "
    "(µs)', 'kernels 5 / 1', 'FLOPs: 2n^3 = 1.37e11', 'ridge: 191'",
    r"(?<![\w/])(?:(bytes?|traffic|octets|tr[áa]f(?:ic|ego|ico)|Verkehr|Datenverkehr|(?-i:B)(?:_\{?\w+\}?)?(?=\s*=))|"
    r"(flops?|(?-i:F)(?:_\{?\w+\}?)?(?=\s*=))|"
    r"(intensit(?:y|ies|ät|é|ad|ade)|AI|ridge(?:[ -]point)?|(?-i:I)(?:_\{?\w+\}?)?(?=\s*=))|"
    r"((?:kernels?|launch(?:es)?|noyaux|lançamentos|lanzamientos)(?!\s+(?:of|with|that|which|for|take|run)\b))|"
    r"((?:gpu|wall|kernel)[ _-]?(?:times?|per[ _-]call|clock)|times?(?=\s*(?:\([^()]{0,8}\))?\s*:))|"
    r"(bandwidths?|achieved|throughput|Bandbreite|ancho de banda|bande passante|largura de banda)|"
    r"(fractions?|shares?|efficiency|utili[sz]ation)|"
    # a speedup's symbol before '=' ("S = 3.97", "S_wall(2^20) = 0.67", "S_{gpu} = 4.07")
    r"((?-i:S)(?:_\{?\w+\}?)?(?:\s*\([^()\n]{0,12}\))?(?=\s*=)))(?![\w/])",
    ("bytes: mm 100663296", "GPU times: eager 27.1", "kernels 5 / 1", "FLOPs: 1.37e11", "ridge: 191",
     "times (µs): 71.1", "F = 2n^3 = 2.15e9", "B_mm = 6.29e6", "I = F/B = 341", "S_wall(#####) = 0.67", "S=1.03",
     "S_gpu=4.07"),
    ("the time is", "bytes/s", "kernels of 71", "SMs = 132", "s = 2"),
)
_LABEL_KINDS = ("bytes", "flops", "intensity", "launches", "time", "bandwidth", "fraction", "ratio")
#: where a labelled list ends: a clause break, an arrow, a sentence's end, a line's end
_LIST_END = rule(
    "number.list_end",
    "where a list of labelled numbers ends: ';', an arrow, the end of a sentence or line",
    r";|\n|→|->|=>|\.(?=\s|$)|\b(?:so|because|which|but|while)\b",
    ("; ", " → ratio", ". Then", " so "),
    (", ", "torch.sum"),
)
_BARE_IN_LIST = rule(
    "number.bare_in_list",
    "a bare number in a labelled list, with an optional SI prefix ('100.7 M', '137.4 G'): not a formula's "
    "coefficient ('2n^3'), not a count of something else ('64 tiles')",
    r"(?<![\w.^*#/,])(\d+(?:\.\d+)?\s?[×x*·]\s?10\s?\^\s?[-+]?\d+|\d+(?:,\d{3})+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?:\s?(?P<si>(?-i:[kKMGT]))(?![\w/]))?" + _NOT_A_VALUE
    + r"(?!\s*(?!(?:vs|versus|and|or|to|for|against|compared|in|on|at|with|from|µs|us|ms)\b)[A-Za-zÀ-ÿ])",
    ("mm 100663296", "eager 27.1,", "1.37e11 for", "100.7 M", "137.4 G"),
    ("2n^3", "64 tiles", "2^24", "8 trips"),
)
_OPERAND = rule(
    "number.operand",
    "right after a bare number: an operator and more, then '=' or '≈' and a result ('785 / 4.11 ≈ 191', "
    "'2·#### = 2.15'): the number is an operand of a formula, not a value",
    r"[^\S\n]*(?:[·*×+][^\S\n]*[\w#(]|[/÷\-][^=≈;\n]{0,40}?[=≈])",
    (" / 4.11 ≈ 191", "·#### = 2.15", " * 2 = 8", " + 2 + 1"),
    (" / compiled 67108864 →", ", add 16777216"),
)
_SI = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_PAREN_UNIT = re.compile(r"\(\s*(?:in\s+)?([^()\d]{1,8}?)\s*\)")


def _labelled(text: str, found: list[Stated], taken: _Taken, add: Callable[[Stated], None]) -> None:
    """Bare numbers listed after a quantity's name take its kind, and the unit its list names (after a number
    of the list, or in parentheses), or for a count (bytes, FLOPs, launches, intensity) none."""
    labels = list(_LABEL.finditer(text))
    starts = sorted(f.start for f in found)
    by_start = {f.start: f for f in found}
    for i, lab in enumerate(labels):
        kind = _LABEL_KINDS[lab.lastindex - 1] if lab.lastindex else None
        if kind is None:
            continue
        end = min(lab.end() + 120, len(text), labels[i + 1].start() if i + 1 < len(labels) else len(text))
        stop = _LIST_END.search(text, lab.end(), end)
        end = stop.start() if stop else end
        unit_scale: tuple[str, tuple[Reading, ...]] | None = None
        unit_at: int | None = None
        j = bisect.bisect_left(starts, lab.end())
        while j < len(starts) and starts[j] < end:
            f = by_start[starts[j]]
            if f.kind == kind or (kind == "flops" and f.kind == "flop_rate" and f.unit.endswith(("flop", "flops"))):
                if f.number and not f.unitless:
                    unit_scale = (f.unit, tuple(Reading(r.kind, r.value / f.number) for r in f.readings))
                    unit_at = f.start
                    break
            j += 1
        if unit_scale is None:
            paren = _PAREN_UNIT.search(text, lab.end(), min(len(text), end + 12))
            if paren:
                got = extract(f"1 {paren.group(1).strip()}") if paren.group(1).strip() else []
                if len(got) == 1 and got[0].kind in (kind, "flop_rate"):
                    unit_scale = (got[0].unit, got[0].readings)
        if unit_scale is None and kind in ("time", "bandwidth"):
            continue  # a bare time or bandwidth without a unit: no value to check
        for m in _BARE_IN_LIST.finditer(text, lab.end(), end):
            a, b = m.start(1), m.end(1)
            if taken.overlaps(a, m.end()) or _OPERAND.match(text, m.end(1), end) or re.search(
                    r"[×*·+(^]\s?$", text[max(0, a - 3):a]) or (
                    re.search(r"[/÷\-]\s?$", text[max(0, a - 3):a]) and re.match(r"\s*[=≈]", text[b:b + 3])):
                continue
            if unit_scale is not None and unit_at is not None and a > unit_at:
                continue  # after the list's own figure with a unit: the carried-unit rule's (" vs 1.8")
            n = to_float(m.group(1))
            if n is None:
                continue
            if m.group("si"):
                n *= _SI[m.group("si")]
                b = m.end("si")
            if unit_scale is not None and not m.group("si"):
                unit, readings = unit_scale[0], tuple(Reading(r.kind, n * r.value) for r in unit_scale[1])
            elif kind == "launches":
                if n != int(n) or n > 64:
                    continue
                unit, readings = "", (Reading("launches", n),)
            elif kind in ("bytes", "flops"):
                if n < 1e4:
                    continue  # "bytes: 268" names no unit: a TA cannot check it either
                unit, readings = "", (Reading(kind, n),)
            elif kind == "intensity":
                unit, readings = "flop/b", (Reading(kind, n),)
            elif kind == "fraction":
                if n > 1.5:
                    continue
                unit, readings = "", (Reading(kind, n),)
            elif kind == "ratio":  # a speedup's symbol names only the value right after its '='
                if not re.fullmatch(r"\s*=\s*[~≈]?\s*", text[lab.end():a]):
                    continue
                unit, readings = "", (Reading(kind, n),)
            else:
                continue
            add(Stated(text[a:b], a, b, unit, n, readings, unitless=True))


_TIMES_CEILING = named('number.times_ceiling',
    "right after a factor, the ceiling it multiplies ('1.01 × the copy roofline', '1.0e0 × copy', '1.01 × "
    "BW_{copy}'): the factor is the kernel's share of that ceiling",
        (' the copy roofline', ' copy roofline', ' BW_{copy}', ' B_copy', ' roofline', ' the matmul peak'),
        (' faster', ' the traffic', ' eager'))(
    r"\s*(?:the\s+|of\s+(?:the\s+)?)?(?:copy\b|roofline\b|peak\b|B_?\{?copy\b|BW_?\{?copy\b|"
    r"(?:matmul|tensor[- ]core|bf16|fp16)\s+peak\b)", re.I)


# "1/4 of the traffic", "a quarter of eager's bytes", "half the data": a share of another's bytes
_SHARE_OF = rule(
    "number.share_of",
    "a share written as a fraction or in words before 'of the traffic / bytes': '1/4 of the traffic', 'a quarter "
    "of eager's bytes', 'half the data'",
    r"(?<![\w./])(\d{1,2}\s?/\s?\d{1,3}|an? (?:quarter|third|fifth|eighth)|one (?:quarter|third|fourth|fifth|eighth)|"
    r"half|a half)(?!\s+as\b)(?=\s+(?:of\s+)?(?:the\s+|its\s+)?(?:[\w#]+['’]s\s+|[\w-]+\s+){0,2}?"
    r"(?:traffic|bytes|data|memory traffic)\b)",
    ("1/4 of the traffic", "a quarter of eager's bytes", "half the data", "one fourth of the unfused traffic"),
    ("1/4 of the time", "half as fast", "half as many bytes as float32"),
)
_HALF_OF = rule(
    "number.half_of",
    "'half' (mitad, moitié, Hälfte, metade, metà) of a ceiling or of a figure it names ('about half of the copy "
    "roofline', 'half of bf16's 761', 'la mitad de los 761 de bf16'): a share or ratio of 0.5 (not 'half of the "
    "machine is idle', 'half as wide', 'about half of bf16')",
    r"(?<![\w-])((?:a\s+|one\s+)?half|(?:la\s+)?mitad|(?:la\s+)?moitié|(?:die\s+)?Hälfte|(?:a\s+)?metade|"
    r"(?:la\s+)?metà)(?!\s+as\b)"
    r"(?=\s+(?:(?:of|de|du|des|der|da|do|di|del|della|von|dos|das)\s+(?:(?:the|la|le|el|los|les|o|os|a|its|des|der|die|"
    r"dei|delle)\s+)?|(?:the|its|la|le|el|die|der)\s+)(?:[\w#-]+['’]s\s+|(?!machine|chip|GPU|SMs?\b|time\b|data\b|bytes\b|traffic\b)[\w#-]+\s+){0,2}?"
    r"(?:peaks?|rooflines?|bandwidths?|ceilings?|picos?|pic|Spitze|Spitzenleistung|techos?|plafond|"
    r"\d(?![\d.,]*\s*(?:SMs?|tiles?|blocks?|threads?|cores?|bloques|tuiles)\b)))",
    ("about half of the copy roofline", "half of bf16's 761", "la mitad de los 761 de bf16",
     "a bit under half of the peak",
     "la moitié du pic", "die Hälfte der Spitze"),
    ("half of the machine is idle", "half as wide", "half the data", "half of the SMs", "about half of bf16",
     "half peak is crossed around n = 1100", "about half of the 132 SMs"),
    flags=re.I,
)
_SHARES = {"quarter": 0.25, "fourth": 0.25, "third": 1 / 3, "fifth": 0.2, "eighth": 0.125, "half": 0.5}
# "x3.9 speedup", "a ×4 reduction in traffic": a factor written before its number
_PREFIX_FACTOR = rule(
    "number.prefix_factor",
    "a factor written before its number: 'a speedup of x3.9', '×4 less traffic', 'speedup: x3.87'",
    r"(?<![\w.#)])(?<![\d#)] )[x×](\d+(?:[.,]\d+)?)(?![\w%/]|[.,]\d|\s*[x×]\s*\d|\s*(?:[kmgt]i?b|bytes?|µs|us|ms)\b)",
    ("a speedup of x3.9", "×4 less traffic", "speedup: x3.87", "is x3.9."),
    ("4096x4096", "x86_64", "x 4096", "128 x128", "8 ×33.5 MB"),
)


_BOUND = named('number.bound',
    "a bound before a number ('below 1x', 'more than 4,000 GB/s') makes it not a value to check",
        ('below ', 'more than ', 'at least about '),
        ('about ',))(
    r"(?:\b(?:below|under|above|more than|less than|fewer than|at least|at most|higher than|lower than|"
    r"greater than)|(?<![-=])[<>])\s*(?:about\s+|roughly\s+|~\s*)?$",
    re.I,
)
_SENTENCE = named('sentence.end_for_lists',
    'where a sentence ends, for ratios listed by case (a full stop before a capital, a blank line, a list '
    'item)',
        ('It is 4x. Then', 'a\n\nb', 'a\n- b'),
        ('3.9x faster',))(r"(?<=[.!?])\s+(?=[A-Z(\-*•\d])|\n\s*\n|\n(?=\s*[-*•]\s)")


class _Taken:
    """Which characters a found number already covers (spans never overlap): a check costs the span's
    length, not the count of numbers found so far."""

    def __init__(self, n: int) -> None:
        self.mask = bytearray(n)

    def overlaps(self, a: int, b: int) -> bool:
        return self.mask.find(1, a, b) >= 0

    def add(self, a: int, b: int) -> None:
        self.mask[a:b] = b"\x01" * (b - a)


def _listed_ratios(text: str, found: list[Stated], taken: _Taken, add: Callable[[Stated], None]) -> None:
    """In a sentence that states a ratio, later bare numbers listed by case are ratios too."""
    sentences = [(0, len(text))]
    if text:
        cuts = [m.end() for m in _SENTENCE.finditer(text)]
        sentences = list(zip([0, *cuts], [*cuts, len(text)], strict=True))
    ratios = sorted(f.start for f in found if f.kind == "ratio")
    for a, b in sentences:
        i = bisect.bisect_left(ratios, a)
        if i == len(ratios) or ratios[i] >= b:
            continue
        for m in _LISTED.finditer(text, ratios[i], b):
            n = to_float(m.group(1))
            if n is None or taken.overlaps(m.start(1), m.end(1)) or n > 1000:
                continue
            add(Stated(m.group(1), m.start(1), m.end(1), "", n, (Reading("ratio", n),), unitless=True))


_COUNTED = named('number.counted',
    "a count of a thing the lesson's work model counts (its workload's ``counted``: tiles, blocks), the thing's "
    "word right after the number or one word later, the number in digits ('one block per row' is how the "
    "thing works, rarely a figure a TA checks): '64 tiles', '64 output tiles', '1 block per row', "
    "'64 bloques de 128 x 128', '1 solo SM' (here with the words of tiles, blocks and SMs)",
        ('64 tiles', '64 output tiles', '1 block per row', '64 bloques de 128 x 128', '1 solo SM', '256 tiles'),
        ('tiles of 128', '64 MB', '2 bytes per tile', '1.5 tiles', 'one block per row', 'a single SM',
         '(1024/128)^2 tiles', '128×128 output tiles', '128 x 128 tiles'))(
    r"(?<![\w.,^)/*×])(?<![×x*]\s)(\d+)[^\S\n]+(?:[^\W\d][\w-]*[^\S\n]+)?"
    r"(?P<u>tiles?|blocks?|bloques?|SMs?)\b", re.I)


def _counted_pattern(counted: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """:data:`_COUNTED` with the lesson's own words for the things it counts, each a named group."""
    if counted not in _COUNTED_CACHE:
        nouns = "|".join(f"(?P<c{i}>{words})" for i, (_, words) in enumerate(counted))
        _COUNTED_CACHE[counted] = re.compile(_COUNTED.pattern.replace("(?P<u>tiles?|blocks?|bloques?|SMs?)",
                                                                      f"(?:{nouns})"), re.I)
    return _COUNTED_CACHE[counted]


_COUNTED_CACHE: dict[tuple[tuple[str, str], ...], re.Pattern[str]] = {}


def extract(text: str, counted: Mapping[str, str] | None = None) -> list[Stated]:
    """Every number the text states with a unit or names as a ratio, in text order; spans never overlap.
    ``text`` should have case-naming sizes masked (they are not quantities). ``counted``: the things the
    lesson's work model counts (``Workload.counted``: key -> the words naming one), read as counts whose unit
    is the key."""
    found: list[Stated] = []
    taken = _Taken(len(text))

    def add(s: Stated) -> None:
        found.append(s)
        taken.add(s.start, s.end)

    for kind, pat in _UNITS:
        for m in pat.finditer(text):
            if taken.overlaps(m.start(), m.end()):
                continue
            first, second = to_float(m.group(1)), to_float(m.group(2)) if m.group(2) else None
            if first is None:
                continue
            if m.group("mult"):
                first *= _MULT[m.group("mult").lower()]
                second = second * _MULT[m.group("mult").lower()] if second is not None else None
            unit = m.group("u")
            if (unit == "s" and re.fullmatch(r"\d{1,2}s", m.group(0))
                    and re.search(r"[(/·*×÷]\s*$", text[max(0, m.start() - 3):m.start()])):
                continue  # "1/(3s)", "2n / 3s": a formula, not seconds ("6.94e-5 s / 1.75e-5 s" is seconds)
            scales = _scales(kind, unit)
            low, high = (min(first, second), max(first, second)) if second is not None else (None, None)
            mid = (first + second) / 2 if second is not None else first
            readings = tuple(Reading(r.kind, mid * r.value) for r in scales)
            add(Stated(m.group(0), m.start(), m.end(), unit.lower(), mid, readings,
                       low * scales[0].value if low is not None else None,
                       high * scales[0].value if high is not None else None))
    for m in _SM_COUNT.finditer(text):
        g = 1 if m.group(1) else 2
        a, b = m.start(g), m.end(g)
        if not taken.overlaps(a, b):
            sms = float(m.group(g))
            add(Stated(text[a:m.end()] if g == 1 else m.group(g), a, m.end() if g == 1 else b, "sms" if g == 1 else "",
                       sms, (Reading("sms", sms),), unitless=g == 2))
    if counted:
        keys = tuple(sorted(counted.items()))
        for m in _counted_pattern(keys).finditer(text):
            n = to_float(m.group(1))
            key = next(k for i, (k, _) in enumerate(keys) if m.group(f"c{i}"))
            if n is not None and not taken.overlaps(m.start(1), m.end(1)):
                add(Stated(m.group(0), m.start(), m.end(), key, n, (Reading("count", n),)))
    for m in _VS_PAIR.finditer(text):
        if not _KERNEL_WORDS.search(text[max(0, m.start() - 80):m.end() + 40]):
            continue
        for g in (1, 2):
            a, b = m.start(g), m.end(g)
            if not taken.overlaps(a, b):
                add(Stated(m.group(g), a, b, "", float(m.group(g)), (Reading("launches", float(m.group(g))),),
                           unitless=True))
        after = _PAIR_RESULT.match(text[m.end():m.end() + 40])
        if after:
            a, b = m.end() + after.start(1), m.end() + after.end(1)
            if not taken.overlaps(a, b):
                value = float(after.group(1))
                add(Stated(after.group(1), a, b, "", value, (Reading("ratio", value),), unitless=True))
    for m in _LAUNCHES.finditer(text):
        n = to_float(m.group(1))
        before = text[max(0, m.start() - 5):m.start()]
        if re.search(r"\bthe\s+$", before, re.I) and m.group(1).lower() in ("two", "three"):
            continue  # "the two kernels": the two variants, not a count of launches
        if _SAVED.search(text[max(0, m.start() - 24):m.start()]):
            continue  # "saving three kernel launches": a difference of two counts, no variant's count
        if m.group(1).lower() == "one" and _ONE_PRONOUN.search(text[max(0, m.start() - 40):m.start()]) \
                and re.fullmatch(r"one\s+launches", m.group(0), re.I):
            continue  # "the compiled one launches more kernels": a pronoun and a verb, no count
        if n is not None and not taken.overlaps(m.start(), m.end()):
            add(Stated(m.group(0), m.start(), m.end(), m.group("u").lower(), n, (Reading("launches", n),)))
    for m in _WORD_RATIO.finditer(text):
        n = to_float(m.group(1))
        if n is not None and not taken.overlaps(m.start(), m.end()) and (m.group(0) != m.group(1) or n == 2):
            add(Stated(m.group(0), m.start(), m.end(), "times", n, (Reading("ratio", n),)))
    named = ((_OF_PEAK, "fraction"), (_NAMED_LAUNCHES, "launches"), (_NAMED_RATIO_WORD, "ratio"),
             (_QUOTIENT, "ratio"), (_NAMED_QUOTIENT, "ratio"),
             (_BY, "ratio"),
             (_NAMED_RATIO, "ratio"), (_NAMED_FRACTION, "fraction"))
    for pat, kind in named:
        for m in pat.finditer(text):
            n = to_float(m.group(1))
            a, b = m.start(1), m.end(1)
            if n is None or taken.overlaps(a, b):
                continue
            if kind == "fraction" and pat is _NAMED_FRACTION and n > 1:
                continue
            unit = m.group("u").lower() if "u" in pat.groupindex else ""
            add(Stated(text[a:m.end()] if unit else text[a:b], a, m.end() if unit else b, unit, n,
                       (Reading(kind, n),), unitless=True))
    found.sort(key=lambda s: s.start)
    _labelled(text, found, taken, add)
    found.sort(key=lambda s: s.start)
    queue, at = list(found), 0
    while at < len(queue):  # a carried number carries on: "398 TFLOP/s against 785 for bf16 and 50.5 for fp32"
        prev, at = queue[at], at + 1
        carried = _CARRY.match(text, prev.end)
        if not carried or not prev.number:
            continue
        n = to_float(carried.group(1))
        if n is None or taken.overlaps(carried.start(1), carried.end(1)):
            continue
        readings = tuple(Reading(r.kind, n * r.value / prev.number) for r in prev.readings)
        add(Stated(carried.group(1), carried.start(1), carried.end(1), prev.unit, n, readings, unitless=True))
        queue.append(found[-1])
    by_start = {f.start: f for f in found}
    for back in _CARRY_BACK.finditer(text):
        nxt = by_start.get(back.end())
        n = to_float(back.group(1))
        if nxt is None or nxt.unitless or not nxt.number or n is None or taken.overlaps(back.start(1), back.end(1)):
            continue
        readings = tuple(Reading(r.kind, n * r.value / nxt.number) for r in nxt.readings)
        add(Stated(back.group(1), back.start(1), back.end(1), nxt.unit, n, readings, unitless=True))
    _listed_ratios(text, found, taken, add)
    _launch_ellipsis(text, found, taken, add)
    for m in _SHARE_OF.finditer(text):
        word = next((v for k, v in _SHARES.items() if k in m.group(1).lower()), None)
        share = word if word is not None else to_float(m.group(1).replace(" ", ""))
        if share and not taken.overlaps(m.start(1), m.end(1)):
            add(Stated(m.group(1), m.start(1), m.end(1), "", share, (Reading("fraction", share),), unitless=True))
    for m in _HALF_OF.finditer(text):
        if not taken.overlaps(m.start(1), m.end(1)):
            # a word for a figure: credited only to within a bare number's rounding (inferred), as 0.5 exactly is
            add(Stated(m.group(1), m.start(1), m.end(1), "", 0.5, (Reading("fraction", 0.5), Reading("ratio", 0.5)),
                       unitless=True, inferred=True))
    for m in _PREFIX_FACTOR.finditer(text):
        n = to_float(m.group(1).replace(",", "."))
        if n is not None and not taken.overlaps(m.start(), m.end()):
            add(Stated(m.group(0), m.start(), m.end(), "x", n, (Reading("ratio", n),)))
    # "1.01 × the copy roofline", "1.0e0 × copy": a factor of a ceiling is the kernel's share of it
    found[:] = [replace(f, readings=(Reading("fraction", f.value), *f.readings))
                if f.kind == "ratio" and f.unit in ("x", "×", "") and _TIMES_CEILING.match(text, f.end) else f
                for f in found]
    # "below 1x", "more than 4,000 GB/s": a bound, not a value to check (a count of launches still is one:
    # "the guards cost more than four launches")
    return sorted((s for s in found if s.kind == "launches" or not _BOUND.search(text[max(0, s.start - 40):s.start])),
                  key=lambda s: s.start)


_ELLIPSIS = rule(
    "number.launch_ellipsis",
    "a bare count after 'in', 'with', 'needs' in a sentence that has stated a launch count: 'eager moves 268 MB "
    "in 4 kernels, fused 67 MB in 1', 'compiled needs 1 and 67 MB'",
    r"(?:\b(?:in|with|needs?|uses?|has|have|takes?|over|en|mit|con|avec|com|braucht|necesita|nécessite)\s+"
    r"(?:only\s+|just\s+|nur\s+|solo\s+|seulement\s+)?|(?<=[A-Za-z])\s?/\s?)(\d{1,2})(?![\w%/^]|[.,]\d|\s*[·*×x]|\s*(?:[kmgt]i?b|µs|us|ms)\b)"
    r"(?!\s*(?!(?:and|or|vs|y|e|et|und)\b)[A-Za-zÀ-ÿ])",
    ("fused 67 MB in 1.", "compiled needs 1 and 67 MB", "with 1:", "fused 67 MB/1."),
    ("in 1.5 ms", "in 4 kernels", "with 2 MB"),
)


def _launch_ellipsis(text: str, found: list[Stated], taken: _Taken, add: Callable[[Stated], None]) -> None:
    """A bare count that parallels a launch count stated earlier in its sentence is a launch count."""
    launches = sorted(f.start for f in found if f.kind == "launches" and not f.unitless)
    if not launches:
        return
    cuts = [m.end() for m in _SENTENCE.finditer(text)]
    for m in _ELLIPSIS.finditer(text):
        a, b = m.start(1), m.end(1)
        i = bisect.bisect_left(launches, a) - 1
        start = cuts[bisect.bisect_right(cuts, a) - 1] if cuts and cuts[0] <= a else 0
        if i < 0 or launches[i] < start or taken.overlaps(a, b):
            continue
        n = float(m.group(1))
        add(Stated(m.group(1), a, b, "", n, (Reading("launches", n),), unitless=True))


# a bare number nothing else claims, in no formula: "gpu 69.2 vs 17.6 = 3.94", "tf32 348, fp32 51", "Ridge:
# 7.693e14 / 4.191e12"; its unit is the one a student leaves off, so every such unit is a reading of it
_BARE_NUMBER = rule(
    "number.bare_inferred",
    "a bare number no other rule reads and no formula holds ('gpu 69.2 vs 17.6', 'tf32 348', '7.693e14 / "
    "4.191e12'): read in each unit a student leaves off, credited only to within rounding of a figure",
    r"(?<![\w.^*#/$,\\_{}+·×÷=-])(?<![*·×+^÷]\s)(?<!\bx\s)(?<![#\w]/\s)(?<![#\w]\s/\s)"
    r"(\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?![\w^*/#(\[{]|\.(?!\s|$)|[.,]\d|\s*[·*×x^]\s*[\w(]|\s*[-+]\s*[\w(]|"
    r"\s*/\s*[\d.]+(?:[eE][-+]?\d+)?\s*[=≈])" + _NOT_A_VALUE
    + r"(?!\s*(?!(?:vs|versus|and|or|to|for|against|compared|in|on|at|with|from|of|the|is|was|are|gpu|wall|"
    r"kernels?|launch\w*|eager|fused|compiled|mine|lib\w*)\b)[A-Za-zÀ-ÿ])",
    ("gpu 69.2 vs 17.6", "tf32 348, fp32 51", "Ridge: 7.693e14", "= 3.94;", "bw 3877,", "1,074"),
    ("2n^3", "64 tiles", "2^24", "8 trips", "2 * 4096", "2 + 2", "x86_64", "4096x4096", "####/6", "n / 6",
     "128 threads", "3 reads", "128 x 128"),
)
#: the units a student leaves off a figure, per kind, as readings of one of it (the base units of
#: :class:`Reading`): a time in µs or ms; bytes in MB, GB, KB or bytes (decimal: a bare power of two read
#: as MiB would equal a size's bytes); GB/s or TB/s; TFLOP/s; GFLOP or MFLOP
_LEFT_OFF: tuple[tuple[str, float], ...] = (
    ("time", 1e-3), ("time", 1.0), ("bytes", 1e6), ("bytes", 1e9), ("bytes", 1e3), ("bandwidth", 1.0),
    ("bandwidth", 1e3), ("flop_rate", 1.0), ("flops", 1e9), ("flops", 1e6),
    ("intensity", 1.0),
)


_SMALL_CUE = rule(
    "number.bare_small_cue",
    "what makes a bare small whole number (1 to 10) a figure: a word of kernels or launches (a count), or of a "
    "ratio just before it ('ratio 4', 'speedup = 4')",
    r"(?P<k>\b(?:kernels?|launch(?:es)?|Kernel|núcleos?|noyaux|lançamentos?|lanzamientos?)\b)|"
    r"(?P<r>\b(?:ratios?|speed-?\s?ups?|factor|Verhältnis|rapport|raz[óo]n|razão)\b[^.;,\d]{0,12}$)",
    ("launches 4 / 1", "ratio ", "speedup = "),
    ("bytes ", "the ratio was high, 4"),
)


def _left_off(n: float, text: str = "", a: int = 0, b: int = 0) -> tuple[Reading, ...]:
    """Every reading of a bare number ``n`` (see :data:`_LEFT_OFF`), counts and plain values first; a small
    whole number (``text[a:b]``) is a count or a ratio only where its sentence's words say so
    (:data:`_SMALL_CUE`), else nothing (formulas and prose are full of them)."""
    if n == int(n) and n <= 10:
        near = text[max(0, a - 80):b + 40]
        kernels = any(m.group("k") for m in _SMALL_CUE.finditer(near))
        cue = _SMALL_CUE.search(text[max(0, a - 40):a])
        ratio = cue is not None and cue.group("r") is not None
        return ((Reading("ratio", n),) if ratio else ()) + ((Reading("launches", n),) if kernels else ())
    out = [Reading("ratio", n)]
    if n == int(n) and 1 <= n <= 64:
        out.append(Reading("launches", n))
    if n <= 1.5:
        out.append(Reading("fraction", n))
    if n >= 1e4:  # written out in base units: "268435456", "7.693e14" FLOP/s, "4.19e12" B/s
        out += [Reading("bytes", n), Reading("flops", n), Reading("flop_rate", n * 1e-12),
                Reading("bandwidth", n * 1e-9)]
    if n < 1e5:
        out += [Reading(k, n * f) for k, f in _LEFT_OFF]
    return tuple(out)


_SIZE_BEFORE = rule(
    "number.bare_is_size",
    "right before a bare number, words that make it a size or a setting, not a figure: 'N = ', 'n=', 'sizes like "
    "', 'BLOCK_SIZE of ', 'up to '",
    r"(?:\b[nNCR]\s*=\s*[~≈]?\s*|\b(?:sizes?|size of|like|such as|block(?:_size)?|BLOCK\w*|up to|"
    r"rows?|cols?|columns?|elements?|threads?|warps?|step|version|v)\s*(?:of|=|:)?\s*)$",
    ("N = ", "n=", "sizes like ", "BLOCK_SIZE of ", "up to "),
    ("gpu ", "ratio = "),
)


def bare_numbers(text: str, found: list[Stated]) -> list[Stated]:
    """The bare numbers of ``text`` that none of ``found`` covers (rule ``number.bare_inferred``), each with
    every reading of :func:`_left_off`, marked ``inferred``. Not at a list item's start ("1. ", "2) ") nor
    after a bound ("below 4"). Linear: one pass of the rule, a mask of what is found."""
    taken = _Taken(len(text))
    for f in found:
        taken.add(f.start, f.end)
    out = []
    for m in _BARE_NUMBER.finditer(text):
        a, b = m.start(1), m.end(1)
        item = re.match(r"\s*[.)]\s", text[b:b + 3]) and re.search(r"(?:^|\n)\s*$", text[max(0, a - 8):a])
        if taken.overlaps(a, b) or (item and (a < 8 or "\n" in text[max(0, a - 8):a])):
            continue  # a list item's number ("1. ", "2) ")
        if _BOUND.search(text[max(0, a - 40):a]) or _SIZE_BEFORE.search(text[max(0, a - 30):a]):
            continue
        n = to_float(m.group(1))
        if n is None or n <= 0 or re.match(r"0\d", m.group(1)):
            continue
        readings = _left_off(n, text, a, b)
        if readings:
            out.append(Stated(m.group(1), a, b, "", n, readings, unitless=True, inferred=True))
    return out
