"""The conclusions an explanation draws in words ("the fused call is slower per call", "eager wins on the
GPU"), checked against the reference: a conclusion the measurement contradicts costs in the suggested score
whatever the numbers around it, since it is the misconception a lesson teaches against.

A claim is a comparison word (faster, slower, wins, beats, and their German, Spanish, French and Portuguese
forms) with its subject (the variant named before it in its clause) and what it is compared with (the
variant after "than", else the only other variant). It is judged at the explanation cell's case, by the timing
method its sentence names (or by both when they agree); a sentence that names another case or size, or
negates the claim, is not judged. Lesson-agnostic: the variants' spellings come from the workload.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..mentions import Mention
from ..records import ParamValue, ReferenceRun
from ..workload import Workload
from .rules import GPU, WALL, rule

__all__ = ["Conclusion", "bound_claims", "conclusions", "flops_as_cause", "misconceptions"]

_CLAIM = rule(
    "conclusion.claim",
    "a comparison drawn in words: faster, slower, wins, beats, loses, outperforms (and in four more languages)",
    r"\b(?:(faster|quicker|wins?|beats?|outperforms?|ahead|schneller|más rápid\w*|plus rapides?|mais rápid\w*)|"
    r"(slower|loses?|behind|langsamer|más lent\w*|plus lents?|mais lent\w*))\b",
    ("the fused call is slower", "eager wins", "compiled beats eager", "ist schneller", "es más lento"),
    ("the speedup", "fast enough"),
)
_NEGATED = rule(
    "conclusion.negated",
    "a negation just before a comparison word: the claim is not made ('is not faster', 'isn't slower')",
    r"\b(?:not|n't|never|no|nicht|kaum|pas|não|nem)\b[^.;,]{0,20}$|n't\s+[^.;,]{0,12}$",
    ("is not ", "isn't much ", "ist nicht "),
    ("is much ",),
)
_OTHER_CASE = rule(
    "conclusion.other_case",
    "words that put a claim at other sizes than the cell's ('at large sizes', 'for small tensors', 'from 2^26')",
    r"\b(?:large|larger|big|bigger|small|smaller|tiny|huge|long|short|longer|shorter|sizes?|sweep|until|from|"
    r"above|below|beyond|up to|once|when|if|would|should|expect\w*|predict\w*)\b|#",
    ("at large sizes", "for small tensors", "from #### on", "would be faster"),
    ("the fused call is slower",),
)
_THAN = rule(
    "conclusion.than",
    "after a comparison word: 'than X', 'over X', 'als X', 'que X' names what the subject is compared with",
    r"^\s*(?:\w+\s+){0,2}?(?:than|over|to|als|que|de)\s+(?:the\s+|a\s+|an\s+|o\s+|el\s+|la\s+|le\s+|der\s+|die\s+)?$",
    (" than the ", " than ", " over "),
    (" because the ",),
)


_AFTER_NUMBER = rule(
    "conclusion.after_number",
    "a comparison word right after a number ('4x faster', '3.9 times slower'): the number carries the claim",
    r"\d(?:[.,]\d+)?\s*(?:x|×|times|fold|-fold|mal|veces|fois|vezes)?\s*(?:\w+\s+)?$",
    ("about 4x ", "3.9 times ", "4 "),
    ("the fused call is ",),
)
_CLAUSE = rule(
    "conclusion.clause",
    "where the clause of a claim begins: its subject is named after this",
    r"[,;:]|\b(?:so|and|but|while|whereas|because|since)\b",
    (", so", "; ", " because "),
    (" the ",),
)


@dataclass(frozen=True)
class Conclusion:
    """A claim drawn in words and what the reference says of it."""

    text: str
    span: tuple[int, int]
    right: bool
    reason: str


def _median(ref: ReferenceRun, variant: str, params: Mapping[str, ParamValue], method: str) -> float | None:
    for m in ref.measurements:
        if m.case.variant == variant and m.method == method and dict(m.case.params) == dict(params):
            return float(m.stats.median)
    return None


def _family(method: str) -> str:
    return "wall" if "wall" in method else "gpu" if "gpu" in method else method


def conclusions(text: str, masked: str, sentences: list[tuple[int, int]], mentions: list[Mention],
                workload: Workload, case: Mapping[str, ParamValue], ref: ReferenceRun | None) -> list[Conclusion]:
    """Every comparison ``text`` draws in words that the reference can check at ``case`` (``masked``: the text
    with case mentions masked as ``#``; ``sentences``: its sentence spans; ``mentions``: where it names
    variants)."""
    if ref is None or not workload.variants:
        return []
    names = [m for m in mentions if m.variant is not None]
    starts = [m.start for m in names]
    sentence_starts = [a for a, _ in sentences]
    methods = sorted({m.method for m in ref.measurements})
    out = []
    for claim in _CLAIM.finditer(masked):
        i = bisect.bisect_right(sentence_starts, claim.start()) - 1
        if i < 0:
            continue
        a, b = sentences[i]
        if _OTHER_CASE.search(masked, a, b) or _NEGATED.search(masked[max(a, claim.start() - 24):claim.start()]):
            continue
        if _AFTER_NUMBER.search(masked[max(a, claim.start() - 16):claim.start()]):
            continue  # "4x faster": a number states it, and the number is judged
        clause = max((m.end() for m in _CLAUSE.finditer(masked, max(a, claim.start() - 200), claim.start())),
                     default=a)
        subject = _subject(names, starts, masked, clause, claim.start())
        other = _compared(names, starts, masked, claim.end(), b, subject, workload)
        if subject is None or other is None or subject == other:
            continue
        said = [_family(m) for m in methods if _named(masked, a, b, _family(m))]
        judged = [m for m in methods if not said or _family(m) in said]
        faster = claim.group(1) is not None
        verdicts = []
        for method in judged:
            s, o = _median(ref, subject, case, method), _median(ref, other, case, method)
            if s is None or o is None or s == o:
                continue
            verdicts.append((method, (s < o) == faster, s, o))
        if not verdicts or (not said and len({v[1] for v in verdicts}) > 1):
            continue  # unmeasured, or the methods disagree and the sentence does not say which it means
        method, right, s, o = verdicts[0]
        word = "faster" if faster else "slower"
        reason = (f"'{text[a:b].strip()[:80]}' says {subject} is {word} than {other}; by {method} it "
                  f"{'is' if right else 'is not'} ({s * 1e3:.3g} µs vs {o * 1e3:.3g} µs)")
        out.append(Conclusion(text[claim.start():claim.end()], (claim.start(), claim.end()), right, reason))
    return out


def _named(masked: str, a: int, b: int, family: str) -> bool:
    pattern = WALL if family == "wall" else GPU if family == "gpu" else None
    return pattern is not None and pattern.search(masked, a, b) is not None


def _subject(names: list[Mention], starts: list[int], masked: str, a: int, at: int) -> str | None:
    """The variant named last before the claim in its sentence, not one after 'than'."""
    j = bisect.bisect_left(starts, at) - 1
    while j >= 0 and names[j].start >= a:
        before = masked[max(a, names[j].start - 12):names[j].start].lower()
        if not any(w in before for w in ("than ", "over ", " vs", "versus ", "als ", "que ")):
            return names[j].variant
        j -= 1
    return None


def _compared(names: list[Mention], starts: list[int], masked: str, at: int, b: int, subject: str | None,
              workload: Workload) -> str | None:
    """The variant after 'than' (within a few words), else the only other variant of a two-variant lesson."""
    j = bisect.bisect_left(starts, at)
    if j < len(names) and names[j].start < min(b, at + 40) and _THAN.search(masked[at:names[j].start]):
        return names[j].variant
    others = [v for v in workload.variants if v != subject]
    return others[0] if len(others) == 1 else None


# ---------------------------------------------------------------------------------------------- misconceptions
# What the framework's timing methods mean, not what a lesson teaches: GPU time replays a CUDA graph (kernels
# only, no CPU dispatch), so launch or dispatch overhead never explains a GPU-time figure; and launching a
# kernel costs the same whatever its data, so overhead does not grow with the tensor.
_OVERHEAD = rule(
    "conclusion.overhead",
    "launch, dispatch or Python overhead named as a cause (English, German, Spanish, French, Portuguese)",
    r"\b(?:launch|dispatch|python|cpu|kernel[- ]launch|start)[- ]?(?:overhead|cost)s?\b|\boverhead\b|"
    r"Startkosten|Start-?Overhead|sobrecarga|surco[uû]t",
    ("launch overhead", "the dispatch cost", "Python overhead", "sobrecarga de lanzamiento"),
    ("the launch count",),
)
_EXPLAINS = rule(
    "conclusion.explains",
    "words that make the one cause of a figure: 'must be', 'can only be', 'is just', 'is all' (not 'comes from': "
    "a kernel boundary costs time even in a CUDA graph)",
    r"\b(?:must be|has to be|can only be|is (?:just|only|all|simply|entirely|purely)|muss|debe ser|doit être|"
    r"deve ser)\b|"
    r"\b(?:gap|difference|shortfall)\b[^.;]{0,30}\bis\s+(?:the\s+|some\s+)?(?:kernel\s+)?(?:launch|dispatch)\b",
    ("must be launch overhead", "the gap is just launch overhead", "can only be the launch overhead",
     "The gap to the ratio is the launch overhead of the four extra eager kernels"),
    ("is faster", "comes from launching 4 kernels"),
)
_GROWS = rule(
    "conclusion.overhead_grows",
    "overhead said to grow with the data ('the launch overhead must grow with the tensor size')",
    r"\boverhead\b[^.;]{0,40}\b(?:grows?|increases?|scales?|rises?)\b[^.;]{0,20}\b(?:with|as)\b[^.;]{0,30}"
    r"\b(?:size|tensor|data|bytes|elements|n)\b",
    ("the launch overhead must grow with the tensor size", "overhead grows with the data"),
    ("the overhead is constant", "the bytes grow with the size"),
)
_DENIES = rule(
    "conclusion.denies_gain",
    "a measured gain denied: 'does not actually help', 'no real benefit', 'is an artifact', 'bringt nichts'",
    r"\b(?:(?:does|do|did)(?: not|n't) (?:actually |really )?(?:help|matter|pay off)|no (?:real )?(?:benefit|gain|"
    r"speed-?up)|(?:is|are) (?:just )?an? artifacts?|useless|pointless|bringt nichts|no ayuda|n'aide pas|não ajuda)\b",
    ("fusion does not actually help", "the GPU-time number is an artifact", "no real benefit"),
    ("it does help", "fusion helps"),
)


_BECAUSE = rule(
    "conclusion.because",
    "a word that makes what follows the cause of what came before ('because', 'since', 'due to', 'weil', 'porque', "
    "'parce que', 'perché'): with launch overhead after it, overhead named as why a speedup is what it is",
    r"\b(?:because|since|due to|owing to|weil|da|porque|parce que|car|perché|poiché|pois)\b",
    ("the speedup is 3.19 because the compiled kernel", "below the ratio since it still pays", "weil"),
    ("the cause", "becausee"),
)


def misconceptions(masked: str, sentences: list[tuple[int, int]], names: list[Mention],
                   ref: ReferenceRun | None, case: Mapping[str, ParamValue]) -> list[Conclusion]:
    """Conclusions the timing methods contradict whatever the lesson: GPU time explained by launch overhead
    (it replays a CUDA graph: there is none in it), overhead growing with the data, a gain denied that the
    GPU time of the cell's variants shows (more than 1.5x)."""
    out = []
    starts = [m.start for m in names if m.variant is not None]
    for i, (a, b) in enumerate(sentences):
        s = masked[a:b]
        why = None
        over = _OVERHEAD.search(s)
        # "It stays under 1 because every call pays ...": a pronoun carries the previous sentence's method
        before = masked[sentences[i - 1][0]:a] if i and _PRONOUN.match(s) else ""
        denied = _DENIES.search(s)
        if over and _GROWS.search(s):
            why = "launch overhead is paid per launch, whatever the size of the data"
        elif over and _EXPLAINS.search(s) and not WALL.search(s) and not WALL.search(before) and not _NOT_CAUSE.search(
                s[max(0, over.start() - 24):over.start()]) and (
                GPU.search(s) or re.search(r"\b(?:speed-?ups?|ratio|factor|measured)\b", s, re.I)):
            why = "GPU time replays a CUDA graph: it has no launch or dispatch overhead to explain it"
        elif (over and _BECAUSE.search(s, 0, over.start()) and _SPEEDUP_WORD.search(s) and not WALL.search(s)
              and not WALL.search(before) and not _NOT_CAUSE.search(s[max(0, over.start() - 24):over.start()])
              and "#" not in s and not _SIZES_NAMED.search(s) and _gpu_floor(ref, case) >= LONG_KERNEL_MS):
            why = (f"at this size each kernel runs for {_gpu_floor(ref, case) * 1e3:.0f} µs or more of GPU time, "
                   "which replays a CUDA graph: launch overhead does not explain the speedup")
        elif ((launch := _LAUNCH_CAUSE.search(s)) and _SPEEDUP_WORD.search(s) and not WALL.search(s)
              and not WALL.search(before) and not _NOT_CAUSE.search(s[max(0, launch.start() - 24):launch.start()])
              and "#" not in s and not _SIZES_NAMED.search(s) and _gpu_floor(ref, case) >= LONG_KERNEL_MS):
            why = (f"at this size each kernel runs for {_gpu_floor(ref, case) * 1e3:.0f} µs or more of GPU time: "
                   "the launches saved do not explain the speedup, the bytes do")
        elif denied and _gpu_gain(ref, case) > 1.5 and not WALL.search(_clause_of(s, denied)) and not (
                i and WALL.search(masked[sentences[i - 1][0]:a]) and not GPU.search(s)) and (
                _OPTIMISATION.search(masked, max(a, a + denied.start() - 40), a + denied.start())
                or any(a + denied.start() - 40 <= p < a + denied.start() for p in starts)):
            why = f"the GPU time shows a {_gpu_gain(ref, case):.2g}x difference between the variants"
        elif ((short := _PER_CALL_AGAINST_BYTES.search(s)) and WALL.search(s, 0, short.start()) and not GPU.search(s)
              and not _OVERHEAD_NAMED.search(s) and _gpu_gain(ref, case) > 1.5):
            why = ("a per-call speedup held against the traffic ratio: a call pays its CPU dispatch as well, the "
                   "bytes saved show in the GPU time")
        elif ((room := _HEADROOM.search(s)) and not _NO_HEADROOM.search(s, max(0, room.start() - 24), room.start())
              and "#" not in s and not _SIZES_NAMED.search(s) and (share := _best_share(ref, case)) >= AT_CEILING):
            why = (f"at this size a kernel already reaches {share:.0%} of its ceiling (the copy roofline or the "
                   "matmul peak): there is no headroom left to claim")
        if why is not None:
            out.append(Conclusion(s.strip()[:60], (a, b), False, f"'{s.strip()[:80]}': {why}"))
    return out


#: a kernel at this share of its ceiling (GPU time) has no headroom a sentence may claim for it
AT_CEILING = 0.9
_HEADROOM = rule(
    "misconception.headroom",
    "headroom claimed for a kernel: 'a lot left on the table', 'plenty of room to improve', 'could still be much "
    "faster', 'far from the roofline', 'well below the peak' (the lesson's misconception where the kernel is at its "
    "ceiling already)",
    r"\b(?:(?:a lot|lots|much|plenty|quite a bit)\s+(?:of\s+\w+\s+)?left on the table|left on the table|"
    r"(?:a lot of|lots of|plenty of|much|significant|big|large)\s+(?:room|headroom)|room (?:for|to) improve\w*|"
    r"could (?:still |easily )?be (?:much|a lot|far|significantly|way|several times) faster|"
    r"(?:far|well|way) (?:from|below|under|short of) (?:the |its )?(?:copy )?(?:roofline|peak|bandwidth limit|"
    r"ceiling|hbm (?:limit|bandwidth)))\b",
    ("there is still a lot left on the table", "plenty of room to improve", "it could still be much faster",
     "far from the roofline", "well below the peak", "lots of headroom"),
    ("it is at the roofline", "the speedup is 4x", "close to the roofline"),
)
_NO_HEADROOM = rule(
    "misconception.no_headroom",
    "right before a headroom phrase, words that deny it: 'nothing left on the table', 'no room', 'hardly any "
    "headroom', 'not far from the roofline'",
    r"(?:\b(?:no|nothing|not|hardly|little|barely|never|without|kein\w*|nicht)\b|n't)[^.;]{0,12}$",
    ("nothing ", "there is no ", "not ", "hardly any ", "isn't "),
    ("there is still ", "it is "),
)


def _best_share(ref: ReferenceRun | None, case: Mapping[str, ParamValue]) -> float:
    """The largest share of its ceiling any variant reaches at ``case`` in GPU time (the copy roofline for bytes,
    the dtype's matmul peak for FLOPs), 0 when unmeasured."""
    if ref is None:
        return 0.0
    dev = ref.device
    peak = (getattr(dev, "peaks", None) or {}).get(f"matmul_tflops:{case.get('dtype')}")
    best = 0.0
    for m in ref.measurements:
        if _family(m.method) != "gpu" or dict(m.case.params) != dict(case) or m.stats.median <= 0:
            continue
        if dev.copy_gbps:
            best = max(best, m.achieved_gbps / dev.copy_gbps)
        if m.flops and peak:
            best = max(best, m.achieved_tflops / peak)
    return best


_PER_CALL_AGAINST_BYTES = rule(
    "misconception.per_call_against_bytes",
    "a speedup said to fall short of the bytes saved ('only gives 1.44x even though it moves 4x fewer bytes', "
    "'2.36x, well below the traffic ratio', 'although it cuts the traffic by 4x'): in a sentence of per-call "
    "times, the lesson's misconception that wall time shows what fusion saves",
    r"\b(?:only|just|barely)\s+(?:gives?|reaches|gets|achieves|is)\b[^;\n]{0,40}?\b(?:even though|although|though|"
    r"despite|while)\b[^;\n]{0,40}?\b(?:bytes|traffic)\b|"
    r"\b(?:well|far|way|much)\s+(?:below|short of|under|less than)\s+(?:the\s+)?(?:\w+\s+)?"
    r"(?:traffic|byte)[- ]?ratio\b",
    ("so fusion only gives 1.44x even though it moves 4x fewer bytes", "the speedup is 2.36x, well below the "
     "traffic ratio", "fusion only gives 1.44x although it cuts the traffic by 4x", "far below the traffic ratio"),
    ("the speedup is 3.2x, a bit below the traffic ratio", "it only gives 1.44x per call", "the traffic ratio is 4"),
)
_OVERHEAD_NAMED = rule(
    "conclusion.overhead_named",
    "what a call pays besides its kernels named: dispatch, overhead, CPU, Python, guards, host, latency",
    r"\b(?:dispatch\w*|overheads?|cpu|python|guards?|host|latenc\w*|wrapper|interpreter|launch(?:es|ing)?\s+"
    r"costs?)\b",
    ("the CPU dispatch", "Python overhead", "Dynamo's guards", "host side"),
    ("the bytes", "the traffic ratio"),
)


#: a kernel this long (GPU time, ms) dwarfs what launching it costs (a few µs, and none inside a CUDA graph)
LONG_KERNEL_MS = 0.010
_LAUNCH_CAUSE = rule(
    "conclusion.launches_as_cause",
    "the launches saved named as what makes a variant faster: 'the speedup comes from saving three launches', "
    "'eager pays four kernel launches and mine only one', 'launches are what dominates'",
    r"\b(?:sav(?:es|ing|e)|remov\w+|eliminat\w+|cutting|fewer)\b[^.;:]{0,30}\blaunch(?:es)?\b|"
    r"\blaunch(?:es)?\b[^.;]{0,30}\b(?:(?:is|are) what dominat\w*|dominat\w*|(?:is|are) what makes)\b|"
    r"\bpays? (?:\w+ )?(?:kernel )?launch(?:es)?\b[^.;]{0,30}\bonly (?:one|1)\b|"
    # "the speedup is the launch ratio", "the speedup equals the launch-count ratio"
    r"\bspeed-?\s?ups?\b[^.;:]{0,24}\b(?:is|equals|=|matches|follows)\s+(?:just\s+|simply\s+|exactly\s+)?"
    r"(?:the\s+)?(?:ratio of (?:the\s+)?(?:kernel\s+)?launch(?:es|\s+counts?)|"
    r"(?:kernel[- ])?launch(?:[- ]count)?\s+ratio)",
    ("the speedup comes from saving three kernel launches", "launches are what dominates an elementwise op",
     "eager pays four kernel launches and mine only one", "so the speedup is the launch ratio",
     "The speedup equals the launch ratio whenever the GPU is busy"),
    ("eager launches 4 kernels", "the launch count drops from 4 to 1", "the speedup is the traffic ratio"),
)
_SIZES_NAMED = rule(
    "conclusion.sizes_named",
    "words that put a claim about launches at other sizes than the cell's: 'at small sizes', 'for tiny tensors'",
    r"\b(?:small|smaller|smallest|tiny|large|larger|largest|sizes|sweep)\b",
    ("at small sizes", "for tiny tensors", "across the sweep"),
    ("at this size",),
)
_SPEEDUP_WORD = rule(
    "conclusion.speedup_word",
    "a speedup or a faster variant spoken of: the sentence explains a gain",
    r"\b(?:speed-?\s?ups?|faster|quicker|gain|wins?|schneller|más rápid\w*|plus rapides?|mais rápid\w*|"
    r"aceleraci[óo]n|accélération|Beschleunigung)\b|\d\s?[x×]",
    ("the speedup", "makes the fused version faster", "the 4x"),
    ("the bytes",),
)


def _gpu_floor(ref: ReferenceRun | None, case: Mapping[str, ParamValue]) -> float:
    """The shortest GPU time (ms) of a variant's kernel at ``case``: its GPU time over its launches where the
    reference counted them, else its GPU time (0 when unmeasured)."""
    if ref is None:
        return 0.0
    times = [float(m.stats.median) / max(1, m.launches or 1) for m in ref.measurements
             if _family(m.method) == "gpu" and dict(m.case.params) == dict(case) and m.stats.median > 0]
    return min(times) if times else 0.0


_NOT_CAUSE = rule(
    "conclusion.not_cause",
    "a negation just before the overhead: 'not due to launch overhead', 'no launch overhead', 'kein Overhead'",
    r"\b(?:not|n't|no|never|without|kein\w*|nicht|pas|sin|sem|sans)\b[^.;]{0,16}$",
    ("is not due to ", "there is no ", "without "),
    ("must be ",),
)
_PRONOUN = rule(
    "conclusion.pronoun",
    "a sentence that opens with a pronoun continues the previous one's subject ('It stays under 1 because ...')",
    r"^\W*(?:it|this|that|these|those|es|esto|cela|isso|das)\b",
    ("It stays under 1", "This is because"),
    ("The fused kernel",),
)
_OPTIMISATION = rule(
    "conclusion.optimisation_word",
    "the optimisation itself as the subject of a denied gain: fusion, fusing, compiling, optimising",
    r"\b(?:fusion|fusing|fuse|compil\w*|optimi[sz]\w*|Fusion|fusión|fusão)\b",
    ("so fusion does not", "compiling it"),
    ("intensity",),
)


def _clause_of(s: str, m: re.Match[str]) -> str:
    """The clause of ``s`` around a match: from the clause break before it to the one after it ("fusion does not
    help per call (0.84x)" names the wall time; "the wall speedup is 0.84x, so fusion does not help" does not)."""
    starts = [b.end() for b in _CLAUSE.finditer(s, 0, m.start())]
    end = _CLAUSE.search(s, m.end())
    return s[starts[-1] if starts else 0:end.start() if end else len(s)]


def _gpu_gain(ref: ReferenceRun | None, case: Mapping[str, ParamValue]) -> float:
    """The largest ratio of two variants' GPU times at ``case`` (1 when unmeasured)."""
    if ref is None:
        return 1.0
    times = [float(m.stats.median) for m in ref.measurements
             if _family(m.method) == "gpu" and dict(m.case.params) == dict(case) and m.stats.median > 0]
    return max(times) / min(times) if len(times) > 1 else 1.0


_BOUND_CLAIM = rule(
    "conclusion.bound_claim",
    "a kernel said to be memory- or compute-bound ('it becomes memory-bound', 'the add is compute bound', "
    "'speichergebunden', 'limitado por memoria')",
    r"\b(?:(memory|bandwidth|speicher|mémoire|memoria|memória)[- ]?(?:bound|gebunden|limited)|"
    r"(compute|rechen|calcul|cómputo|cálculo|computação)[- ]?(?:bound|gebunden|limited)|"
    r"limitad[oa] (?:por|pela) (?:(memoria|memória)|(c[óá]mputo|computação))|"
    r"limité par (?:la |le )?(?:(mémoire)|(calcul))|"
    r"limited by (?:the )?(?:(memory(?: traffic| bandwidth)?|HBM|bandwidth|bytes)|(compute|arithmetic|FLOPs?)))\b",
    ("it becomes memory-bound", "the add is compute bound", "speichergebunden", "limitado por memoria",
     "limité par le calcul", "it is really limited by memory traffic too", "limited by the arithmetic"),
    ("memory traffic", "bound to", "limited by the 743 TFLOP/s peak"),
)


_BOUND_BEFORE_NAME = rule(
    "conclusion.bound_before_name",
    "between a bound said as an adjective and the variant right after it ('memory-bound add', 'a compute-bound "
    "multiply', 'memory-bound elementwise kernel'): the claim is of that variant",
    r"^[ \t]*(?:\)[ \t]*)?$",
    ("", " ", " "),
    (" and the ", ", while ", ": the "),
)


def bound_claims(masked: str, sentences: list[tuple[int, int]], names: list[Mention],
                 intensities: Mapping[str, float], ridges: list[float], mentioned: Sequence[Mention] = (),
                 case: Mapping[str, ParamValue] | None = None) -> list[Conclusion]:
    """A variant said to be memory-bound whose work model's intensity (FLOP per byte) is above every ridge
    point of the device, or compute-bound below every one: the roofline says the other bound whatever the
    dtype. Said of the variant named last before the claim in its sentence; a negated claim, a claim at other
    sizes or of a prediction is not judged."""
    if not intensities or not ridges:
        return []
    low, high = min(ridges), max(ridges)
    out = []
    for a, b in sentences:
        s = masked[a:b]
        for m in _BOUND_CLAIM.finditer(s):
            memory = bool(m.group(1) or m.group(3) or m.group(5) or m.group(7))
            elsewhere = any(a <= c.start < a + m.start() and c.params and case is not None
                            and any(case.get(k) != v for k, v in c.params.items()) for c in mentioned)
            if _NEGATED.search(s[max(0, m.start() - 30):m.start()]) or elsewhere or _SIZES_NAMED.search(s) or re.search(
                    r"\b(?:would|should|expect\w*|predict\w*|on paper|in theory|if)\b", s[:m.start()], re.I):
                continue
            after = [n for n in names if a + m.end() <= n.start < b and n.variant is not None
                     and _BOUND_BEFORE_NAME.match(masked[a + m.end():n.start])]
            before = [n for n in names if a <= n.start < a + m.start()]
            if after:  # "Compute-bound multiply, memory-bound add": the claim is of the name right after it
                variant = after[0].variant
            elif before and before[-1].variant is None:  # "both are memory-bound": every variant is
                said = [v for v in intensities if (intensities[v] > high if memory else intensities[v] < low)]
                variant = said[0] if said else None
            else:
                before = [n for n in before if n.variant is not None]
                variant = before[-1].variant if before else None
            if variant is None or variant not in intensities:
                continue
            intensity = intensities[variant]
            if memory and intensity > high:
                why = f"its intensity ({intensity:.3g} FLOP/byte) is above the ridge: it is compute-bound"
            elif not memory and intensity < low:
                why = f"its intensity ({intensity:.3g} FLOP/byte) is below the ridge: it is memory-bound"
            else:
                continue
            out.append(Conclusion(s.strip()[:60], (a, b), False, f"'{s.strip()[:80]}': {why}"))
            break
    return out


_FLOPS_CAUSE = rule(
    "misconception.flops_as_cause",
    "less arithmetic named as what makes a variant faster ('because my kernel does 4 times fewer FLOPs', 'the "
    "cheaper math, not the bytes, is what makes it faster')",
    r"\b(?:because|since|comes? from|due to|thanks to)\b[^.;:]{0,60}\b(?:fewer|less|cheaper|reduced|lower)\s+"
    r"(?:\w+\s+)?(?:FLOPs?|arithmetic|math|computation|operations)\b|"
    r"\b(?:cheaper|less|fewer)\s+(?:math|arithmetic|FLOPs?)\b[^.;]{0,20}\bnot the bytes\b",
    ("because my kernel does 4 times fewer FLOPs than eager", "the cheaper math, not the bytes, is what makes it",
     "the speedup comes from less arithmetic"),
    ("it does fewer launches", "because it moves fewer bytes", "the wall clock measures the CPU, not the bytes"),
)


def flops_as_cause(masked: str, sentences: list[tuple[int, int]], intensities: Mapping[str, float],
                   ridges: Sequence[float]) -> list[Conclusion]:
    """Less arithmetic named as the cause of a speedup where every variant's work-model intensity is below every
    ridge point: memory-bound kernels, whose time the bytes set, not the FLOPs."""
    if not intensities or not ridges or max(intensities.values()) >= min(ridges):
        return []
    return [Conclusion(masked[a:b].strip()[:60], (a, b), False,
                       f"'{masked[a:b].strip()[:80]}': every kernel here is memory-bound (intensity "
                       f"{max(intensities.values()):.2g} FLOP/byte or less, below the ridge): the bytes set the time, "
                       "not the arithmetic")
            for a, b in sentences if _FLOPS_CAUSE.search(masked, a, b)]
