"""What the lesson's cells print, rendered apart from measuring: pure functions from measurements (and the
lesson's work model) to the lines a student reads. No torch, no measuring, nothing printed here."""

from __future__ import annotations

from typing import Any

from ..kinds import kind_of
from ..ledger import measured_values
from ..records import Case, DeviceFingerprint, Measurement, ParamValue, render_params
from ..records.grades import SubmissionGrade
from ..spec import DeviceKind, LessonSpec
from ..storage.context import GradingContext
from ..table_order import ratio_heading, ratio_order

__all__ = [
    "against_reference_lines",
    "device_lines",
    "graded_kernel_lines",
    "kernel_table",
    "measure_table",
    "method_notes",
    "substituted_note",
    "sweep_table",
]

def method_notes(kind: DeviceKind) -> dict[str, str]:
    """What each timing method measures on this kind of device (the note beside its row)."""
    if kind == "cuda":
        return {
            "wall_per_call": "one call between two CUDA events: includes CPU dispatch",
            "gpu_time": "replayed CUDA graph of many calls: kernels only",
        }
    return {
        "wall_per_call": "one call timed by the CPU clock",
        "gpu_time": "many back-to-back calls (a CPU has no separate dispatch)",
    }


def substituted_note(kind: DeviceKind, point: dict[str, ParamValue], asked: list[dict[str, ParamValue]]) -> str:
    """The line saying this device measures another case than the notebook asked for."""
    return (
        f"(on a {kind.upper()} this lesson measures {render_params(point, short=False, sep=', ')} "
        f"instead of {'; '.join(render_params(a, short=False, sep=', ') for a in asked)}: see lesson.toml)"
    )


def _fastest_call_quantities(spec: LessonSpec, kind: DeviceKind, point: dict[str, ParamValue]) -> dict[str, list[str]]:
    """Per timing method, the quantities at ``point`` that divide the fastest sample of each side (a ratio
    kind's ``statistic = "min"``) rather than the median: the table shows that row too, so the number a
    student reads is the number graded."""
    out: dict[str, list[str]] = {}
    for q in spec.for_device(kind).quantities:
        k = kind_of(q)
        if getattr(k.args(q), "statistic", "median") != "min":
            continue
        if any(c.params == point for c in k.cases(q)):
            out.setdefault(q.method, []).append(q.id)
    return out


def measure_table(
    spec: LessonSpec,
    asked: dict[str, ParamValue],
    point: dict[str, ParamValue],
    kind: DeviceKind,
    device_name: str,
    ms: list[Measurement],
) -> list[str]:
    """``L.measure``: every variant at one point, both timing methods, the work model and what was counted."""
    wl = spec.workload
    by: dict[tuple[str, str], Measurement] = {(m.case.variant, m.method): m for m in ms}
    variants = [v for v in ratio_order(spec, wl.variants) if (v, "gpu_time") in by]
    base = variants[0]
    lines = [f"{wl.describe(point)} · {device_name}"]
    if point != asked:
        lines.append(substituted_note(kind, point, [asked]))
    head = f"{'method':<14}" + "".join(f" {v + ' ms':>{max(12, len(v) + 4)}}" for v in variants)
    head += "".join(
        f" {ratio_heading(wl.variants[0], base, v, len(variants) == 2):>{max(8, len(base) + len(v) + 2)}}"
        for v in variants[1:]
    )
    lines.append(head)
    fastest = _fastest_call_quantities(spec, kind, point)
    for method, note in method_notes(kind).items():
        row = f"{method:<14}" + "".join(f" {by[(v, method)].median_ms:>{max(12, len(v) + 4)}.4f}" for v in variants)
        row += "".join(
            f" {by[(base, method)].median_ms / by[(v, method)].median_ms:>{max(8, len(base) + len(v) + 2) - 1}.2f}×"
            for v in variants[1:]
        )
        lines.append(f"{row}   ({note})")
        if fastest.get(method):
            row = f"{'  fastest':<14}" + "".join(
                f" {by[(v, method)].stats.min:>{max(12, len(v) + 4)}.4f}" for v in variants
            )
            row += "".join(
                f" {by[(base, method)].stats.min / by[(v, method)].stats.min:>{max(8, len(base) + len(v) + 2) - 1}.2f}×"
                for v in variants[1:]
            )
            lines.append(f"{row}   (the fastest of the timed calls: what {', '.join(fastest[method])} divides)")
    works = {v: wl.work(v, point) for v in variants}
    model = "; ".join(
        f"{v} {w.launches} launch{'es' if w.launches != 1 else ''}, {w.bytes_moved / 1e6:,.1f} MB"
        + (f", {w.flops / 1e9:,.2f} GFLOP" if w.flops and w.intensity > 1 else "")
        for v, w in works.items()
    )
    ratios = ", ".join(
        f"{base}/{v} {works[base].bytes_moved / w.bytes_moved:.1f}×"
        for v, w in works.items()
        if v != base and w.bytes_moved
    )
    lines.append(f"work model: {model}" + (f" (traffic ratio {ratios})" if ratios else ""))
    counted = ", ".join(f"{v} {by[(v, 'gpu_time')].launches}" for v in variants)
    source = by[(variants[-1], "gpu_time")].launches_source
    rates = ", ".join(
        f"{v} {by[(v, 'gpu_time')].achieved_gbps:,.0f} GB/s"
        + (f" / {by[(v, 'gpu_time')].achieved_tflops:,.2f} TFLOP/s" if works[v].intensity > 1 else "")
        for v in variants
    )
    lines.append(f"kernels counted: {counted} ({source}); achieved (gpu_time): {rates}")
    return lines


def sweep_table(
    spec: LessonSpec,
    fixed: dict[str, ParamValue],
    device_name: str,
    groups: list[tuple[dict[str, ParamValue], list[str], list[Measurement]]],
) -> list[str]:
    """``L.sweep``: one row per size (its params, the variants measured there, their measurements), both
    timing methods, each variant and its ratio to the first."""
    wl = spec.workload
    variants = [v for v in ratio_order(spec, wl.variants) if any(v in vs for _, vs, _ in groups)]
    base = variants[0]
    size = wl.size_param
    where = render_params(fixed, short=False, sep=" · ")
    lines = [f"{spec.title} · {where + ' · ' if where else ''}{device_name}"]
    head = f"{size.replace('log2_', ''):>10}"
    for method in ("wall", "gpu"):
        head += "".join(f" {method + ' ' + v[:8]:>13}" for v in variants)
        head += "".join(f" {method + ' ×':>8}" for _ in variants[1:])
    lines.append(head)
    for params, _, ms in groups:
        by: dict[tuple[str, str], float] = {(m.case.variant, m.method): m.median_ms for m in ms}
        at = params.get(size)
        row = f"{'2^' + str(at) if size.startswith('log2_') else str(at):>10}"
        for method in ("wall_per_call", "gpu_time"):
            row += "".join(f" {by.get((v, method), float('nan')):>13.4f}" for v in variants)
            row += "".join(
                f" {by.get((base, method), float('nan')) / by.get((v, method), float('nan')):>7.2f}×"
                for v in variants[1:]
            )
        lines.append(row)
    return lines


def device_lines(device_name: str, fp: DeviceFingerprint) -> list[str]:
    """``L.device``: the copy roofline and, per precision, the matrix-multiply peak and its ridge point."""
    lines = [f"{device_name}: copy roofline {fp.copy_gbps:,.0f} GB/s (bytes read + written)"]
    for key, peak in sorted((getattr(fp, "peaks", None) or {}).items()):
        if ":" in key and "tflops" in key:
            ridge = peak * 1e12 / (fp.copy_gbps * 1e9)
            lines.append(
                f"  {key.split(':', 1)[1]:<10} matrix-multiply peak {peak:,.1f} TFLOP/s → ridge point "
                f"{ridge:,.0f} FLOP/byte"
            )
    return lines


def kernel_table(
    spec: LessonSpec,
    kind: DeviceKind,
    device_name: str,
    copy_gbps: float,
    params: dict[str, Any],
    own: list[Measurement],
    theirs: list[Measurement],
    base: str,
) -> list[str]:
    """``L.measure_student``: the student's kernel next to the lesson's first variant at one case."""
    sv = spec.student_variant
    assert sv is not None
    wl = spec.workload
    method = "gpu_time"
    mine = next((m for m in own if m.method == method and m.case.params == params), None)
    other = next((m for m in theirs if m.method == method and m.case.variant == base), None)
    lines = [f"{wl.describe(params)} · {device_name}"]
    asked = [dict(c) for c in sv.cases]
    if params not in asked:
        lines.append(substituted_note(kind, params, asked))
    if mine is None or other is None:
        return [*lines, f"✘ no {method} timing of your {sv.entry} at this case"]
    speed = other.median_ms / mine.median_ms
    lines.append(f"{'':<10} {'your ' + sv.entry + ' ms':>20} {base + ' ms':>12} {base + '/yours':>12}")
    lines.append(f"{method:<10} {mine.median_ms:>20.4f} {other.median_ms:>12.4f} {speed:>11.3g}×")
    w_mine, w_base = wl.work(sv.variant, params), wl.work(base, params)
    lines.append(
        f"work model: yours {w_mine.launches} launch, {_mb(w_mine.bytes_moved)}; {base} "
        f"{w_base.launches} launches, {_mb(w_base.bytes_moved)}"
    )
    lines.append(
        f"achieved: yours {mine.achieved_gbps:,.3g} GB/s = {100 * mine.achieved_gbps / copy_gbps:.3g}% of this "
        f"device's copy roofline ({copy_gbps:,.0f} GB/s); {base} {other.achieved_gbps:,.3g} GB/s on its own bytes"
        + (f"; kernels counted: yours {mine.launches}" if mine.launches is not None else "")
    )
    return lines


def against_reference_lines(spec: LessonSpec, ctx: GradingContext, cases: list[Case], what: str) -> list[str]:
    """Under grading, in place of a measurement: what the student measured on their own device next to the
    device of record's value, for every quantity the cell measures."""
    ref = ctx.reference
    own = measured_values(ctx.reading.entries)
    lines = [f"(grading) {what}: not measured again; your measurements next to the {ref.device.name} reference:"]
    for q in spec.quantities:
        kind = kind_of(q)
        if not kind.touched_by(q, cases):
            continue
        mine = own.get(q.id)
        theirs = ref.quantities.get(q.id)
        shown_mine = (
            f"{kind.show(mine.value) if mine.value is not None else '—'} on {mine.meta.get('device_name', '?')}"
            if mine is not None
            else "not measured"
        )
        shown_ref = kind.show(theirs.value) if theirs is not None else "—"
        lines.append(f"  {q.id}: you {shown_mine}; {ref.device.name}: {shown_ref} ({q.method})")
    return lines


def graded_kernel_lines(spec: LessonSpec, record: SubmissionGrade) -> list[str]:
    """Under grading, in place of timing the student's kernel: what the grader measured of it."""
    sv = spec.student_variant
    assert sv is not None
    about = {q.id: q for q in spec.student_quantities}
    credit = set(sv.credit_grade_ids())
    lines = [f"(grading) your {sv.entry} was run by the grader on the {record.device_of_record}, not here:"]
    for g in record.predictions:
        if g.grade_id in credit and g.quantity == "kernel_correctness":
            lines.append(f"  correctness: {g.reason}")
        elif g.quantity in about:
            shown = kind_of(about[g.quantity]).show(g.reference) if isinstance(g.reference, float) else "—"
            lines.append(f"  {g.quantity}: measured {shown}")
    return lines


def _mb(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:,.1f} MB" if n_bytes >= 1e6 else f"{n_bytes / 1e3:,.1f} kB"
