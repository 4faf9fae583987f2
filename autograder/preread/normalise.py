"""Spellings of numbers that are not plain text, rewritten to the plain form the number rules read, with a map
back to where each character came from (so every finding still points at what the student wrote).

LaTeX (``$3.9\\times$``, ``$268\\,\\text{MB}$``, ``\\SI{71.1}{\\micro\\second}``, ``$4 \\cdot 10^{9}$``), decimal
commas (``3,9x``, ``71,1 µs``; ``1,365`` stays one thousand three hundred and sixty-five), digit groups
separated by thin or no-break spaces or apostrophes (``268 435 456``, ``268'435'456``) and superscript
exponents (``10⁹``, ``2²⁴``). Each rewrite is a named rule of :mod:`.rules` with its own examples.
Pure functions; linear in the text (one pass per rule).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from .rules import rule

__all__ = ["normalise"]

_EMPHASIS = rule(
    "format.emphasis",
    "markdown emphasis or inline code around words ('**71 µs**', '_3.9x_', '`18.4 µs`'): the words alone (not "
    "'2**24', 'gpu_time' nor a code fence)",
    r"(?<![\w*`\\])(\*\*|\*|__|_|`)(?=[^\s*_`])([^*`\n]{1,80}?)(?<=[^\s*_`])\1(?![\w*`])",
    ("**71 µs**", "_3.9x_", "`18.4 µs`", "*eager*"),
    ("2**24", "gpu_time", "```", "a * b"),
)
_DOT_GROUPS = rule(
    "format.dot_groups",
    "digit groups separated by dots ('3.777 GB/s', '268.435.456 Bytes') in a text that writes decimal commas: "
    "one number, as German, Spanish and Portuguese write it",
    r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?![\d]|[.,]\d)",
    ("3.777 GB/s", "268.435.456 Bytes"),
    ("3.77 GB/s", "0.845", "1.2345"),
)
_SUPERSCRIPT = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9"}

_LATEX_COMMAND = rule(
    "format.latex_command",
    "a LaTeX command a student writes around a number: \\times, \\cdot, \\approx, \\sim, \\mu, \\%, spaces",
    r"\\(?:mu|micro)(?![A-Za-z])(?:\s*\\?(?:\\text|\\mathrm|\\rm)?\s*\{?\s*(?=s\b|sec))?|"
    r"\\(?:times|cdot|approx|sim|quad|qquad|left|right|mathrm|text|textrm|mathit|rm|"
    r"second|byte|giga|mega|kilo|tera|per)(?![A-Za-z])|\\[%,;!: ]",
    ("$3.9\\times$", "$268\\,\\text{MB}$", "\\approx 4", "71\\ \\mu s", "90\\%", "(8RC + 4R)\\,s",
     "131.7\\ \\mu\\text{s}"),
    ("3.9x", "\\alpha"),
)
_LATEX_SI = rule(
    "format.latex_si",
    "siunitx's \\SI{number}{unit} and \\num{number}: the number and its unit",
    r"\\(?:SI|qty)\{([^{}]*)\}\{([^{}]*)\}|\\num\{([^{}]*)\}",
    ("\\SI{268}{MB}", "\\qty{71.1}{\\micro\\second}", "\\num{4.2e9}"),
    ("\\text{MB}",),
)
_LATEX_BRACES = rule(
    "format.latex_braces",
    "math delimiters and braces ($, $$, \\( \\), \\[ \\], ^{24}, \\frac{a}{b}) that wrap a number or a unit",
    r"\$\$?|\\[()\[\]]|\\[dt]?frac(?=\{)|[{}]",
    ("$2^{24}$", "\\(4\\times\\)", "\\frac{71.1}{18.4}"),
    ("2^24", "4x"),
)
_DECIMAL_COMMA = rule(
    "format.decimal_comma",
    "a decimal comma: one or two digits after the comma ('3,9x', '71,1 µs'), or any after a lone 0 ('0,088 ms'), "
    "never three otherwise ('1,365' is a thousand and more) nor in a list of numbers ('1,2,3')",
    r"(?<![\d,.])(?:\d+(,)\d{1,2}|0(,)\d{3,})(?![\d])(?![,.]\d)",
    ("3,9x", "71,1 µs", "0,84", "4,18 TB/s", "0,088 ms"),
    ("1,365 FLOP/B", "1,048,576", "1,2,3"),
)
_DIGIT_GROUPS = rule(
    "format.digit_groups",
    "digit groups separated by a thin, narrow or no-break space or an apostrophe ('268 435 456', '268'435'456')",
    r"(?<=\d)[\u00a0\u202f\u2009'’](?=\d{3}(?!\d))",
    ("268\u202f435\u202f456", "268'435'456", "3\u00a0777"),
    ("268 MB", "it's 4"),
)
_SPACE_GROUPS = rule(
    "format.space_groups",
    "digit groups separated by a plain space right before a French unit ('1 640 Go/s', '268 435 456 octets'): "
    "one number, as French writes it (before 'MB' a space may separate two numbers: '4 268 MB')",
    r"(?<![\d.,] )(?<![\d.,])(\d{1,3})((?: \d{3})+)(?![\d.,]\d)(?=\s?(?-i:[kKMGT]i?o\b|[kKMGT]i?o/s|octets?\b))",
    ("1 640 Go/s", "268 435 456 octets", "3 777 Mo"),
    ("4 268 MB", "5 kernels, 268 Mo", "2 640"),
)
_SUPERSCRIPTS = rule(
    "format.superscript",
    "superscript digits of an exponent ('10⁹', '2²⁴', '4096²'): written as ^ and digits",
    r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+",
    ("10⁹", "2²⁴"),
    ("10^9",),
)

_SIZE_E = rule(
    "format.size_in_e_notation",
    "a size in e-notation or rounded after 'N =', 'n =' ('N = 4.096e3', 'N = 1.05e6', 'n = 1.024e3'): the power "
    "of two it rounds (to 1 %), as the lesson's sizes are written",
    r"(?<=\b[nNC] = )(\d(?:\.\d+)?[eE]\+?\d{1,2})\b|(?<=\b[nNC]=)(\d(?:\.\d+)?[eE]\+?\d{1,2})\b",
    ("N = 4.096e3", "n = 1.024e3", "N = 1.05e6", "N=2.68e8"),
    ("t = 6.2e-6", "N = 4096"),
)


def _power_of_two(m: re.Match[str]) -> list[tuple[str, int]]:
    shown = m.group(1) or m.group(2)
    at = m.start(1) if m.group(1) else m.start(2)
    value = float(shown)
    k = round(math.log2(value)) if value > 0 else 0
    if k <= 0 or abs(2**k - value) > 0.01 * value:
        return [(shown, at)]
    return [(f"2^{k}", at)]


_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = "|".join([*_SMALL, *_TENS, "hundred", *_SCALES])
_FIRST = "|".join([*_SMALL, *_TENS])  # a number in words starts with one of these, never with "billion"
_DIGIT_WORDS = "|".join(_SMALL)
_NUMBER_WORDS = rule(
    "format.number_words",
    "an English number in words before a unit ('sixty-seven megabytes', 'two hundred and sixty-eight MB', "
    "'three point nine times'): written in digits (a lone small word before 'times' is the ratio rule's)",
    rf"(?<![\d.,] )\b(?:{_FIRST}|a(?=\s+(?:hundred|thousand|million|billion)\b))"
    rf"(?:(?:[\s-]+|\s+and\s+)(?:{_WORD})){{0,10}}"
    rf"(?:\s+point(?:\s+(?:{_DIGIT_WORDS})){{1,6}}\b(?!\s+point)|"  # a decimal in words is a number by itself
    rf"(?:\s+point(?:\s+(?:{_DIGIT_WORDS})){{1,6}})?"
    r"(?=\s*(?:[kmgt]i?b\b|bytes?\b|(?:kilo|mega|giga|tera|kibi|mebi|gibi|tebi)bytes?\b|µs|us\b|ms\b|"
    r"(?:micro|milli|nano)?seconds?\b|"
    r"[gt]b/s|[kmgtp]?flop|floating[- ]point operations\b|SMs?\b|percent\b|per cent\b|%|times\b|x\b|×|-?fold\b)))",
    ("sixty-seven megabytes", "two hundred and sixty-eight MB", "three point nine times", "seventy-one µs",
     "a hundred and thirty-seven billion floating point operations", "a hundred and thirty-two SMs",
     "the wall speedup is zero point nine five"),
    ("four kernels", "the two variants", "137 billion FLOP", "at one point the"),
)


_FRACTION_WORDS = {"sixth": 6, "fifth": 5, "eighth": 8, "tenth": 10, "sevenths": 7, "ninth": 9}
_NUMBER_PHRASE = rule(
    "format.number_words_bare",
    "an English number in words that no unit follows, of two words or more or above ten ('roughly one hundred "
    "eighty-four', 'sixty-four', 'sixteen point eight million', 'seventeen-and-a-half', 'one sixth'): written in "
    "digits (one word up to ten stays a word: 'one of the two kernels'; 'a quarter', 'half' are shares' words)",
    rf"(?<![\d.,] )\b(?:(?:one|an?)[\s-]+(?:{'|'.join(_FRACTION_WORDS)})s?\b|"
    rf"(?:{_FIRST}|a(?=\s+(?:hundred|thousand|million|billion)\b))"
    rf"(?:(?:[\s-]+|\s+and\s+)(?:{_WORD})){{0,10}}"
    rf"(?:\s+point(?:\s+(?:{_DIGIT_WORDS})){{1,6}}(?:\s+(?:thousand|million|billion))?)?"
    r"(?:[\s-]+and[\s-]+a[\s-]+half)?\b(?:-(?=[A-Za-zµ]))?)",
    ("roughly one hundred eighty-four", "sixty-four", "sixteen point eight million", "seventeen-and-a-half",
     "one sixth"),
    (),
)


def _phrase_digits(m: re.Match[str]) -> list[tuple[str, int]]:
    """A number phrase of :data:`_NUMBER_PHRASE` in digits, or as written where it is one small word."""
    phrase = m.group(0)
    hyphen = phrase.endswith("-")
    words = [w for w in re.split(r"[\s-]+", phrase.lower().rstrip("-")) if w]
    if words and words[-1].rstrip("s") in _FRACTION_WORDS:
        value: float | None = 1 / _FRACTION_WORDS[words[-1].rstrip("s")]
        shown = f"{value:.4f}"
    else:
        half = words[-3:] == ["and", "a", "half"]
        value = _words_value(" ".join(words[:-3] if half else words))
        if value is None or (len(words) == 1 and value <= 10) or words == ["a"]:
            return [(phrase, m.start())]
        value += 0.5 if half else 0.0
        shown = str(int(value)) if value.is_integer() else repr(value)
    return [(shown + (" " if hyphen else ""), m.start())]


def _words_value(phrase: str) -> float | None:
    words = re.split(r"[\s-]+", phrase.lower())
    if "point" in words:
        i = words.index("point")
        whole, frac = words[:i], words[i + 1:]
        base = _words_value(" ".join(whole)) if whole else 0.0
        digits = "".join(str(_SMALL[w]) for w in frac if w in _SMALL and _SMALL[w] < 10)
        scale = _SCALES.get(frac[-1], 1) if frac else 1  # "sixteen point eight million"
        return None if base is None or not digits else (base + float("0." + digits)) * scale
    total = current = 0
    for w in words:
        if w in ("and", "a"):  # "a hundred and thirty-two"
            continue
        if w in _SMALL:
            current += _SMALL[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w in _SCALES:
            total += (current or 1) * _SCALES[w]
            current = 0
        else:
            return None
    return float(total + current)


def _digits(m: re.Match[str], text: str) -> list[tuple[str, int]]:
    phrase = m.group(0)
    value = _words_value(phrase)
    tail = text[m.end():m.end() + 8].lstrip().lower()
    if value is None or (len(re.split(r"[\s-]+", phrase)) == 1 and value <= 10 and tail.startswith("times")):
        return [(phrase, m.start())]
    return [(str(int(value)) if value.is_integer() else repr(value), m.start())]


_COMMANDS = {
    "times": "×", "cdot": "·", "approx": "≈", "sim": "~", "mu": "µ", "micro": "µ", "%": "%", ",": " ", ";": " ",
    "!": "", ":": " ", " ": " ", "quad": " ", "qquad": " ", "left": "", "right": "", "mathrm": "", "text": "",
    "textrm": "", "mathit": "", "rm": "", "second": "s", "byte": "B", "giga": "G", "mega": "M", "kilo": "k",
    "tera": "T", "per": "/",
}


def _without_dots(number: str) -> list[tuple[int, str]]:
    """The digit runs of ``number`` and where each starts in it ("3.777" -> [(0, "3"), (2, "777")])."""
    return [(m.start(), m.group(0)) for m in re.finditer(r"\d+", number)]


def _comma(m: re.Match[str]) -> int:
    return m.start(1) if m.group(1) is not None else m.start(2)


def _command(cmd: str) -> str:
    name = re.match(r"\\([A-Za-z]+|.)", cmd)
    return _COMMANDS[name.group(1)] if name else ""


def _rewrite(text: str, origin: list[int], pattern: re.Pattern[str],
             by: Callable[[re.Match[str]], list[tuple[str, int]]]) -> tuple[str, list[int]]:
    """Replace each match by pieces ``(new text, index in text the piece came from)``, keeping the map."""
    out: list[str] = []
    where: list[int] = []
    at = 0
    for m in pattern.finditer(text):
        out.append(text[at:m.start()])
        where += origin[at:m.start()]
        for piece, src in by(m):
            out.append(piece)
            copied = text[src:src + len(piece)] == piece
            where += origin[src:src + len(piece)] if copied else [origin[src]] * len(piece)
        at = m.end()
    out.append(text[at:])
    where += origin[at:]
    return "".join(out), where


def normalise(text: str) -> tuple[str, list[int]]:
    """(plain text, for each of its characters the index in ``text`` it came from; one more for the end)."""
    origin = list(range(len(text) + 1))
    if any(c in text for c in "*_`"):
        text, origin = _rewrite(text, origin, _EMPHASIS, lambda m: [(m.group(2), m.start(2))])
    if "\\" in text or "$" in text:
        text, origin = _rewrite(text, origin, _LATEX_SI, lambda m: (
            [(m.group(3), m.start(3))] if m.group(3) is not None
            else [(m.group(1), m.start(1)), (" ", m.start(2)), (m.group(2), m.start(2))]))
        text, origin = _rewrite(text, origin, _LATEX_COMMAND, lambda m: [(_command(m.group(0)), m.start())])
        text, origin = _rewrite(text, origin, _LATEX_BRACES, lambda m: (
            [(" / ", m.start())] if m.group(0) == "}" and text[m.end():m.end() + 1] == "{" else []))
    if any(c in text for c in _SUPERSCRIPT):
        text, origin = _rewrite(text, origin, _SUPERSCRIPTS, lambda m: [
            ("^" + "".join(_SUPERSCRIPT[c] for c in m.group(0)), m.start())])
    if _SIZE_E.search(text):
        text, origin = _rewrite(text, origin, _SIZE_E, _power_of_two)
    if _NUMBER_WORDS.search(text):
        text, origin = _rewrite(text, origin, _NUMBER_WORDS, lambda m: _digits(m, text))
    if _NUMBER_PHRASE.search(text):
        text, origin = _rewrite(text, origin, _NUMBER_PHRASE, _phrase_digits)
    text, origin = _rewrite(text, origin, _DIGIT_GROUPS, lambda m: [])
    text, origin = _rewrite(text, origin, _SPACE_GROUPS, lambda m: [
        (m.group(1), m.start(1)),
        *((m.group(2)[i + 1:i + 4], m.start(2) + i + 1) for i in range(0, len(m.group(2)), 4))])
    if _DECIMAL_COMMA.search(text) and re.search(r"\d,\d", text) and not re.search(r"\d\.\d{1,2}(?!\d)", text):
        # a text of decimal commas (and no decimal point): "3.777 GB/s" is three thousand seven hundred and 77
        text, origin = _rewrite(text, origin, _DOT_GROUPS, lambda m: [
            (piece, m.start() + i) for i, piece in _without_dots(m.group(0))])
    text, origin = _rewrite(text, origin, _DECIMAL_COMMA, lambda m: [
        (m.group(0)[:_comma(m) - m.start()], m.start()), (".", _comma(m)),
        (m.group(0)[_comma(m) + 1 - m.start():], _comma(m) + 1)])
    return text, origin
