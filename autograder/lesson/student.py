"""``L.measure_student(fn)``: the student's own kernel checked and timed on their device, next to the lesson's
first variant, with the grader's timing code (:func:`autograder.kernels.measure_function`); every quantity
it shows is sealed in the ledger as ``L.measure`` seals its own."""

from __future__ import annotations

import secrets
import sys
from typing import TYPE_CHECKING, Any

import torch

from ..grading.student_kernel import kernel_task, student_measurements
from ..kernels import measure_function
from ..records import Case, render_params
from ..workload import load_workload
from ._output import show_ledger, show_text
from .tables import kernel_table

if TYPE_CHECKING:
    from .student_mode import StudentMode

__all__ = ["check_against_reference", "measure_student"]


def check_against_reference(mode: StudentMode, fn: Any) -> str | None:
    """None when ``fn`` matches the workload's reference on every check case (fresh inputs), else why not."""
    spec = mode.spec
    sv = spec.student_variant
    assert sv is not None and spec.folder is not None
    load_workload(spec.folder, spec.workload_file, spec.id)
    mod = sys.modules[type(spec.workload).__module__]
    reference, make_inputs = getattr(mod, sv.reference), getattr(mod, sv.make_inputs)
    device = "cuda" if mode.kind == "cuda" else "cpu"
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


def measure_student(mode: StudentMode, fn: Any) -> None:
    """Check ``fn`` on the lesson's check cases, time it at the timed cases and show it next to the lesson's
    first variant there; refuse (one line) while a quantity it would reveal is not predicted."""
    spec = mode.spec
    sv = spec.student_variant
    assert sv is not None
    if not callable(fn):
        show_text(f"✘ L.measure_student takes your function: L.measure_student({sv.entry}), not {type(fn).__name__}.")
        return
    kind = mode.kind
    here = spec.for_device(kind)
    assert here.student_variant is not None
    base = spec.workload.variants[0]
    cases = [dict(c) for c in here.student_variant.cases]
    shown = [Case(variant=v, params=c) for c in cases for v in (sv.variant, base)]
    if not mode.may_reveal(shown):
        return
    problem = check_against_reference(mode, fn)
    if problem is not None:
        show_text(f"✘ not measured: {problem}. Fix {sv.entry} and run its cell, then this one again.")
        return
    task = kernel_task(spec, kind, "", secrets.randbits(31))
    try:
        results = measure_function(fn, task)
    except Exception as exc:  # the student's code runs inside: one line, not a traceback
        show_text(f"✘ your {sv.entry} could not be timed: {type(exc).__name__}: {str(exc)[:200]}")
        return
    own = student_measurements(spec, results, kind)
    mode.measurements["student:" + repr(cases)] = own
    lines = []
    for c in cases:
        theirs = mode.measure_point(c, [base])
        lines += kernel_table(spec, kind, mode.device_name, mode.fingerprint().copy_gbps, c, own, theirs, base)
    lines += mode.record_quantities(shown)
    show_ledger(spec.id, mode.chain, "\n".join(lines), mode.shown(shown))
