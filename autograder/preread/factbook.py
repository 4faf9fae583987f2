"""Every number a correct explanation may state about one case: the lesson's work model, its inputs, and
what the reference measured there (times, achieved bandwidth and FLOP rate, fractions of the peak, ratios of
two variants' times), plus the device's own figures. Built once per (lesson, cell, reference) and per case
asked for: grading ten thousand explanations must not rebuild it ten thousand times."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import LessonSpecError
from ..kinds import kind_of
from ..mentions import _DTYPES as DTYPE_SPELLINGS
from ..mentions import DTYPE_BYTES, DTYPE_WORDS
from ..records import ParamValue, ReferenceRun, render_params
from ..spec import SPEC_FILENAME, ExplanationSpec, LessonSpec, load_spec
from ..workload import Fact, Work

__all__ = ["Candidate", "FactBook", "WorkModelError", "check_work_model", "fact_book", "other_lessons_launches",
           "work_model_problems"]


class WorkModelError(LessonSpecError):
    """A lesson's work model (``workload.py``: ``work``, ``facts``, ``input_bytes``) fails at a case the
    lesson itself measures or asks about: a bug of the lesson, reported in one line, never hidden."""


def _model_at(
    spec: LessonSpec, params: Mapping[str, ParamValue]
) -> tuple[list[Fact], dict[str, Work], list[tuple[str, int]]]:
    wl = spec.workload
    return list(wl.facts(params)), {v: wl.work(v, params) for v in wl.variants}, list(wl.input_bytes(params))


def _lesson_cases(spec: LessonSpec) -> list[dict[str, ParamValue]]:
    """Every case the lesson measures on any device kind, and every explanation cell's case."""
    seen: dict[tuple[tuple[str, ParamValue], ...], dict[str, ParamValue]] = {}
    for kind in spec.sweep:
        for c in spec.cases(kind):
            seen.setdefault(_key(c.params), dict(c.params))
    for ex in spec.explanations:
        seen.setdefault(_key(ex.case), dict(ex.case))
    return list(seen.values())


def work_model_problems(spec: LessonSpec) -> list[str]:
    """One line per case of the lesson where its work model raises (``autograder lint`` reports them)."""
    out = []
    for params in _lesson_cases(spec):
        try:
            _model_at(spec, params)
        except Exception as exc:
            where = render_params(params, short=False, sep=" ")
            out.append(f"work model fails at {where}: {type(exc).__name__}: {exc}")
    return out


def check_work_model(spec: LessonSpec) -> None:
    """Raise :class:`WorkModelError` (the first failing case) if the work model fails at a case of the lesson."""
    problems = work_model_problems(spec)
    if problems:
        raise WorkModelError(f"lesson {spec.id}: {problems[0]}")


#: a per-kernel figure counts only where the sentence speaks per kernel ("each eager kernel moves 20 MB")
EACH = r"\b(?:each|every|per (?:kernel|launch|pass|op(?:eration)?)|one of)\b"
#: the L2 size only where the sentence speaks of the cache (else 64 MB of traffic would "match" a 60 MB L2)
CACHE = r"\b(?:l2|cache[sd]?)\b"


#: a per-element figure only where the sentence speaks per element
PER_ELEMENT = (r"\b(?:per|each|every|pro|por|par|cada|chaque) "
               r"(?:element|elemento|élément|Element|value|Wert|valor|valeur)s?\b")
#: a share of another variant's traffic only where the sentence speaks of traffic
TRAFFIC_SHARE = (r"\b(?:traffic|bytes|data|memory|Verkehr|Datenverkehr|Bytes|tráfico|tráfego|trafic|datos|dados|"
                 r"données|octets)\b")


#: a device's ceiling only where the sentence speaks of one (else "this kernel runs at 4 TB/s" would match it);
#: a subscript names it too ("I_ridge ≈ 184", "P_peak")
CEILING = (r"(?:\b|(?<=_))(?:rooflines?|peaks?|peaking|copy|ceilings?|theoretical|spec|hbm|limits?|max(?:imum)?|"
           r"ridge|balance|knee|"
           r"machine|"
           # German, Spanish, French, Portuguese: Spitze, Grenze, techo, pico, plafond, pic, point d'inflexion, teto
           r"spitze\w*|grenze|obergrenze|knick\w*|dach\w*|techo|pico|l[íi]mite|plafond|pic|inflexion|inflexi[óo]n|teto|"
           r"crête|cresta|kopier\w*|copia|copie|cópia|"
           # the ridge point by its other names: "point d'équilibre", "punto de equilibrio", "Gleichgewichtspunkt"
           r"[ée]quilibre|equilibrio|equilíbrio|gleichgewicht\w*)\b|(?:%|per\s?cent) of|\bout of\b")

#: a share of the copy roofline, or of the matmul peak, only where the sentence says which
COPY = (r"\b(?:copy|bandwidth|roofline|memory|hbm|[gt]b/s|copie|copia|cópia|kopier\w*|bande passante|ancho de banda|"
        r"Bandbreite|largura de banda|mémoire|memoria|memória|Speicher)")
COMPUTE = r"\b(?:peak|tensor|compute|matmul|mma)|flop"
#: a share written as a percentage or named a share: of the ceiling that binds the kernel, when the sentence
#: names no ceiling
PERCENT = (r"%|\b(?:percent|per ?cent|pct|prozent|por ?ciento|pour ?cent|por ?cento|fraction|share|Anteil|"
           r"fracci[óo]n|fração|fração|frazione|quota)\b")


@dataclass(frozen=True)
class Candidate:
    """A fact, the words its sentence must use for the fact to be what it means (``cue``, a regular
    expression; None: any sentence), and the variants a ratio compares (a ratio of eager to compiled is
    not something a third variant is "2.4x faster" by)."""

    fact: Fact
    cue: str | None = None
    compares: frozenset[str] | None = None
    #: a value of a quantity the lesson asks for (a headline figure a sentence may quote without naming it)
    asked: bool = False
    #: a ratio of one variant's times in two dtypes: (numerator's dtype, denominator's): "TF32 is 6.9x faster
    #: than fp32" is checked against which side is faster, as a ratio of two variants is
    dtypes: tuple[str, str] | None = None


def _key(params: Mapping[str, ParamValue]) -> tuple[tuple[str, ParamValue], ...]:
    return tuple(sorted(params.items()))


@dataclass
class FactBook:
    spec: LessonSpec
    case: dict[str, ParamValue]
    ref: ReferenceRun | None
    _at: dict[tuple[tuple[str, ParamValue], ...], list[Candidate]] = field(default_factory=dict)
    _device_facts: tuple[Fact, ...] | None = None
    _ceiling_dtypes: dict[str, str] = field(default_factory=dict)
    _known: list[dict[str, ParamValue]] | None = None
    _pairs: frozenset[frozenset[str]] | None = None
    _where: dict[str, list[dict[str, ParamValue]]] | None = None
    _by_kind: dict[tuple[tuple[tuple[str, ParamValue], ...], str], list[Candidate]] = field(default_factory=dict)
    _sorted: dict[str, tuple[list[float], list[Candidate]]] = field(default_factory=dict)
    #: the references of the course's other lessons on the same device (lesson id -> reference): their
    #: headline figures, quoted here, are named another lesson's ("7.2x" of 03 in 04)
    others: Mapping[str, ReferenceRun] = field(default_factory=dict)
    #: the figures the cell's prompt states (``ExplanationSpec.gives``: the device's SM count, a count the work
    #: model names): given, not credited, there
    gives: frozenset[str] = frozenset()
    _other_figures: list[Fact] | None = None
    _other_case_figures: list[Fact] | None = None

    def at(self, params: Mapping[str, ParamValue]) -> list[Candidate]:
        """The facts of the case ``params`` (empty if the workload has no model there)."""
        key = _key(params)
        if key not in self._at:
            self._at[key] = self._build(dict(params))
        return self._at[key]

    def of_kind(self, params: Mapping[str, ParamValue], kind: str) -> list[Candidate]:
        """The facts of one kind at ``params`` (indexed: a number asks only for its own kinds)."""
        key = (_key(params), kind)
        if key not in self._by_kind:
            self._by_kind[key] = [c for c in self.at(params) if c.fact.kind == kind]
        return self._by_kind[key]

    def anywhere(self, kind: str) -> tuple[list[float], list[Candidate]]:
        """Every measured or modelled figure of one kind at every known case (inputs, one kernel's figures and
        figures that need their words, per element or a share, aside), sorted by value: where a number quoted
        from another case is looked up by bisection."""
        if kind not in self._sorted:
            cands = sorted((c for params in self.known_cases() for c in self.of_kind(params, kind)
                            if not c.fact.given and not c.fact.per_kernel and c.fact.params is not None
                            and c.cue is None and c.fact.value > 0), key=lambda c: c.fact.value)
            self._sorted[kind] = ([c.fact.value for c in cands], cands)
        return self._sorted[kind]

    def compared_pairs(self) -> frozenset[frozenset[str]]:
        """The pairs of variants the lesson's quantities compare (a speedup of them is a figure it asks about)."""
        if self._pairs is None:
            pairs = set()
            for q in self.spec.quantities:
                try:
                    cases = kind_of(q).cases(q)
                except Exception:
                    continue
                variants = frozenset(c.variant for c in cases)
                if len(variants) == 2:
                    pairs.add(variants)
            self._pairs = frozenset(pairs)
        return self._pairs

    def compared_where(self, key: str) -> list[dict[str, ParamValue]]:
        """Where the lesson's quantities compare values of the case parameter ``key`` (a dtype speedup at
        n = 4096: ``[{"log2_n": 12}]``): the other parameters their cases share."""
        if self._where is None:
            self._where = {}
            for q in self.spec.quantities:
                try:
                    cases = [dict(c.params) for c in kind_of(q).cases(q)]
                except Exception:
                    continue
                if len(cases) < 2:
                    continue
                keys = {k for c in cases for k in c}
                varied = {k for k in keys if len({repr(c.get(k)) for c in cases}) > 1}
                common = {k: cases[0][k] for k in keys - varied if all(k in c for c in cases)}
                for k in varied:
                    if common and common not in self._where.setdefault(k, []):
                        self._where[k].append(common)
        return self._where.get(key, [])

    def model_launches(self, params: Mapping[str, ParamValue]) -> set[float]:
        """The launch counts the work model predicts at ``params`` (the profiler's counts may override them as
        facts: "instead of the model's 1" restates the prediction)."""
        try:
            _, works, _ = _model_at(self.spec, dict(params))
        except Exception:
            return set()  # a case the model has not: the fact book reports a broken model where it is measured
        return {float(w.launches) for w in works.values() if w.launches}

    def known_cases(self) -> list[dict[str, ParamValue]]:
        """The cell's case and every case the reference measured: where a misplaced number may belong."""
        if self._known is None:
            seen = {_key(self.case): self.case}
            for m in self.ref.measurements if self.ref else []:
                seen.setdefault(_key(m.case.params), dict(m.case.params))
            self._known = list(seen.values())
        return self._known

    def quantity_facts(self) -> list[Fact]:
        """The reference's value of every quantity of this lesson, each said of its case where its cases share
        one (``params`` None otherwise)."""
        return [f for f, _ in self._quantities()]

    def other_lesson_figures(self) -> list[Fact]:
        """The numeric reference values of every quantity of the course's other lessons (:attr:`others`), as
        facts of their kind, labelled with their lesson: what "another lesson's figure" can be. A lesson whose
        spec does not load is left out (its own lint reports it)."""
        if self._other_figures is None:
            out: list[Fact] = []
            specs = course_specs(self.spec)
            for lesson, ref in sorted(self.others.items()):
                other = specs.get(lesson)
                if other is None:
                    continue
                for q in other.quantities:
                    got = ref.quantities.get(q.id)
                    try:
                        kind = kind_of(q).fact_kind
                    except Exception:
                        continue
                    if got is None or not kind or isinstance(got.value, (str, bool)) or not got.value:
                        continue
                    out.append(Fact(kind, float(got.value), f"{lesson}'s {q.id} ({ref.device.name} reference)",
                                    method=q.method))
            self._other_figures = out
        return self._other_figures

    def other_lesson_case_figures(self) -> list[Fact]:
        """The times, bytes and bandwidths of every case the course's other lessons ask an explanation of (each
        variant's median per method, its bytes moved and GPU-time bandwidth), labelled with their lesson and case:
        what "another lesson's figure" can be besides its quantities (04's "17.4 µs" or "67.1 MB" quoted in 03).
        A lesson whose spec does not load is left out (its own lint reports it)."""
        if self._other_case_figures is None:
            out: list[Fact] = []
            specs = course_specs(self.spec)
            for lesson, ref in sorted(self.others.items()):
                other = specs.get(lesson)
                if other is None:
                    continue
                cases = [_key(e.case) for e in other.explanations]
                for m in ref.measurements:
                    if _key(m.case.params) not in cases:
                        continue
                    where = render_params(dict(m.case.params), short=True)
                    out.append(Fact("time", m.median_ms, f"{lesson}'s {m.case.variant} {m.method} time at {where} "
                                    f"({ref.device.name} reference)", method=m.method))
                    if m.bytes_moved:
                        out.append(Fact("bytes", float(m.bytes_moved),
                                        f"{lesson}'s {m.case.variant} bytes moved at {where}"))
                        if m.method == "gpu_time":  # what it streams at ("4,117 GB/s" of 06 quoted in 05)
                            out.append(Fact("bandwidth", m.achieved_gbps, f"{lesson}'s {m.case.variant} achieved "
                                            f"bandwidth at {where} ({ref.device.name} reference)", method=m.method))
            self._other_case_figures = out
        return self._other_case_figures

    # ------------------------------------------------------------------ building
    def _build(self, params: dict[str, ParamValue]) -> list[Candidate]:
        wl = self.spec.workload
        where = render_params(params, short=False, sep=" ")
        try:
            model, works, inputs = _model_at(self.spec, params)
        except Exception as exc:
            if any(_key(k) == _key(params) for k in self.known_cases()):
                raise WorkModelError(
                    f"lesson {self.spec.id}: work model fails at {where}: {type(exc).__name__}: {exc}"
                ) from exc
            return []  # a case only the text names (a size or dtype the lesson has not): nothing to match
        model = [_typed_model_fact(f, works) for f in model]
        if _key(params) == _key(self.case):  # a count the cell's prompt states ("one block runs on one SM"): given
            model = [dataclasses.replace(f, given=True) if f.kind == "count" and f.topic in self.gives else f
                     for f in model]
        out = [Candidate(f) for f in model]
        have = {(f.kind, f.variant) for f in model}
        for v, w in works.items():  # FLOPs and intensity, where the lesson's own facts leave them out
            if w.flops and ("flops", v) not in have:
                out.append(Candidate(Fact("flops", w.flops, f"{v} FLOPs for {where}", v, params)))
            if w.flops and ("intensity", v) not in have:
                out.append(Candidate(Fact("intensity", w.intensity, f"{v} arithmetic intensity", v, params)))
        out += self._intensity_ratios(works, params, where)
        out += self._roofline_ratios(works, params, where)
        for v, w in works.items():
            if w.launches > 1:
                out.append(Candidate(Fact("bytes", w.bytes_moved / w.launches, f"{v} bytes per kernel for {where}",
                                          v, params, topic="traffic", per_kernel=True), cue=EACH))
        for name, size in inputs:
            out.append(Candidate(Fact("bytes", size, f"{name} for {where} (an input)", None, params, given=True,
                                      topic="input")))
        dtype_bytes = DTYPE_BYTES.get(str(params.get("dtype")))
        if inputs and dtype_bytes:  # "8 bytes per element": a variant's traffic over the elements of one input
            elements = inputs[0][1] / dtype_bytes
            for v, w in works.items():
                if elements >= 1 and w.bytes_moved:
                    out.append(Candidate(Fact("bytes", w.bytes_moved / elements, f"{v} bytes per element for {where}",
                                              v, params, topic="traffic"), cue=PER_ELEMENT))
        for v, w in works.items():  # "the fused kernel moves 1/4 of eager's traffic": a share of another's bytes
            for o, wo in works.items():
                if v != o and wo.bytes_moved and 0 < w.bytes_moved < wo.bytes_moved:
                    out.append(Candidate(Fact("fraction", w.bytes_moved / wo.bytes_moved,
                                              f"{v} traffic as a share of {o}'s for {where}", None, params,
                                              topic="traffic"), cue=TRAFFIC_SHARE, compares=frozenset({v, o})))
        for i, c in enumerate(out):
            if c.fact.kind == "ratio" and c.fact.variant is None and c.compares is None:
                # the model's own ratios compare the variants
                out[i] = Candidate(c.fact, c.cue, frozenset(c.fact.ratio_of or wl.variants))
        dtype = params.get("dtype")
        if isinstance(dtype, str) and dtype in DTYPE_BYTES:
            out.append(Candidate(Fact("bytes", DTYPE_BYTES[dtype], f"one {dtype} element", None, params, given=True,
                                      topic="input")))
        measured = self._measured(params)
        # what the reference counted overrides what the model predicts ("torch.compile launches 1 kernel" is
        # the model's count; the profiler saw 5 at one long row): the model's figure is dropped there
        counted = {c.fact.variant for c in measured if c.fact.kind == "launches" and c.fact.variant}
        out = [c for c in out if not (c.fact.kind == "launches" and c.fact.variant in counted)]
        out += measured
        out += [Candidate(f, CACHE if f.topic == "cache" else CEILING) for f in self._device()]
        out += self._across(params)
        return out

    def _intensity_ratios(self, works: Mapping[str, Work], params: Mapping[str, ParamValue],
                          where: str) -> list[Candidate]:
        """A variant's intensity over the ridge point of the case's dtype ("1.9x the ridge"), and one variant's
        intensity over another's ("a factor of 8192 between them"), each only where its words are said."""
        out = []
        dev = self.ref.device if self.ref is not None else None
        peak = (getattr(dev, "peaks", None) or {}).get(f"matmul_tflops:{params.get('dtype')}") if dev else None
        ridge = peak * 1e3 / dev.copy_gbps if peak and dev is not None and dev.copy_gbps else None
        for v, w in works.items():
            if w.flops and ridge:
                out.append(Candidate(Fact("ratio", w.intensity / ridge, f"{v} intensity over the ridge for {where}", v,
                                          params, topic="intensity"), cue=RIDGE_CUE))
            for o, wo in works.items():
                if v != o and w.flops and wo.flops and w.intensity > wo.intensity:
                    out.append(Candidate(Fact("ratio", w.intensity / wo.intensity,
                                              f"{v} intensity over {o}'s for {where}", None, params,
                                              topic="intensity", ratio_of=(v, o)),
                                         cue=INTENSITY_CUE, compares=frozenset({v, o})))
                if v != o and w.flops and wo.flops and w.flops > wo.flops:  # "8192 times more arithmetic"
                    out.append(Candidate(Fact("ratio", w.flops / wo.flops, f"{v} FLOPs over {o}'s for {where}",
                                              None, params, topic="flops", ratio_of=(v, o)),
                                         cue=FLOP_RATIO_CUE, compares=frozenset({v, o})))
        return out

    def _roofline_ratios(self, works: Mapping[str, Work], params: Mapping[str, ParamValue],
                         where: str) -> list[Candidate]:
        """The ratio of two variants' times the roofline predicts (each its FLOPs over the dtype's peak or its
        bytes over the copy roofline, whichever is longer: 'the roofline predicts 185 µs against 24 µs, 7.6'),
        only where one of them is compute-bound (else it is the traffic ratio) and the sentence says it is
        predicted."""
        dev = self.ref.device if self.ref is not None else None
        peak = (getattr(dev, "peaks", None) or {}).get(f"matmul_tflops:{params.get('dtype')}") if dev else None
        if dev is None or not peak or not dev.copy_gbps:
            return []
        ideal = {v: max(w.flops / (peak * 1e12), w.bytes_moved / (dev.copy_gbps * 1e9)) for v, w in works.items()
                 if w.bytes_moved}
        bound = {v for v, w in works.items() if v in ideal and w.flops / (peak * 1e12) > w.bytes_moved / (
            dev.copy_gbps * 1e9)}
        out = []
        for v, o in itertools.permutations(ideal, 2):
            if ideal[v] > ideal[o] > 0 and {v, o} & bound:
                out.append(Candidate(Fact("ratio", ideal[v] / ideal[o], f"roofline-predicted time {v} over {o} for "
                                          f"{where}", None, params, topic="roofline", ratio_of=(v, o)),
                                     cue=ROOFLINE_PREDICTED, compares=frozenset({v, o})))
        return out

    def _across(self, params: Mapping[str, ParamValue]) -> list[Candidate]:
        """The lesson's quantities that compare two dtypes of one variant ("bf16 over fp32"): only where the
        sentence names the other dtype (the one that is not the case's), checked for which side is faster."""
        out = []
        for f, compares, dtypes in self._quantities_across():
            other = [d for d in dtypes if d != params.get("dtype")]
            if not other or params.get("dtype") not in dtypes:
                continue
            out.append(Candidate(f, dtype_cue(other[0]), compares, asked=True, dtypes=dtypes))
        return out

    def _measured(self, params: dict[str, ParamValue]) -> list[Candidate]:
        ref = self.ref
        if ref is None:
            return []
        dev = ref.device.name
        # this case, and the same case in other dtypes (for "fp16 is 2x faster than fp32 at this size")
        rest = {k: v for k, v in params.items() if k != "dtype"}
        peers = [m for m in ref.measurements if {k: v for k, v in m.case.params.items() if k != "dtype"} == rest]
        here = [m for m in peers if dict(m.case.params) == params]
        peaks = getattr(ref.device, "peaks", None) or {}
        peak = peaks.get(f"matmul_tflops:{params.get('dtype')}")
        out: list[Candidate] = []
        for m in here:
            v, what = m.case.variant, f"{dev} {m.case.key} {m.method}"
            st = m.stats
            out += [
                Candidate(Fact("time", st.median, f"{what} time", v, params, method=m.method)),
                Candidate(Fact("bandwidth", m.achieved_gbps, f"{what} achieved bandwidth", v, params,
                               method=m.method)),
            ]
            # the share of its own roofline (the larger of the two: the ceiling that binds it) is what "the
            # multiply reaches 92 %" means without naming the ceiling; the other share needs its ceiling named
            # ("half" alone is neither)
            copy_share = m.achieved_gbps / ref.device.copy_gbps if ref.device.copy_gbps else None
            compute_share = m.achieved_tflops / peak if m.flops and peak else None
            binds = "compute" if compute_share is not None and compute_share > (copy_share or 0.0) else "copy"
            if copy_share is not None:
                out.append(Candidate(Fact("fraction", copy_share,
                                          f"{what} share of the copy roofline", v, params, topic="share",
                                          method=m.method), f"{COPY}|{PERCENT}" if binds == "copy" else COPY))
            if m.flops:
                out.append(Candidate(Fact("flop_rate", m.achieved_tflops, f"{what} TFLOP/s", v, params,
                                          method=m.method)))
                if compute_share is not None:
                    out.append(Candidate(Fact("fraction", compute_share, f"{what} share of the matmul peak",
                                              v, params, topic="share", method=m.method),
                                         f"{COMPUTE}|{PERCENT}" if binds == "compute" else COMPUTE))
        for a in here:
            for b in peers:
                if a is b or a.method != b.method or b.stats.median <= 0:
                    continue
                across = a.case.params != b.case.params
                if across and a.case.variant != b.case.variant:
                    continue
                for x, y in ((a, b), (b, a)):
                    # a ratio across dtypes only where the sentence names the other dtype
                    pair = None if across else (x.case.variant, y.case.variant)
                    dts = (str(x.case.params.get("dtype")), str(y.case.params.get("dtype"))) if across else None
                    out.append(Candidate(Fact("ratio", x.stats.median / y.stats.median,
                                              f"{dev} {a.method} time {x.case.key} ÷ {y.case.key}", None, params,
                                              topic="speedup", method=a.method, ratio_of=pair),
                                         dtype_cue(str(b.case.params.get("dtype"))) if across else None,
                                         frozenset({x.case.variant, y.case.variant}), dtypes=dts))
        for f, compares in self._quantities():
            if f.params is not None and dict(f.params) == params:
                out.append(Candidate(f, compares=compares, asked=True))
        return out

    def _quantities_across(self) -> list[tuple[Fact, frozenset[str] | None, tuple[str, str]]]:
        """The quantities of two cases that differ in dtype: (fact, variants, (slow dtype, fast dtype))."""
        out = []
        for f, compares in self._quantities():
            if f.params is not None or f.kind != "ratio":
                continue
            q = next(q for q in self.spec.quantities if f.label.endswith(f" {q.id}"))
            cases = kind_of(q).cases(q)
            if len(cases) != 2:
                continue
            dts = [c.params.get("dtype") for c in cases]
            if any(not isinstance(d, str) for d in dts) or dts[0] == dts[1]:
                continue
            rest = [{k: v for k, v in c.params.items() if k != "dtype"} for c in cases]
            if rest[0] != rest[1]:
                continue
            out.append((dataclasses.replace(f, params=dict(cases[0].params)), compares,
                        (str(dts[0]), str(dts[1]))))
        return out

    def _quantities(self) -> list[tuple[Fact, frozenset[str] | None]]:
        """The reference's value of every quantity, said of its case (its variant, when it has one), and
        the variants it compares."""
        if self.ref is None:
            return []
        out = []
        for q in self.spec.quantities:
            got = self.ref.quantities.get(q.id)
            kind = kind_of(q)
            if got is None or isinstance(got.value, (str, bool)) or not kind.fact_kind:
                continue
            value = got.value
            cases = kind.cases(q)
            shared = [dict(c.params) for c in cases]
            params = shared[0] if shared and all(p == shared[0] for p in shared) else None
            variant = cases[0].variant if len(cases) == 1 else None
            compares = frozenset(c.variant for c in cases) if len(cases) > 1 else None
            topic = {"ratio": "speedup", "fraction": "share"}.get(kind.fact_kind)
            pair = (cases[0].variant, cases[1].variant) if (
                len(cases) == 2 and cases[0].params == cases[1].params and cases[0].variant != cases[1].variant
            ) else None
            out.append((Fact(kind.fact_kind, float(value), f"{self.ref.device.name} reference {q.id}", variant, params,
                             topic=topic, method=q.method, ratio_of=pair), compares))
        return out

    def ceiling_dtype(self, f: Fact) -> str | None:
        """The dtype a device ceiling is of (a matmul peak, a ridge point), None for one of every dtype (the copy
        roofline) or a fact that is no ceiling."""
        if f.topic != "ceiling":
            return None
        self._device()
        return self._ceiling_dtypes.get(f.label)

    def _device(self) -> tuple[Fact, ...]:
        if self._device_facts is None:
            self._device_facts = self._device_build()
        return self._device_facts

    def _device_build(self) -> tuple[Fact, ...]:
        ref = self.ref
        if ref is None:
            return ()
        dev = ref.device
        out = [Fact("bandwidth", dev.copy_gbps, f"{dev.name} copy roofline", topic="ceiling")]
        if dev.l2_bytes:
            out.append(Fact("bytes", dev.l2_bytes, f"{dev.name} L2 cache", topic="cache"))
        if dev.sm_count:
            out.append(Fact("sms", float(dev.sm_count), f"{dev.name} SM count", topic="device", given=True))
        for key, peak in sorted((getattr(dev, "peaks", None) or {}).items()):
            if key.startswith("matmul_tflops:"):
                out.append(Fact("flop_rate", peak, f"{dev.name} matmul peak ({key.split(':', 1)[1]})", topic="ceiling"))
                self._ceiling_dtypes[out[-1].label] = key.split(':', 1)[1]
        for key, peak in sorted((getattr(dev, "peaks", None) or {}).items()):
            if key.startswith("matmul_tflops:") and dev.copy_gbps:
                out.append(Fact("intensity", peak * 1e3 / dev.copy_gbps,
                                f"{dev.name} ridge point ({key.split(':', 1)[1]} peak ÷ copy roofline)",
                                topic="ceiling"))
                self._ceiling_dtypes[out[-1].label] = key.split(':', 1)[1]
        across = {f.label for f, _, _ in self._quantities_across()}
        out += [f for f, _ in self._quantities() if f.params is None and f.label not in across]
        return tuple(out)


ROOFLINE_PREDICTED = (r"\b(?:roofline|predict\w*|expect\w*|ideal\w*|theor\w*|model\w*|should|would|Vorhersag\w*|"
                      r"erwart\w*|predic\w*|prév\w*|previs\w*|attendu\w*|esperad\w*)")
#: the words that say a ratio is of an intensity over the ridge point, or of two intensities
RIDGE_CUE = r"\b(?:ridge|knee|balance point|Knick\w*|cresta|crête|umbral|cume)"
INTENSITY_CUE = r"\bintensit\w*|flops?\s*/\s*(?:byte|b)\b|flops? per byte"
#: the words that say a ratio is of two variants' FLOPs ("8192 times more FLOPs", "8192x more arithmetic")
FLOP_RATIO_CUE = (r"\b(?:more|fewer|less)\s+(?:FLOPs?|floating[- ]point|arithmetic|work|operations|Rechen\w*|"
                  r"opérations|operaciones|operações|operazioni)\b|\bFLOPs?[- ]ratio|\bratio of (?:the )?FLOPs?\b")


def dtype_cue(dtype: str) -> str:
    """The words that name one dtype (a regular expression; any dtype's name for one without spellings)."""
    pat = next((p for v, p in DTYPE_SPELLINGS if v == dtype), None)
    return r"(?<![\w.])(?:" + pat + r")(?![\w])" if pat else DTYPE_WORDS


def _typed_model_fact(f: Fact, works: Mapping[str, Work]) -> Fact:
    """A lesson's own fact with the typed fields it leaves out: bytes of a variant and the model's ratios are
    traffic (the work model knows no time); a ratio's two variants are the pair whose bytes it divides."""
    topic = f.topic
    if topic is None and f.kind in ("bytes", "ratio"):
        topic = "input" if f.given else "traffic"
    pair = f.ratio_of
    if pair is None and f.kind == "ratio" and f.variant is None:
        pair = next(((a, b) for a in works for b in works if a != b and works[b].bytes_moved
                     and abs(works[a].bytes_moved / works[b].bytes_moved - f.value) <= 1e-9 * max(1.0, f.value)), None)
    return dataclasses.replace(f, topic=topic, ratio_of=pair)


_BOOKS: dict[tuple[object, ...], FactBook] = {}


def fact_book(spec: LessonSpec, ex: ExplanationSpec, ref: ReferenceRun | None,
              others: Mapping[str, ReferenceRun] | None = None) -> FactBook:
    """The book of one explanation cell against one reference (and the other lessons' references of its
    device, ``others``), reused while they live."""
    others = others or {}
    key = (id(spec), ex.grade_id, id(ref), tuple(sorted((k, id(v)) for k, v in others.items())))
    book = _BOOKS.get(key)
    if book is None or book.spec is not spec or book.ref is not ref:
        if len(_BOOKS) > 64:
            _BOOKS.clear()
        book = _BOOKS[key] = FactBook(spec, dict(ex.case), ref, others=dict(others), gives=frozenset(ex.gives))
    return book


_COURSE_SPECS: dict[tuple[str, str], dict[str, LessonSpec]] = {}


def course_specs(spec: LessonSpec) -> dict[str, LessonSpec]:
    """The specs of the course's other lessons (the lesson folders beside this one's), by lesson id, read once per
    course folder; a lesson whose spec fails to load is left out (its own lint reports it)."""
    if spec.folder is None:
        return {}
    key = (str(spec.folder.resolve().parent), spec.id)
    if key not in _COURSE_SPECS:
        out: dict[str, LessonSpec] = {}
        for path in sorted(spec.folder.resolve().parent.glob(f"*/{SPEC_FILENAME}")):
            try:
                other = load_spec(path)
            except Exception:
                continue
            if other.id != spec.id:
                out[other.id] = other
        _COURSE_SPECS[key] = out
    return _COURSE_SPECS[key]


_COURSE_LAUNCHES: dict[tuple[str, str], dict[str, dict[float, str]]] = {}


def other_lessons_launches(spec: LessonSpec) -> dict[str, dict[float, str]]:
    """The launch counts the work models of the course's other lessons (the lesson folders beside this one's)
    give each variant at their explanation cells' cases: variant -> {count: the lesson's id}. "Eager launches 5
    kernels" in a lesson whose eager launches 4 is the count of another lesson's eager. Read once per course
    folder; a lesson whose spec or model fails is left out (its own lint reports it)."""
    if spec.folder is None:
        return {}
    key = (str(spec.folder.resolve().parent), spec.id)
    if key in _COURSE_LAUNCHES:
        return _COURSE_LAUNCHES[key]
    out: dict[str, dict[float, str]] = {}
    for other in course_specs(spec).values():
        try:
            for ex in other.explanations:
                for variant, work in _model_at(other, dict(ex.case))[1].items():
                    if work.launches:
                        out.setdefault(variant, {}).setdefault(float(work.launches), other.id)
        except Exception:
            continue
    _COURSE_LAUNCHES[key] = out
    return out
