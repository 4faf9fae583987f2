"""Grading a kernel the student wrote (a lesson's ``[student_variant]``): run it, gate on correctness, score
the predictions about it against the grader's measurement of that very kernel, and give its own credits.

Both grading paths reach this through :func:`autograder.grading.grade.grade_submission`, so the fast batch
and ``nbgrader autograde`` give the same grades: the kernel is run once per (lesson, device, source) and its
result kept beside the course's references (:func:`cached_run`), so grading it again — by the other path,
or after a crash of the batch — reuses that one measurement instead of timing it anew.

The running itself (a child process, the sandbox, the anti-gaming checks, the verdicts) is
:mod:`autograder.kernels`; nothing here imports the student's code.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import multiprocessing
import multiprocessing.util
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files.atomic import atomic_write
from ..kinds import Measurements, kind_of
from ..records import Case, Measurement, PredictionGrade, QuantityValue, ReferenceRun
from ..spec import LessonSpec, StudentVariant
from .policy import GradingPolicy
from .reader import SubmissionReading, answer_sources
from .references import ReferenceSet

if TYPE_CHECKING:  # autograder.kernels imports torch (its in-process timer): imported where a kernel is run
    from ..kernels import KernelResult, KernelTask, WarmStart

__all__ = [
    "BLANK_REASON",
    "answer_sources",
    "cached_run",
    "close_warm_start",
    "grade_student_kernel",
    "kernel_results",
    "kernel_task",
    "result_key",
    "results_folder",
    "set_pool_size",
    "student_measurements",
    "warm_start",
]

BLANK_REASON = "the kernel cell is as released: no {entry} was written, so nothing was run"
#: where a course keeps the grader's results of students' kernels (beside references/)
RESULTS_FOLDER = ".kernel_results"


def kernel_results(refs: ReferenceSet) -> Path:
    """Where the course keeps the grader's results of students' kernels: beside its references."""
    return Path(refs.store.root).parent / RESULTS_FOLDER


def kernel_task(spec: LessonSpec, device: str, source: str, seed: int) -> KernelTask:
    """What :mod:`autograder.kernels` runs for one submission of ``spec``'s student variant on ``device``
    ("cuda" or "cpu"; the timed cases as that kind of device measures them, lesson.toml ``[devices]``)."""
    from ..kernels import KernelTask

    sv = _variant(spec.for_device("cuda" if device == "cuda" else "cpu"))
    assert spec.folder is not None
    return KernelTask(
        source=source,
        entry=sv.entry,
        workload=(spec.folder / spec.workload_file).resolve(),
        reference=sv.reference,
        make_inputs=sv.make_inputs,
        cases=tuple(dict(c) for c in sv.cases),
        check_cases=tuple(dict(c) for c in sv.check_cases),
        seed=seed,
        tolerances={k: (float(v[0]), float(v[1])) for k, v in sv.tolerances.items()},
        device=device,
    )


def _variant(spec: LessonSpec) -> StudentVariant:
    if spec.student_variant is None:
        raise ValueError(f"lesson {spec.id} has no [student_variant]")
    return spec.student_variant


def student_measurements(spec: LessonSpec, cases: Iterable[Any], device_kind: str) -> list[Measurement]:
    """The kernel's timings as measurements of the student variant: its case and the work model's bytes
    (a fused kernel's ``2·N·s`` whatever the student's code really moves) so that a share of the roofline
    and a speedup are derived like any variant's. On a CPU the one timing stands for both methods (a CPU
    has no separate dispatch: the lesson's CPU measurements do the same)."""
    sv = _variant(spec)
    out: list[Measurement] = []
    for r in cases:
        m = getattr(r, "measurement", None)
        if m is None:
            continue
        params = dict(r.case)
        w = spec.workload.work(sv.variant, params)
        methods = {m.method} | ({"gpu_time", "wall_per_call"} if device_kind == "cpu" else set())
        for method in sorted(methods):
            out.append(
                m.model_copy(
                    update={
                        "case": Case(variant=sv.variant, params=params),
                        "method": method,
                        "bytes_moved": w.bytes_moved,
                        "flops": w.flops,
                    }
                )
            )
    return out


def student_values(
    spec: LessonSpec, own: list[Measurement], ref: ReferenceRun, device: str
) -> dict[str, QuantityValue]:
    """The value of every quantity about the student's kernel, from its measurements and the reference's
    (eager's time, the copy roofline); a quantity whose measurement is missing has none."""
    index = Measurements([*ref.measurements, *own])
    out: dict[str, QuantityValue] = {}
    for q in spec.student_quantities:
        v = kind_of(q).derive(q, index, ref.device, device)
        if v is not None:
            out[q.id] = v
    return out


def result_key(task: KernelTask) -> str:
    """What decides a kernel's result: the task but its seed and limits, and the workload module's text."""
    fields = task.model_dump(mode="json", exclude={"seed", "workload", "limits"})
    fields["workload"] = Path(task.workload).read_text(encoding="utf-8")
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:32]


def cached_run(
    task: KernelTask, folder: Path | None, run: Callable[[KernelTask], KernelResult]
) -> KernelResult:
    """``run(task)``, kept in ``folder`` under :func:`result_key`: the same submission graded again (by
    the other path, or after the batch was stopped) gets the same measurement and so the same grade. A
    sandbox failure or a timeout is not kept: the next run tries again."""
    from ..kernels import KernelResult

    path = folder / f"{result_key(task)}.json" if folder is not None else None
    if path is not None and path.is_file():
        try:
            return KernelResult.model_validate_json(path.read_text(encoding="utf-8"))
        except ValueError:
            pass  # a torn or older file: measure again
    result = run(task)
    if path is not None and result.verdict not in ("sandbox_failed", "timeout"):
        try:
            atomic_write(path, result.model_dump_json(), sync=False)
        except OSError:
            pass  # a read-only course: the grade stands, the next run measures again
    return result


def results_folder(results: Path, spec: LessonSpec, device_key: str) -> Path:
    """Where the results of ``spec``'s kernels measured on ``device_key`` are kept."""
    return results / spec.id / device_key


_WARM: dict[str, Any] = {}  # this process's kernels.WarmStart (one per grading process), made on first use


def warm_start() -> WarmStart:
    """This grading process's :class:`autograder.kernels.WarmStart`: each student's kernel runs in a fresh
    child while the next student's child is started ahead. The one left waiting when the process ends is
    killed (at exit, and when a multiprocessing worker of the batch finishes; if this process is killed,
    bubblewrap's --die-with-parent or the closed pipe ends it)."""
    from ..kernels import WarmStart

    warm: WarmStart | None = _WARM.get("runner")
    if warm is None or _WARM.get("pid") != os.getpid():
        # a worker of the batch's process pool keeps one child ahead: the pool's workers already start side
        # by side, and one per four cores in each of them would oversubscribe the machine; the one worker of
        # a Slurm task (pool_size 1) is alone on its node's cores, as a grading process is
        alone = _WARM.get("pool_size", 0) == 1 or multiprocessing.parent_process() is None
        warm = WarmStart(ahead=None if alone else 1)
        _WARM.update(runner=warm, pid=os.getpid())
        atexit.register(warm.close)
        multiprocessing.util.Finalize(warm, warm.close, exitpriority=10)  # a worker process's exit skips atexit
    return warm


def set_pool_size(workers: int) -> None:
    """Say how many grading workers run side by side on this machine (from a worker of the batch's pool,
    before its first kernel): one alone keeps as many children ahead as the cores allow, each of several one."""
    _WARM["pool_size"] = workers


def close_warm_start() -> None:
    """Kill the children started ahead by :func:`warm_start`, if any: for a caller done with grading kernels
    that goes on with other work (a process's exit does it anyway)."""
    warm = _WARM.get("runner")
    if warm is not None and _WARM.get("pid") == os.getpid():
        warm.close()


def _run_submission(task: KernelTask) -> KernelResult:
    return warm_start().run(task)


def _blank(sv: StudentVariant) -> KernelResult:
    from ..kernels import KernelResult

    return KernelResult(
        verdict="no_entry", family="blank", reason=BLANK_REASON.format(entry=sv.entry), cases=(), seconds=0.0
    )


def run_for(
    reading: SubmissionReading, spec: LessonSpec, ref: ReferenceRun, policy: GradingPolicy, results: Path | None
) -> KernelResult:
    """The grader's result of this submission's kernel on the reference's kind of device, within the
    course's deadline for one submission (the kernel's own verdict, ``timeout``, comes first)."""
    sv = _variant(spec)
    source = reading.answers.get(sv.answer_cell, "")
    if not source.strip() or sv.answer_cell in reading.unanswered_cells:
        return _blank(sv)
    device = "cuda" if ref.device.kind == "cuda" else "cpu"
    task = kernel_task(spec, device, source, secrets.randbits(31))
    deadline = policy.submission_deadline_s
    if deadline > 0:
        from ..kernels import Limits

        task = task.model_copy(update={"limits": Limits(wall_s=min(Limits().wall_s, 0.75 * deadline))})
    folder = results_folder(results, spec, ref.device.key) if results is not None else None
    return cached_run(task, folder, _run_submission)


#: how a prediction is graded: (quantity id, reading, spec, reference, note, policy) -> its grade
Regrade = Callable[[str, SubmissionReading, LessonSpec, ReferenceRun, str, GradingPolicy], PredictionGrade]


def grade_student_kernel(
    reading: SubmissionReading,
    spec: LessonSpec,
    ref: ReferenceRun,
    note: str,
    policy: GradingPolicy,
    predictions: list[PredictionGrade],
    results: Path | None,
    regrade: Regrade,
) -> list[PredictionGrade]:
    """``predictions`` with those about the student's kernel regraded (``regrade``: the one grading
    function, :func:`autograder.grading.grade.grade_quantity`) against the grader's measurement of it (or,
    where it is not correct, against nothing, each saying why), then its correctness and performance
    credits (grade ids from ``[student_variant]``)."""
    sv = _variant(spec)
    result = run_for(reading, spec, ref, policy, results)
    ok = result.verdict == "ok"
    verdict = result.verdict + (f"/{result.family}" if result.family else "")
    if result.verdict == "sandbox_failed":  # the grader's failure, not the student's: say so, keep nothing
        result = result.model_copy(update={"reason": result.reason.rstrip(".") + (
            " — a failure of the grading machine, not of your code: your instructor regrades it")})
    own = student_measurements(spec, result.cases, ref.device.kind) if ok else []
    values = student_values(spec, own, ref, ref.device.key) if ok else {}
    about = {q.id for q in spec.student_quantities}
    ours = ref.model_copy(update={"quantities": {**ref.quantities, **values}})
    out: list[PredictionGrade] = []
    for g in predictions:
        if g.quantity not in about:
            out.append(g)
            continue
        if ok:
            regraded = regrade(g.quantity, reading, spec, ours, note, policy)
            out.append(_measured_words(regraded, ref.device.name))
            continue
        out.append(
            g.model_copy(
                update={
                    "reference": None, "ratio": None, "fraction": 0.0, "points": 0.0,
                    "flags": [*g.flags, f"kernel_{result.verdict}"],
                    "reason": f"your kernel was not measured ({verdict}: {result.reason.rstrip('.')}), so this "
                    "prediction about it is scored against nothing: no credit.",
                }
            )
        )
    if sv.correctness is not None:
        out.append(_correctness(sv, result, verdict, ref.device.name))
    if sv.performance is not None:
        out.append(_performance(spec, sv, result, verdict, own, ref))
    return out


def _measured_words(g: PredictionGrade, device_name: str) -> PredictionGrade:
    """A prediction about the student's kernel says whose measurement it was scored against."""
    said = f"the {device_name} reference measured"
    if said not in g.reason:
        return g
    return g.model_copy(
        update={"reason": g.reason.replace(said, f"the grader measured your kernel on the {device_name} at", 1)}
    )


def _correctness(sv: StudentVariant, result: KernelResult, verdict: str, device_name: str) -> PredictionGrade:
    assert sv.correctness is not None
    ok = result.verdict == "ok"
    checked = len(sv.check_cases)
    reason = (
        f"your {sv.entry} matched the reference on {checked} hidden check case(s) and every timed call, "
        f"on the {device_name} → full credit."
        if ok
        else f"your {sv.entry} did not pass ({verdict}): {result.reason.rstrip('.')} → no credit."
    )
    return PredictionGrade(
        quantity="kernel_correctness",
        grade_id=sv.correctness.grade_id,
        predicted=None,
        reference=result.verdict,
        fraction=1.0 if ok else 0.0,
        points=sv.correctness.points if ok else 0.0,
        max_points=sv.correctness.points,
        reason=reason,
        device=device_name,
        flags=[] if ok else [f"kernel_{result.verdict}"],
    )


def _performance(
    spec: LessonSpec, sv: StudentVariant, result: KernelResult, verdict: str, own: list[Measurement],
    ref: ReferenceRun,
) -> PredictionGrade:
    q = sv.performance
    assert q is not None and sv.performance_grade_id is not None
    kind = kind_of(q)
    base: dict[str, Any] = dict(
        quantity=q.id, grade_id=sv.performance_grade_id, predicted=None, max_points=q.points,
        device=ref.device.name, method=q.method,
    )
    if result.verdict != "ok":
        return PredictionGrade(
            reference=None, fraction=0.0, points=0.0, flags=[f"kernel_{result.verdict}"], **base,
            reason=f"no performance credit: your kernel did not pass ({verdict}: {result.reason.rstrip('.')}).",
        )
    share = kind.derive(q, Measurements([*ref.measurements, *own]), ref.device, ref.device.key)
    credit = getattr(kind, "credit", None)
    if share is None or credit is None:
        return PredictionGrade(
            reference=None, fraction=0.0, points=0.0, flags=["no_measurement"], **base,
            reason=f"the grader has no {q.method} measurement of your kernel at {kind.where(q)}; ask your "
            "instructor.",
        )
    score = credit(q, share, ref.device.kind, ref.device.copy_gbps)
    return PredictionGrade(
        reference=share.value, ratio=score.ratio, fraction=round(score.fraction, 6),
        points=round(score.fraction * q.points, 4), reason=score.verdict[0].upper() + score.verdict[1:] + ".",
        **base,
    )
