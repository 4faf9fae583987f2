"""Other languages' words for the English words a lesson names its variants by ("fused" is "fusionada",
"fusioniert", "fusionné"): a lesson declares its variants' English spellings (``variant_words``) and the
pre-reader adds these, so an answer in German, Spanish, French or Portuguese names the same variants (and
Italian: "il mio kernel" for a lesson whose student writes the kernel).

Each translation is a named rule of :mod:`.rules` with its own examples; which English word it translates is
its key. Lesson-agnostic: only words a lesson already uses are translated. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .rules import rule

__all__ = ["TRANSLATIONS", "typos", "with_translations", "with_typos"]

#: English word (as a lesson spells a variant) -> a pattern of its German, Spanish, French, Portuguese forms
TRANSLATIONS: dict[str, str] = {
    "unfused": rule(
        "spelling.unfused",
        "'unfused' in German, Spanish, French, Portuguese: nicht fusioniert, sin fusionar, non fusionné, não fundido",
        r"(?:nicht|un)[- ]?fusioniert\w*|ungefused|sin fusionar|no fusionad[oa]s?|non[- ]fusionn[ée]e?s?|"
        r"não[- ](?:fundid|fusionad)[oa]s?|sem fus[ãa]o|sans fusion|ohne fusion|non[- ]fus[oaie]\b|senza fusione",
        ("die nicht fusionierte Version", "sin fusionar", "la version non fusionnée", "não fundida",
         "la versione non fusa"),
        ("fusioniert", "fusionada"),
    ).pattern,
    "fused": rule(
        "spelling.fused",
        "'fused' in German, Spanish, French, Portuguese, Italian: fusioniert(e), fusionada, fusionné(e), fundido, fusa",
        r"\b(?:(?<!nicht )(?<!nicht-)(?<!un)fusioniert\w*|(?<!no )fusionad[oa]s?|(?<!non )(?<!non-)fusionn[ée]e?s?|"
        r"(?<!não )fundid[oa]s?|(?<!non )(?<!non-)fus[oai])\b",  # Italian: fuso, fusa, fusi (not 'fuse')
        ("die fusionierte Version", "la versión fusionada", "la version fusionnée", "o kernel fundido",
         "quella fusa legge", "il kernel fuso", "la versione fusa"),
        ("fusion", "confundido", "the fuse blew", "la versione non fusa"),
    ).pattern,
    "composed": rule(
        "spelling.composed",
        "'composed' (of separate ops) in German, Spanish, French, Portuguese: zusammengesetzt, compuesta, composée",
        r"zusammengesetzt\w*|compuest[oa]s?|compos[ée]e?s?|compost[oa]s?",
        ("die zusammengesetzte Version", "la versión compuesta", "la version composée", "a versão composta"),
        ("composition",),
    ).pattern,
    "compiled": rule(
        "spelling.compiled",
        "'compiled' in German, Spanish, French, Portuguese: kompiliert(e), compilado/a, compilé(e)",
        r"\b(?:kompiliert\w*|compilad[oa]s?|compilé(?:e|es|s)?|compilat[oaie])\b",
        ("die kompilierte Version", "el compilado", "la version compilée", "la versione compilata"),
        ("compile",),
    ).pattern,
    "library": rule(
        "spelling.library",
        "'library' (a library's own kernel) in German, Spanish, French, Portuguese",
        r"Bibliotheks?\w*|biblioteca|bibliothèque|libreria",
        ("die Bibliothek", "la biblioteca", "la bibliothèque"),
        ("library",),
    ).pattern,
    "multiply": rule(
        "spelling.multiply",
        "'multiply' / 'multiplication' in German, Spanish, French, Portuguese",
        r"Multiplikation|Matrixmultiplikation|multiplicaci[óo]n|multiplicação|multiplication matricielle|"
        r"produit matriciel|producto de matrices",
        ("die Multiplikation", "la multiplicación", "a multiplicação", "le produit matriciel"),
        ("multiple",),
    ).pattern,
    "add": rule(
        "spelling.add",
        "'add' / 'addition' (an elementwise sum) in German, Spanish, French, Portuguese",
        r"\b(?:Addition|adici[óo]n|adição|(?<!una )suma\b(?! de)|soma\b(?! de))",
        ("die Addition", "la adición", "a adição", "la suma"),
        ("sumar", "la suma de"),
    ).pattern,
    "my kernel": rule(
        "spelling.my_kernel",
        "'my kernel' (the student's own) in German, Spanish, French, Portuguese, Italian",
        r"\b(?:mein(?:em|en)?\s+Kernel|mi\s+kernel|mon\s+(?:kernel|noyau)|meu\s+kernel|il\s+mio\s+kernel)\b",
        ("mein Kernel", "mi kernel", "mon noyau", "meu kernel", "il mio kernel"),
        ("my kernel", "un kernel"),
    ).pattern,
}
#: the English forms of each translated word a lesson's spelling may match ("multiplication" is "multiply")
_FORMS = {"unfused": ("unfused",), "composed": ("composed",), "fused": ("fused",), "compiled": ("compiled",),
          "library": ("library",), "multiply": ("multiply", "multiplication", "multiplies"),
          "add": ("add", "addition", "adds"), "my kernel": ("my kernel",)}


def _translates(spelling: str, word: str) -> bool:
    try:
        return any(re.fullmatch(spelling, form, re.I) for form in _FORMS[word])
    except re.error:
        return False


def with_translations(words: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """A lesson's variant spellings (variant -> patterns) with the translations of each English word it uses
    (by a spelling that matches the word, or by the variant's own name)."""
    out = {}
    for variant, spellings in words.items():
        extra = tuple(p for w, p in TRANSLATIONS.items()
                      if w == variant or any(_translates(s, w) for s in spellings))
        out[variant] = (*spellings, *extra)
    return out


#: a plain word of a variant's spellings this long or longer is also read with one typo: two letters swapped
#: ("compield"), or (from eight letters) one inner letter left out ("copiled"); a shorter word's typos are
#: too often other words ("unused" for "unfused")
TYPO_FROM = 7
_PLAIN = rule(
    "spelling.plain_word",
    "a variant spelling that is one plain word (its typos are read too): 'compiled', 'composed', 'elementwise'",
    r"^[a-zäöüßáéíóúàèçãõâêô]+$",
    ("compiled", "elementwise", "composed"),
    (r"torch\.compile", "primitive ops", "built-?in"),
)


#: a plain word this long or longer is also read with one inner letter doubled ("fussed", "compilled"): a
#: doubled letter rarely makes another word of the lessons' variant names
DOUBLED_FROM = 5


def doubled(word: str) -> list[str]:
    """One-typo forms of ``word`` with one inner letter doubled ("fused" -> "fussed"); not the first letter."""
    return sorted({word[:i] + word[i] + word[i:] for i in range(1, len(word) - 1)} - {word})


def typos(word: str) -> list[str]:
    """One-typo forms of ``word``: adjacent letters swapped, and an inner letter dropped (eight letters or
    more); the first and last letters stay (a dropped one is another word: "compile")."""
    out = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, len(word) - 2)}
    if len(word) >= TYPO_FROM + 1:
        out |= {word[:i] + word[i + 1:] for i in range(1, len(word) - 1)}
    return sorted(out - {word})


def with_typos(words: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Each variant's spellings with the one-typo forms of its plain words of :data:`TYPO_FROM` letters or more
    (and of the variant's own name), unless a form is another variant's spelling."""
    plain = {v: [w for w in (v, *ws) if len(w) >= TYPO_FROM and _PLAIN.fullmatch(w)] for v, ws in words.items()}
    short = {v: [w for w in (v, *ws) if DOUBLED_FROM <= len(w) and _PLAIN.fullmatch(w)] for v, ws in words.items()}
    every = {w for ws in (*plain.values(), *short.values()) for w in ws}
    out = {}
    for variant, spellings in words.items():
        forms = sorted(({t for w in plain[variant] for t in typos(w)} | {t for w in short[variant] for t in doubled(w)})
                       - every)
        out[variant] = (*spellings, *([r"(?:" + "|".join(forms) + r")"] if forms else []))
    return out
