"""``L.measure_student(fn)``: the student's own kernel checked and timed on their device, next to the lesson's
first variant, with the grader's timing code (:func:`autograder.kernels.measure_function`); every quantity
it shows is sealed in the ledger as :meth:`Lesson.measure` seals its own."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from ..records import Case, Measurement, render_params
from ._output import show_ledger, show_text

if TYPE_CHECKING:
    from .session import Lesson

__all__ = ["check_against_reference", "measure_student"]


def check_against_reference(lesson: Lesson, fn: Any) -> str | None:
    """None when ``fn`` matches the workload's reference on every check case (fresh inputs), else why not."""
    import torch

    from ..workload import load_workload

    spec = lesson.spec
    sv = spec.student_variant
    assert sv is not None and spec.folder is not None
    load_workload(spec.folder, spec.workload_file, spec.id)
    import sys

    mod = sys.modules[type(spec.workload).__module__]
    reference, make_inputs = getattr(mod, sv.reference), getattr(mod, sv.make_inputs)
    device = "cuda" if lesson._kind == "cuda" else "cpu"
    for case in sv.check_cases:
        inputs = make_inputs(dict(case), secrets.randbits(31), device)
        where = render_params({k: v for k, v in case.items()}, short=False, sep=", ")
        try:
            got = fn(*[x.clone() for x in inputs])
        except Exception as exc:  # the student's code: any error is a line, not a traceback
            return f"calling {sv.entry} at {where} raised {type(exc).__name__}: {str(exc)[:200]}"
        want = reference(*inputs)
        if type(got) is not torch.Tensor:
            return f"{sv.entry} at {where} returned a {type(got).__name__}, not a torch.Tensor"
        if got.shape != want.shape or got.dtype != want.dtype or got.device != want.device:
            return (
                f"{sv.entry} at {where} returned shape {tuple(got.shape)}, {got.dtype} on {got.device}; "
                f"expected {tuple(want.shape)}, {want.dtype} on {want.device}"
            )
        rtol, atol = sv.tolerances[str(case["dtype"])]
        if not torch.allclose(got.float(), want.float(), rtol=rtol, atol=atol):
            err = (got.float() - want.float()).abs().max().item()
            return f"{sv.entry} at {where} differs from the reference by up to {err:.3g} (rtol {rtol:g}, atol {atol:g})"
    return None


def measure_student(lesson: Lesson, fn: Any) -> None:
    """Check ``fn`` on the lesson's check cases, time it at the timed cases and show it next to the lesson's
    first variant there; refuse (one line) while a quantity it would reveal is not predicted."""
    from ..grading.student_kernel import kernel_task, student_measurements

    spec = lesson.spec
    sv = spec.student_variant
    assert sv is not None
    if not callable(fn):
        show_text(f"✘ L.measure_student takes your function: L.measure_student({sv.entry}), not {type(fn).__name__}.")
        return
    kind = lesson._kind
    here = spec.for_device(kind)
    assert here.student_variant is not None
    base = spec.workload.variants[0]
    cases = [dict(c) for c in here.student_variant.cases]
    shown = [Case(variant=v, params=c) for c in cases for v in (sv.variant, base)]
    if not lesson._may_reveal(shown):
        return
    problem = check_against_reference(lesson, fn)
    if problem is not None:
        show_text(f"✘ not measured: {problem}. Fix {sv.entry} and run its cell, then this one again.")
        return
    from ..kernels import measure_function

    task = kernel_task(spec, kind, "", secrets.randbits(31))
    try:
        results = measure_function(fn, task)
    except Exception as exc:  # the student's code runs inside: one line, not a traceback
        show_text(f"✘ your {sv.entry} could not be timed: {type(exc).__name__}: {str(exc)[:200]}")
        return
    own = student_measurements(spec, results, kind)
    lesson._measurements["student:" + repr(cases)] = own
    lines = []
    for c in cases:
        theirs = lesson._measure_point(c, [base])
        lines += _table(lesson, c, own, theirs, base)
    lines += lesson._record_quantities(shown)
    show_ledger(spec.id, lesson.chain, "\n".join(lines), lesson._shown(shown))


def _table(
    lesson: Lesson, params: dict[str, Any], own: list[Measurement], theirs: list[Measurement], base: str
) -> list[str]:
    spec = lesson.spec
    sv = spec.student_variant
    assert sv is not None
    wl = spec.workload
    method = "gpu_time"
    mine = next((m for m in own if m.method == method and m.case.params == params), None)
    other = next((m for m in theirs if m.method == method and m.case.variant == base), None)
    lines = [f"{wl.describe(params)} · {lesson._device_name}"]
    asked = [dict(c) for c in sv.cases]
    if params not in asked:
        lines.append(
            f"(on a {lesson._kind.upper()} this lesson measures {render_params(params, short=False, sep=', ')} "
            f"instead of {'; '.join(render_params(c, short=False, sep=', ') for c in asked)}: see lesson.toml)"
        )
    if mine is None or other is None:
        return [*lines, f"✘ no {method} timing of your {sv.entry} at this case"]
    roof = lesson._fingerprint().copy_gbps
    speed = other.median_ms / mine.median_ms
    lines.append(f"{'':<10} {'your ' + sv.entry + ' ms':>20} {base + ' ms':>12} {base + '/yours':>12}")
    lines.append(f"{method:<10} {mine.median_ms:>20.4f} {other.median_ms:>12.4f} {speed:>11.3g}×")
    w_mine, w_base = wl.work(sv.variant, params), wl.work(base, params)
    lines.append(
        f"work model: yours {w_mine.launches} launch, {_mb(w_mine.bytes_moved)}; {base} "
        f"{w_base.launches} launches, {_mb(w_base.bytes_moved)}"
    )
    lines.append(
        f"achieved: yours {mine.achieved_gbps:,.3g} GB/s = {100 * mine.achieved_gbps / roof:.3g}% of this "
        f"device's copy roofline ({roof:,.0f} GB/s); {base} {other.achieved_gbps:,.3g} GB/s on its own bytes"
        + (f"; kernels counted: yours {mine.launches}" if mine.launches is not None else "")
    )
    return lines


def _mb(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:,.1f} MB" if n_bytes >= 1e6 else f"{n_bytes / 1e3:,.1f} kB"
