"""Named rules of the pre-reader: each pattern that finds a number, a unit, a subject (variant, case, timing
method, statistic) or a verdict cue has a name, a one-line purpose and its own examples.

Every rule is a :class:`Rule` in :data:`RULES` (the modules that use a rule take it from here by name), and
``tests/grading/test_explanation_rules.py`` runs each rule's examples one by one: each of ``examples`` must be
found by the rule's pattern, none of ``counter`` may be. Where rules compete for the same span (the number
patterns of :mod:`.numbers`), the order they are tried in is written next to them, and the competition is
pinned by the examples too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .. import mentions

__all__ = ["RULES", "Rule", "rule"]


@dataclass(frozen=True)
class Rule:
    """A regular expression with what it is for and where it must (``examples``) and must not
    (``counter``) match."""

    name: str
    purpose: str
    pattern: re.Pattern[str]
    examples: tuple[str, ...]
    counter: tuple[str, ...] = ()

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self.pattern.search(text, pos, len(text) if endpos is None else endpos)


RULES: dict[str, Rule] = {}


def rule(name: str, purpose: str, pattern: str, examples: tuple[str, ...], counter: tuple[str, ...] = (),
         flags: int = re.I) -> re.Pattern[str]:
    """Register a rule and return its compiled pattern (for the module that uses it)."""
    if name in RULES:
        raise ValueError(f"rule {name!r} registered twice")
    compiled = re.compile(pattern, flags)
    RULES[name] = Rule(name, purpose, compiled, examples, counter)
    return compiled


# ---------------------------------------------------------------------------------------------- timing method
WALL = rule(
    "method.wall",
    "the sentence speaks of per-call wall time (CUDA events around one call, CPU dispatch included)",
    r"(?<![A-Za-z0-9])wall|(?<!gpu time )(?<!gpu-time )(?<!gpu_time )(?<!kernel time )\bper[- ]call\b|"
    r"\b(?:par appel|por llamada|pro Aufruf|por chamada|per chiamata)\b|"
    r"\bend[- ]to[- ]end\b|\bcuda events?\b|\bevents? around\b|"
    r"\b(?:one|a|each|every|the) call\b|"
    r"\bcalls? costs?\b|\bfrom python\b|\ba single call\b|\bsingle[- ]call\b|"
    r"(?<!\bno )(?<!without )(?<!free of )\bdispatch(?!\w*\s+(?:is|are)\s+(?:gone|absent|removed|excluded|not))|"
    r"\bhost[- ]side\b|"
    r"\bcpu[- ](?:time|side|overhead)\b|"
    r"\bwall[- ]?clock\b|\bWandzeit|\btiempo (?:de )?pared\b|\btemps (?:mur|réel)\b|\btempo de parede\b",
    ("The wall-time speedup is 3.9x.", "per call the eager chain takes 97 µs", "~100 µs of CPU dispatch",
     "in Wandzeit ist es langsamer", "wall-clock", "S_wall(2^20) = 0.81", "le speedup par appel atteint 3,5"),
    ("the GPU time is 71 µs", "the kernel is memory bound", "here dispatch is gone", "without dispatch",
     "GPU time per call: eager 0.1315 ms"),
)
GPU = rule(
    "method.gpu",
    "the sentence speaks of GPU time (CUDA-graph replay, kernel time only, no CPU dispatch)",
    r"\bgpu[- _]?(?:time|side|only|kernel|timing|zeit|tiempo|temps|speed-?\s?ups?|ratios?)|\bkernel[- ]time\b|"
    r"\bcuda[- ]graphs?\b|"
    r"\bgraph replay\b|\breplay|\bdevice time\b|\b(?:on the|in) gpu(?:[- ](?:time|side))?\b|\bGPU-Zeit\b|"
    r"\btiempo (?:de )?GPU\b|"
    r"\btemps GPU\b|\btempo de GPU\b|(?<![A-Za-z0-9])gpu\b(?=\s*[:=]?\s*[~≈]?\s*\d)",
    ("The GPU-time speedup is 4.0x.", "GPU 4.1x = traffic ratio", "with CUDA graphs the eager chain takes 71 µs",
     "on the gpu it is 3.9x", "the GPU speedup of 3.85x",
     "die GPU-Zeit sinkt", "tiempo de GPU", "S_GPU = 2.85"),
    ("the GPU is fast", "per call", "a graph of the sweep"),
)

# ---------------------------------------------------------------------------------------------- statistic of a ratio
RATIO_TIME = rule(
    "ratio.about_time",
    "a ratio said of time is a speedup (of two measured times), not a traffic ratio",
    r"(?:time|speed|wall|gpu)[\s-]*ratio|speed|faster|slower|quicker|\btime|µs|latency|\bwall|\bgpu|"
    r"\bmeasured\b|\bgemessen|\bmedid[oa]|\bmesuré|\bmedid[oa]|"
    r"schneller|langsamer|más rápid|más lent|plus rapide|plus lent|mais rápid|mais lent|beschleunig|aceleraci|"
    r"accélération|aceleração",
    ("The GPU-time speedup is 4.0x.", "3.9x faster", "7.6x slower than eager", "3,9-mal schneller", "measured 3.22×",
     "3,2 veces más rápido", "3,9 fois plus rapide"),
    ("4x less traffic", "the ratio of bytes"),
)
RATIO_TRAFFIC = rule(
    "ratio.about_traffic",
    "a ratio said of bytes is the work model's traffic ratio, not a measured speedup",
    r"traffic|bytes?\b|memory(?![- ]?(?:bound|limited|time))|moves?\b(?!\s+(?:around|about|from run))|moving|"
    r"\bdata\b|Verkehr|Datenverkehr|tráfego|"
    r"tráfico|trafic|octets|Bytes|datos|dados|données",
    ("4x less traffic", "moves 4x fewer bytes", "the byte ratio is 4", "4-mal weniger Datenverkehr",
     "4 fois moins de trafic", "4x less memory traffic"),
    ("3.9x faster", "the GPU time", "the ratio is 4", "add memory bound -> 7x", "compute time over memory time",
     "the 0.93x per call moves around from run to run"),
)
DIRECTION_FASTER = rule(
    "direction.faster",
    "right after a ratio: its subject is the faster (or smaller) side: 'S is 3.9x faster (than O)'",
    r"^\s*(?:\)\s*)?(?:[\w-]+\s+){0,1}?(?:faster|quicker|speed-?\s?ups?|less|fewer|smaller|lower|cheaper|"
    r"shorter|schneller|weniger|kleiner|más rápid\w*|menos|plus rapides?|moins|mais rápid\w*)\b",
    (" faster than eager", " less traffic", "x speedup over eager", " schneller als", " más rápido",
     " plus rapide", " mais rápido"),
    (" slower than eager", " more bytes", " of the time"),
)
DIRECTION_SLOWER = rule(
    "direction.slower",
    "right after a ratio: its subject is the slower (or larger) side: 'S is 7.6x slower (than O)'",
    r"^\s*(?:\)\s*)?(?:[\w-]+\s+){0,1}?(?:slower|longer|more|larger|bigger|higher|greater|slow-?\s?downs?|"
    r"langsamer|mehr|größer|más lent\w*|más|plus lents?|plus|mais lent\w*|mais)\b",
    (" slower than eager", " more traffic", "x slowdown", " langsamer als", " más lento", " plus lent",
     " mais lento"),
    (" faster than eager", " less traffic", " speedup"),
)
SPEEDUP_BEFORE = rule(
    "direction.speedup_before",
    "just before a ratio: 'the speedup of S is 3.9', 'S speeds up by 3.9': S is the faster side",
    r"\b(?:speed-?\s?ups?|speeds? up|beschleunigung|aceleración|accélération|aceleração)\b[^.;:\d]{0,30}$",
    ("the GPU-time speedup is ", "a speedup of about ", "speeds up by "),
    ("the slowdown is ",),
)

PREDICTED = rule(
    "ratio.predicted",
    "a speedup the text predicts from bytes ('ideally the speedup would be 4', 'falls short of 4x') may be the "
    "traffic ratio: the clause's time words do not rule the traffic ratio out",
    r"\b(?:predict\w*|expect\w*|ideal\w*|would|should|in theory|theoretical\w*|model\w*|short of|"
    r"from (?:the )?bytes|erwart\w*|esperad\w*|attendu\w*)\b",
    ("ideally the speedup would be 4 as well", "falls short of 4x", "I expected a speedup of 4"),
    ("the GPU-time speedup is 4.0x",),
)
KERNEL_TIME = rule(
    "method.kernel_time",
    "a time said of the kernel itself ('an 18 µs kernel', 'its kernel only runs for 18 µs') is GPU time",
    r"^\s*(?:\)\s*)?(?:of\s+)?(?:gpu\s+)?kernels?\b(?!\s+launch)|"
    r"\bkernels?\b[^.;,]{0,25}\b(?:runs?|ran|takes?|took|lasts?|lasted|needs?|needed)\b[^.;,]{0,12}$|"
    r"\b(?:a|an|one|its|un|une|ein|einen|einem|uno|um)\s+(?:kernel|noyau|núcleo|Kernel)\s+(?:of|de|von|di|do)\s+"
    r"(?:~\s*|≈\s*|about\s+|environ\s+|unos\s+|etwa\s+)?$",
    (" kernel itself runs", "its kernel only runs for ", " kernel.", "My kernel took ", "pour un noyau de ",
     "before a kernel of about "),
    (" kernel launches", "for the call "),
)

KERNELS_PAREN = rule(
    "method.kernels_parenthesis",
    "times in a parenthesis right after 'the kernels' ('because the kernels (1.04 ms vs 0.26 ms) outlast dispatch') "
    "are the kernels' own: GPU time",
    r"\b(?:the|its|as|both|their)\s+(?:[\w-]+\s+)?kernels?\s*\(\s*"
    r"(?:[\d.,]+\s*[^\s\d()]{0,3}\s*(?:vs\.?|versus|/|and|,|against)\s*)?(?:~\s*|≈\s*|about\s+)?$",
    ("because the kernels (", "as kernels (", "the eager kernels (~", "the kernels (1.04 ms vs "),
    ("the kernels launch (", "kernels: "),
)

# ---------------------------------------------------------------------------------------------- per kernel
EACH = rule(
    "subject.per_kernel",
    "the number's own clause speaks of one kernel of several ('each eager kernel moves 67 MB')",
    r"\b(?:each|every|per (?:kernel|launch|pass|op(?:eration)?)|one of|jede[rsn]?|cada|chaque|"
    r"(?:por|pro|par|pour) (?:kernel|noyau|núcleo|lanzamiento|lancement|Kernel|Start))\b",
    ("each eager kernel moves 67 MB", "per kernel it is 67 MB", "one of the four kernels", "jeder Kernel",
     "cada kernel", "chaque noyau", "mueve 4,2 MB por kernel", "pro Kernel"),
    ("so eager moves 64 MB", "eager moves 268 MB in total"),
)

# ---------------------------------------------------------------------------------------------- case mentions
FORMULA = rule(
    "case.in_formula",
    "a size inside a formula ('8192/6', '4096 * 2') is arithmetic, not the case the sentence is about",
    r"^\s*(?:/|÷|\*(?!\*)|·)\s*[\d(]",
    ("/6 ≈ 1365", " / 6", " * 2 bytes", "·2"),
    (" x 4096", " elements", "**2"),
)
UNCHECKED = rule(
    "verdict.unchecked",
    "a time said of CPU dispatch or launch overhead per launch: the reference does not measure it, so it is "
    "neither credited nor held against the answer",
    r"\b(?:dispatch|overhead|latency|cpu)\b[^.;]{0,40}\b(?:per|each|every) (?:launch|kernel)\b|"
    r"\b(?:per|each|every) (?:launch|kernel)\b[^.;]{0,40}\b(?:dispatch|overhead|latency)\b",
    ("~10 µs of CPU dispatch per launch", "launch overhead of 5 µs per kernel", "per launch the dispatch costs"),
    ("the GPU time is 71 µs", "eager launches 4 kernels", "~100 µs of CPU dispatch per call"),
)

WALL_AS_KERNEL = rule(
    "misconception.wall_as_kernel",
    "a sentence that reads a per-call (wall) figure as the kernel's own: against its peak or roofline, or as "
    "why it is (not) memory- or compute-bound ('timed one call: 85 µs ... it reaches only 947 GB/s against the "
    "roofline')",
    r"\b(?:of (?:the |its )?(?:[\w-]+ ){0,2}(?:peak|roofline)|"
    r"of (?:the |its )?[~≈]?\s?\d[\d.,]*\s?[\w/]+ (?:[\w-]+ )?(?:peak|roofline)|"
    r"against (?:the |a )?[^.;]{0,24}?\b(?:peak|roofline)|"
    r"(?:memory|compute|bandwidth)[- ]bound|is running at|kernel (?:only )?reaches|reaches only|"
    r"(?:the )?roofline (?:predicts|says|gives|expects)|predicted by the roofline)\b",
    ("it reaches only 947 GB/s against the 4,220 GB/s roofline", "only 8% of the bf16 peak",
     "so it's not memory-bound yet", "which means it is running at 613 TFLOP/s",
     "6.1x slower, which is the ratio the roofline predicts", "only 7 % of the 743 TFLOP/s peak"),
    ("the GPU time is 71 µs", "the speedup is 1.2x"),
)
OVERHEAD = rule(
    "misconception.overhead_named",
    "a sentence that names what a call pays besides its kernels (dispatch, CPU or Python overhead, guards, "
    "launch cost): its per-call figures are read as the call's, not the kernel's",
    r"\b(?:overhead|dispatch\w*|launch(?:ing)? (?:cost|latenc\w*|overhead)|launching|cpu|python|host|guards?|"
    r"wrapped|framework|Overhead|sobrecarga|surco[ûu]t)\b",
    ("since the call is ~115 µs of mostly CPU overhead", "because launching costs more than the math",
     "host dispatch dominates"),
    ("the fused kernel is not memory-bound",),
)


def named(name: str, purpose: str, examples: tuple[str, ...], counter: tuple[str, ...] = ()
          ) -> Callable[..., re.Pattern[str]]:
    """``named(...)(pattern, flags)``: :func:`rule` in the shape of ``re.compile`` (for a module's table of
    patterns)."""
    def compile_(pattern: str, flags: int = 0) -> re.Pattern[str]:
        return rule(name, purpose, pattern, examples, counter, flags)

    return compile_


# ---------------------------------------------------------------------------------------------- shared spellings
# (defined in autograder/mentions.py, below this package, for the lessons' workloads; registered here)
def _register_mentions() -> None:
    rule("case.dtype", "a dtype's name: fp16, bf16, 'half precision', tf32, fp32, fp64",
         mentions.DTYPE_WORDS, ("in fp16", "bf16 matmul", "half precision", "TF32", "plain fp32"), ("fp", "float"))
    rule("case.power_of_two", "a size written as a power of two (2^24, 2**24, 2^{24}, 2<sup>24</sup>), not bytes",
         mentions.POWER_OF_TWO.pattern, ("2^24", "2**24", "2^{24}", "2<sup>24</sup>"), ("2^20 bytes", "32^2"))
    rule("subject.all_variants", "'both', 'either', 'all three': the text speaks of every variant, not one",
         r"(?<![\w])(?:" + mentions.BOTH + r")(?![\w])", ("both", "either", "each of them", "all three"), ("bother",))


_register_mentions()
