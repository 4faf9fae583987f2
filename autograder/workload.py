"""The plug-in contract between a lesson folder and the framework.

A lesson folder holds ``lesson.toml``, its notebook and a small ``workload.py`` that defines the variants
to compare, how to build a case's inputs and run each variant, and the *work model* of every variant at
every case: bytes read and written, FLOPs, kernel launches and the named facts an explanation may quote.
The framework measures, derives quantities, grades and pre-reads explanations through this interface only,
so it never knows a particular lesson.

``workload.py`` defines a module-level ``workload`` (an instance of a :class:`Workload` subclass).  Import
torch inside :meth:`Workload.inputs`/:meth:`Workload.build`, not at module level: graders load the work
model of every lesson and should not pay for torch.
"""

from __future__ import annotations

import abc
import importlib.util
import itertools
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from .errors import LessonSpecError
from .mentions import Mention, dtype_mentions, power_of_two_mentions
from .records import ParamValue, render_params

__all__ = [
    "Fact",
    "Mention",
    "Work",
    "Workload",
    "compile_fresh",
    "fresh_function",
    "grid",
    "import_file",
    "load_workload",
]

#: what may not follow a variant's own name for it to name the variant (see names_of_variants)
_NOT_A_CEILING = r"(?![ -]?(?:roofline|peak|ceiling|limit)\b)"


@dataclass(frozen=True)
class Work:
    """What one call of a variant costs by the lesson's model (never measured: derived from the case)."""

    bytes_read: int
    bytes_written: int
    launches: int
    flops: int = 0
    working_set: int | None = None  # bytes alive at once; default: read + written

    @property
    def bytes_moved(self) -> int:
        return self.bytes_read + self.bytes_written

    @property
    def footprint(self) -> int:
        return self.working_set if self.working_set is not None else self.bytes_moved

    @property
    def intensity(self) -> float:
        """FLOPs per byte moved: where the case sits on the roofline."""
        return self.flops / self.bytes_moved if self.bytes_moved else 0.0


@dataclass(frozen=True)
class Fact:
    """A number an explanation may quote, in the kind's base unit, and how to say it.

    Kinds: ``bytes``, ``launches``, ``ratio``, ``bandwidth`` (GB/s), ``time`` (ms), ``flops``,
    ``flop_rate`` (TFLOP/s), ``intensity`` (FLOP/byte), ``fraction``, ``count`` (of a thing the workload's
    :attr:`Workload.counted` names, its key in ``topic``: "64 tiles", "one block").  ``variant`` and
    ``params`` say what the number is about, so a number quoted for the wrong variant does not count.
    """

    kind: str
    value: float
    label: str
    variant: str | None = None
    params: Mapping[str, ParamValue] | None = None
    #: a number the problem states (an input's size): recognised, but it explains nothing on its own
    given: bool = False
    #: what it measures, where the kind alone does not say: ``traffic`` (bytes moved, or their ratio),
    #: ``speedup`` (a ratio of two measured times), ``ceiling`` (a device's roofline or peak), ``cache``,
    #: ``share`` (a fraction of a ceiling), ``input`` (a given size); None: the kind says it
    topic: str | None = None
    #: the timing method of a measured figure (``gpu_time``, ``wall_per_call``); None: not measured
    method: str | None = None
    #: a figure of one kernel of a variant that launches several (not of the whole call)
    per_kernel: bool = False
    #: a ratio of two variants' figures: (numerator, denominator) (``eager ÷ compiled``: eager is slower)
    ratio_of: tuple[str, str] | None = None


class Workload(abc.ABC):
    """Base class of a lesson's workload. Subclasses set :attr:`variants` and :attr:`params` and
    implement :meth:`inputs`, :meth:`build` and :meth:`work` (abstract: a workload that leaves one out
    cannot be instantiated, so a lesson that ships one fails when it loads)."""

    #: the variants compared, baseline first (every speedup is first ÷ other unless a quantity says so)
    variants: ClassVar[tuple[str, ...]] = ()
    #: parameter names of a case, in the order ``L.measure(...)`` takes them positionally
    params: ClassVar[tuple[str, ...]] = ()
    #: the parameter a size sweep varies (``L.sweep``, plots, "the smallest size of the sweep")
    size_param: ClassVar[str] = "log2_n"
    #: relative and absolute tolerance of the correctness check of every variant against the first
    check_tolerance: ClassVar[tuple[float, float]] = (1e-2, 1e-2)
    #: how explanations name each variant besides its own name: regular expressions, matched as whole
    #: words without regard to case (e.g. ``{"compiled": ("fused", "torch\\.compile")}``)
    variant_words: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: things the work model counts besides kernels, by key: the words that name one (a regular expression,
    #: matched as a whole word after the number, case aside), e.g. ``{"tiles": r"tiles?|Kacheln?|tuiles?"}``.
    #: "64 output tiles" in an explanation reads as a count of tiles, judged exactly against the model's
    #: ``count`` facts whose ``topic`` is that key (see :meth:`facts`)
    counted: ClassVar[Mapping[str, str]] = {}

    @abc.abstractmethod
    def inputs(self, params: Mapping[str, ParamValue], device: Any) -> tuple[Any, ...]:
        """Fresh random inputs of one case on ``device`` (never zeros: they hide unwritten outputs)."""

    @abc.abstractmethod
    def build(self, variant: str, params: Mapping[str, ParamValue]) -> Callable[..., Any]:
        """A callable running ``variant`` on the inputs; built fresh per case (see :func:`compile_fresh`)."""

    @abc.abstractmethod
    def work(self, variant: str, params: Mapping[str, ParamValue]) -> Work:
        """The work model of one call of ``variant`` at ``params``."""

    def verify(
        self, variant: str, params: Mapping[str, ParamValue], inputs: tuple[Any, ...], out: Any, first: Any
    ) -> str | None:
        """Why ``out`` (of ``variant``) is wrong, or None.  The default compares with the first variant's
        output (``first``; None for the first variant itself) within :attr:`check_tolerance`; a lesson
        whose variants compute different things overrides this."""
        if first is None:
            return None
        rtol, atol = self.check_tolerance
        return None if _close(out, first, rtol, atol) else f"{variant} disagrees with {self.variants[0]}"

    def describe(self, params: Mapping[str, ParamValue]) -> str:
        """One line naming the case, shown above a measurement."""
        return render_params(dict(params), short=False, sep=" · ")

    def prepare(self, variant: str, params: Mapping[str, ParamValue]) -> Callable[[], Any] | None:
        """A context to enter around building and timing ``variant`` (e.g. a backend flag); None: none."""
        return None

    def facts(self, params: Mapping[str, ParamValue]) -> list[Fact]:
        """What a correct explanation of this case can cite. The default derives them from :meth:`work`."""
        out: list[Fact] = []
        works = {v: self.work(v, params) for v in self.variants}
        where = render_params(dict(params), short=False, sep=" ")
        for v, w in works.items():
            out.append(Fact("bytes", w.bytes_moved, f"{v} bytes moved for {where}", v, params))
            out.append(Fact("launches", w.launches, f"{v} kernel launches", v, params))
            if w.flops:
                out.append(Fact("flops", w.flops, f"{v} FLOPs for {where}", v, params))
                out.append(Fact("intensity", w.intensity, f"{v} arithmetic intensity (FLOP/byte)", v, params))
        base = self.variants[0] if self.variants else None
        for v, w in works.items():
            if base is not None and v != base and w.bytes_moved:
                ratio = works[base].bytes_moved / w.bytes_moved
                out.append(Fact("ratio", ratio, f"traffic ratio {base}/{v}", None, params, topic="traffic",
                                ratio_of=(base, v)))
        return out

    def input_bytes(self, params: Mapping[str, ParamValue]) -> list[tuple[str, int]]:
        """The inputs of a case as ``(name, bytes)``: sizes an explanation may restate. They are recognised
        but earn no credit on their own (quoting the problem explains nothing). Default: none."""
        return []

    def mentions(self, text: str) -> list[Mention]:
        """Where ``text`` names parameters of a case, so a number in that sentence is judged at that case.
        The default reads dtype names (for a ``dtype`` parameter) and ``2^k`` (for a ``log2_*`` size
        parameter); a lesson with other spellings ("4096 x 4096", "n = 4096") extends it."""
        out = dtype_mentions(text) if "dtype" in self.params else []
        if self.size_param.startswith("log2_"):
            out += power_of_two_mentions(text, self.size_param)
        return out

    # ------------------------------------------------------------------ helpers the framework uses
    def names_of_variants(self) -> dict[str, tuple[str, ...]]:
        """Every spelling of every variant: its name (``_`` read as a space, dot or hyphen) and
        :attr:`variant_words`."""
        out = {}
        for v in self.variants:
            # a variant's name right before a ceiling's noun names the device's ceiling, not the variant:
            # "39 % of the copy roofline" with a variant named copy
            own = re.escape(v).replace("_", "[ ._-]") + _NOT_A_CEILING
            out[v] = (own, *self.variant_words.get(v, ()))
        return out

    def case_params(self, args: Sequence[ParamValue], kwargs: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
        """``L.measure("float16", 24)`` or ``L.measure(dtype="float16", log2_n=24)`` as a parameter dict."""
        if len(args) > len(self.params):
            raise LessonSpecError(f"takes at most {len(self.params)} parameters ({', '.join(self.params)})")
        out = dict(zip(self.params, args, strict=False))
        for k, v in kwargs.items():
            if k not in self.params:
                raise LessonSpecError(f"unknown parameter {k!r}; this lesson's are {', '.join(self.params)}")
            if k in out:
                raise LessonSpecError(f"parameter {k!r} given twice")
            out[k] = v
        return out


def _close(got: Any, want: Any, rtol: float, atol: float) -> bool:
    # start-up speed: torch only when a workload checks or compiles (lesson authors import this module)
    import torch

    if isinstance(want, (tuple, list)):
        return len(got) == len(want) and all(_close(g, w, rtol, atol) for g, w in zip(got, want, strict=True))
    if isinstance(want, torch.Tensor):
        return bool(torch.allclose(got.float(), want.float(), rtol=rtol, atol=atol))
    return bool(got == want)


def grid(axes: Mapping[str, Sequence[ParamValue]], zipped: Sequence[str] = ()) -> list[dict[str, ParamValue]]:
    """Every combination of the axes' values (the ``zipped`` axes vary together): a sweep table of
    ``lesson.toml`` as parameter dicts."""
    together = [n for n in axes if n in zipped]
    if together and len({len(axes[n]) for n in together}) != 1:
        raise LessonSpecError(f"zipped sweep axes {together} must have lists of the same length")
    crossed = [n for n in axes if n not in zipped]
    paired = list(zip(*(axes[n] for n in together), strict=True)) if together else [()]
    out = []
    for combo in itertools.product(*(axes[n] for n in crossed)):
        for pair in paired:
            out.append({**dict(zip(crossed, combo, strict=True)), **dict(zip(together, pair, strict=True))})
    return out


_counter = itertools.count()


def fresh_function(source: str, name: str, namespace: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """A new function object *with a new code object* from ``source`` (which defines ``name``).

    dynamo keys its cache by code object: one function compiled at several sizes or modes shares a cache
    entry, goes dynamic, and once ran a fused kernel slower than eager.  A code object per case avoids it.
    """
    unique = f"{name}_{next(_counter)}"
    ns: dict[str, Any] = dict(namespace or {})
    exec(compile(source.replace(f"def {name}(", f"def {unique}(", 1), f"<case {unique}>", "exec"), ns)
    fn: Callable[..., Any] = ns[unique]
    return fn


def compile_fresh(source: str, name: str, namespace: Mapping[str, Any] | None = None, **options: Any) -> Any:
    """``torch.compile`` of a fresh function with static shapes, after clearing the compiler's caches."""
    # start-up speed: torch only when a workload checks or compiles (lesson authors import this module)
    import torch

    torch.compiler.reset()
    options.setdefault("dynamic", False)
    return torch.compile(fresh_function(source, name, namespace), **options)


_IMPORTING = threading.Lock()


def import_file(path: Path, prefix: str) -> ModuleType:
    """The module of the file at ``path``, imported once per process under a name of its own (``prefix`` and a
    hash of the path). Thread-safe: a pool grading several submissions at once never sees a module another
    thread is still executing. A module whose import raised is forgotten (the next call tries again)."""
    name = f"{prefix}{abs(hash(str(path.resolve())))}"
    with _IMPORTING:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[name]
            raise
        return mod


def load_workload(folder: str | Path, filename: str = "workload.py", lesson_id: str = "") -> Workload:
    """Import ``folder/filename`` under a name of its own and return its module-level ``workload``."""
    path = Path(folder) / filename
    if not path.is_file():
        raise LessonSpecError(f"no {filename} at {path} (a lesson folder holds lesson.toml and its workload module)")
    try:
        mod = import_file(path, "_lesson_workload_")
    except Exception as exc:
        raise LessonSpecError(f"{path}: importing the workload failed: {type(exc).__name__}: {exc}") from exc
    wl = getattr(mod, "workload", None)
    if not isinstance(wl, Workload):
        raise LessonSpecError(f"{path} must define `workload = <a Workload subclass>()` (lesson {lesson_id or '?'})")
    if not wl.variants or not wl.params:
        raise LessonSpecError(f"{path}: the workload must name its variants and params")
    return wl
