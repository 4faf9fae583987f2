"""The API students call inside a lesson notebook.

    from autograder.lesson import Lesson
    L = Lesson.load()                       # reads lesson.toml beside the notebook
    L.predict("speedup@fp32,2^20", 2.0, because="...")
    L.measure("float32", 20)                # every variant at one point of the workload, both timing methods
    L.grade("speedup@fp32,2^20")            # test cell: a preview now, the real grade under nbgrader
    L.status()                              # committed / valid / missing, before submitting
    L.start_over()                          # a fresh start, recorded in the chain (docs/reliability.md)

Under ``nbgrader autograde`` (NBGRADER_EXECUTION=autograde) nothing is measured or re-committed: the
ledger read from the *submitted* outputs is graded against the stored reference.
"""

from __future__ import annotations

import json
import os
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ..errors import PredictionError
from ..grading.checklist import checklist, render_checklist, restart_notes
from ..grading.grade import grade_cell_text, grade_quantity
from ..grading.reader import SubmissionReading
from ..grading.values import check_value
from ..kinds import kind_of
from ..ledger import append, committed_predictions, genesis, measured_values, start_over, verify_chains
from ..records import Case, LedgerEntry, Measurement, ParamValue, render_params
from ..spec import LessonSpec, load_spec
from ..storage.context import GradingContext
from ..table_order import ratio_heading, ratio_order
from ._output import show_ledger, show_text

__all__ = ["Lesson"]


def _now() -> datetime:
    return datetime.now(timezone.utc)


class Lesson:
    """One lesson session in one kernel; its ledger lives in the notebook outputs and a sidecar file."""

    def __init__(self, spec: LessonSpec, folder: Path, grading: GradingContext | None, grading_mode: bool) -> None:
        self.spec = spec
        self.folder = folder
        self.grading_mode = grading_mode
        self._context = grading
        self._measurements: dict[str, list[Measurement]] = {}
        self._harness: Any = None
        self._fp: Any = None
        self.chain: list[LedgerEntry] = []
        self._device: Any = None
        self._device_name = "?"
        self._device_key = "?"
        self.validating = False

    # ------------------------------------------------------------------ setup
    @classmethod
    def load(cls, folder: str | Path = ".") -> Lesson:
        f = Path(folder).resolve()
        spec = load_spec(f)
        grading_mode = os.environ.get("NBGRADER_EXECUTION") == "autograde"
        if grading_mode:
            ctx = GradingContext.read(f)
            lesson = cls(spec, f, ctx, True)
            dev = ctx.reference.device.name if ctx else "no reference (grading context missing)"
            show_text(f"{spec.id}: grading mode — your committed predictions are graded against {dev}.")
            return lesson
        lesson = cls(spec, f, None, False)
        if os.environ.get("NBGRADER_EXECUTION") == "validate":
            # `nbgrader validate` / the Validate button re-runs the saved notebook in a new kernel: it must
            # never commit, measure or change the student's ledger, only read it
            lesson.validating = True
            lesson.chain = lesson._read_sidecar()
            show_text(f"{spec.id}: validating — nothing is committed or measured; your ledger is left as it is.")
            return lesson
        lesson._start_device()
        lesson._resume_or_start()
        return lesson

    def _read_sidecar(self) -> list[LedgerEntry]:
        try:
            verdict, chain = verify_chains([json.loads(self.sidecar.read_text(encoding="utf-8"))])
        except (ValueError, OSError):
            return []
        return chain if verdict.trusted else []

    @property
    def sidecar(self) -> Path:
        return self.folder / f".{self.spec.id}.ledger.json"

    def _start_device(self) -> None:
        import torch

        from ..bench.fingerprint import device_key, pick_device

        self._device = pick_device()
        if self._device.type == "cpu" and self.spec.student_variant is not None:
            # a student's Triton kernel runs on a CPU only in Triton's interpreter (read when it is decorated)
            os.environ.setdefault("TRITON_INTERPRET", "1")
        if self._device.type == "cuda":
            self._device_name = torch.cuda.get_device_name(self._device)
        else:
            from ..bench.fingerprint import cpu_model as _cpu_model

            self._device_name = f"CPU ({_cpu_model()})"
        self._device_key = device_key(self._device_name, self._device.type)

    def _resume_or_start(self) -> None:
        if self.sidecar.exists():
            try:
                verdict, chain = verify_chains([json.loads(self.sidecar.read_text(encoding="utf-8"))])
            except (ValueError, OSError):
                verdict, chain = None, []
            if verdict is not None and verdict.trusted:
                self.chain = chain
                show_ledger(
                    self.spec.id,
                    self.chain,
                    f"{self.spec.id}: resumed your ledger ({len(chain)} entries) on {self._device_name}.",
                )
                return
        nonce = secrets.token_hex(16)
        self.chain = [genesis(self.spec.id, nonce, _now())]
        self._save()
        show_ledger(self.spec.id, self.chain, f"{self.spec.id}: new ledger started on {self._device_name}.")

    def _save(self) -> None:
        tmp = self.sidecar.with_suffix(".tmp")
        tmp.write_text(json.dumps([e.model_dump(mode="json") for e in self.chain]), encoding="utf-8")
        os.replace(tmp, self.sidecar)

    def _append(
        self,
        kind: str,
        quantity: str,
        value: float | str | None,
        because: str | None = None,
        meta: dict[str, str] | None = None,
    ) -> LedgerEntry:
        entry = append(self.chain, kind, quantity, value, _now(), because, meta)
        self.chain.append(entry)
        self._save()
        return entry

    # ------------------------------------------------------------------ predictions
    def predict(self, quantity: str, value: float | str | None, because: str = "") -> None:
        """Commit a prediction (before measuring it). Refuses values that could not be graded."""
        q = self.spec.quantity(quantity)
        if self.grading_mode:
            show_text(f"(grading) {quantity}: the prediction committed in your submitted notebook is used.")
            return
        if self.validating:
            show_text(f"(validating) {quantity}: not committed here; run the cell in your notebook to commit it.")
            return
        if value is None:
            show_text(
                f"✘ {quantity}: no prediction yet — replace None with {kind_of(q).asks_for} and run this cell again."
            )
            return
        normalized, problem = check_value(q, value)
        if problem is not None:
            raise PredictionError(f"not committed: {problem}")
        if not isinstance(because, str) or not because.strip():
            raise PredictionError(f'not committed: {quantity} needs a one-sentence because="..." reason')
        if len(because) > 2000:
            raise PredictionError("not committed: keep because= to one sentence (under 2000 characters)")
        assert normalized is not None
        kind = kind_of(q)
        shown = kind.show_committed(normalized) if isinstance(normalized, float) else normalized
        last = committed_predictions(self.chain).get(quantity)
        if last is not None and last.value == normalized and last.because == because.strip():
            show_ledger(
                self.spec.id,
                self.chain,
                f"✔ already committed #{last.seq}: {kind.describe(q)} = {shown} (unchanged, nothing new recorded)",
            )
            return
        e = self._append("prediction", quantity, normalized, because.strip())
        msg = f"✔ committed #{e.seq}: {kind.describe(q)} = {shown} — because {because.strip()}"
        now = committed_predictions(self.chain)[quantity]
        if now.first_committed_after_measurement:
            msg += "\n⚠ this quantity was measured before you committed it: it is marked revised_after_measurement."
        elif now.revised_after_measurement:
            msg += "\n⚠ you changed it after measuring this quantity: it is marked revised_after_measurement."
        if now.started_over_after_measurement:
            msg += (
                "\n⚠ you had measured this quantity before starting over, and this is not the value you committed "
                "before measuring it: it is marked started_over_after_measurement (the course policy applies)."
            )
        show_ledger(self.spec.id, self.chain, msg)

    def start_over(self, because: str = "") -> None:
        """Start over before submitting: predictions committed so far no longer count; commit each again.

        Nothing is deleted: a restart entry joins the chain, so grading sees it. A quantity measured before
        the restart is graded as *committed after starting over* (its own policy, costed like a revision by
        default) unless the value committed again is the one committed before it was first measured."""
        if self.grading_mode:
            show_text("(grading) start_over: nothing restarts here; the restarts in your submitted ledger are graded.")
            return
        if self.validating:
            show_text("(validating) start_over: not recorded here; run it in your notebook to start over.")
            return
        if not isinstance(because, str) or len(because) > 2000:
            raise PredictionError("not started over: because= takes one sentence of text (under 2000 characters)")
        if len(self.chain) <= 1 or self.chain[-1].kind == "restart":
            show_ledger(self.spec.id, self.chain, "↺ nothing to start over: nothing was committed or measured since "
                        + ("the start." if len(self.chain) <= 1 else f"you started over at #{self.chain[-1].seq}."))
            return
        aside = committed_predictions(self.chain)
        seen = sorted(measured_values(self.chain))
        entry = start_over(self.chain, _now(), because.strip() or None)
        self.chain.append(entry)
        self._save()
        lines = [
            f"↺ started over at #{entry.seq}: the {len(aside)} prediction(s) committed before no longer count "
            "(they stay in the ledger); commit each prediction again, then measure."
        ]
        if seen:
            lines.append(
                "  measured before starting over: " + ", ".join(seen) + ". A prediction for one of these is graded "
                "as committed after starting over (the course policy applies) unless it is the value you had "
                "committed before measuring it."
            )
        show_ledger(self.spec.id, self.chain, "\n".join(lines))

    # ------------------------------------------------------------------ measuring
    def _harness_for_device(self) -> Any:
        if self._harness is None:
            import torch

            from ..bench.harness import Harness
            from ..bench.timing import TimingPolicy

            assert self._device is not None
            l2 = None
            if self._device.type == "cuda":
                l2 = int(getattr(torch.cuda.get_device_properties(self._device), "L2_cache_size", 0)) or None
            policy = TimingPolicy() if self._device.type == "cuda" else TimingPolicy.quick()
            self._harness = Harness(device=self._device, l2_bytes=l2, policy=policy)
        return self._harness

    @property
    def _kind(self) -> Literal["cuda", "cpu"]:
        return "cuda" if self._device is not None and self._device.type == "cuda" else "cpu"

    def _fingerprint(self) -> Any:
        """This device's peaks (copy bandwidth, ...), measured once, for fraction-of-peak quantities."""
        if self._fp is None:
            from ..bench.fingerprint import fingerprint

            self._fp = fingerprint(self._device)
        return self._fp

    def _measure_point(self, params: dict[str, ParamValue], variants: list[str] | None = None) -> list[Measurement]:
        key = repr(sorted(params.items()))
        if key not in self._measurements:
            self._measurements[key] = self._harness_for_device().measure(self.spec.workload, params, variants)
        return self._measurements[key]

    def _show_against_reference(self, cases: list[Case], what: str) -> None:
        """Under grading, in place of measuring: what the student measured on their own device next to the
        device of record's value, for every quantity this cell measures (the feedback shows it)."""
        from ..kinds import kind_of

        ctx = self._context
        if ctx is None:
            show_text(f"(grading) {what}: not measured; no grading context was prepared.")
            return
        ref = ctx.reference
        own = measured_values(ctx.reading.entries)
        lines = [f"(grading) {what}: not measured again; your measurements next to the {ref.device.name} reference:"]
        for q in self.spec.quantities:
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
        show_text("\n".join(lines))

    def _setup(self) -> dict[str, str]:
        """What per-call timings depend on, recorded with every measurement so that grading can say when
        the student's setup differs from the reference's (device, software releases, host CPU)."""
        import platform

        import torch

        from ..bench.fingerprint import cpu_model as _cpu_model

        setup = {
            "device_key": self._device_key,
            "device_name": self._device_name,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "cpu_model": _cpu_model(),
        }
        if torch.version.cuda:
            setup["cuda"] = str(torch.version.cuda)
        return setup

    def _cases_at(self, point: dict[str, ParamValue]) -> list[Case]:
        return [Case(variant=v, params=point) for v in self.spec.workload.variants]

    def _may_reveal(self, cases: list[Case]) -> bool:
        """Refuse a measurement that would show a quantity nobody has predicted yet.

        A quantity is revealed by any case it is derived from (both sides of a direction, the baseline of
        a ratio, any point of a crossover's sweep) and by what the lesson's ``[reveals]`` adds
        (:meth:`LessonSpec.revealed_by`), whatever was measured before: so no half of a comparison is
        shown before it is predicted, in this kernel or another. Nothing is shown then: the student
        commits, then runs the cell again, and Run All with the predictions still empty costs nothing."""
        committed = committed_predictions(self.chain)
        missing = [q.id for q in self.spec.revealed_by(self._kind, cases) if q.id not in committed]
        if missing:
            many = len(missing) > 1
            cells = ", ".join(f'L.predict("{q}", …)' for q in missing)
            show_text(
                f"✋ not measured yet: this would reveal {', '.join(missing)}, which you have not predicted. "
                f"Commit your prediction{'s' if many else ''} first (in the {cells} cell{'s' if many else ''}: "
                f"replace None, run {'them' if many else 'it'}), then run this cell again."
            )
            return False
        return True

    def _shown(self, cases: list[Case]) -> dict[str, Any]:
        """What a measurement display shows, for its output's metadata (read by ``autograder lint``)."""
        unique = {c.key: c for c in cases}
        return {"device_kind": self._kind, "cases": [c.model_dump(mode="json") for c in unique.values()]}

    def _record_quantities(self, shown: list[Case]) -> list[str]:
        """Seal every quantity the shown cases reveal: its value where this kernel has measured all it is
        derived from, else what was shown of it (``value`` None, ``meta.shown``): a prediction changed
        after seeing part of a quantity is a revision after measurement too."""
        from ..bench.derive import quantity_value
        from ..kinds import Measurements, kind_of

        index = Measurements(m for ms in self._measurements.values() for m in ms)
        lines = []
        for q in self.spec.revealed_by(self._kind, shown):
            kind = kind_of(q)
            fp = self._fingerprint() if kind.name in ("peak_fraction", "crossover") else None
            v = quantity_value(q, index, self._device_key, fp)
            meta = {**self._setup(), "method": q.method}
            if v is None:
                own = {c.key for c in kind.cases(q)}
                part = sorted(
                    {render_params(c.params, short=False, sep=", ") for c in shown if c.key in own or not own}
                )
                self._append("measurement", q.id, None, meta={**meta, "shown": "; ".join(part)[:500]})
                lines.append(f"  sealed {q.id}: you have seen part of it (a prediction changed now is a revision)")
                continue
            self._append("measurement", q.id, v.value, meta=meta)
            lines.append(f"  measured {q.id} = {kind.show(v.value)}")
        return lines

    def _method_notes(self) -> dict[str, str]:
        if self._device is not None and self._device.type == "cuda":
            return {
                "wall_per_call": "one call between two CUDA events: includes CPU dispatch",
                "gpu_time": "replayed CUDA graph of many calls: kernels only",
            }
        return {
            "wall_per_call": "one call timed by the CPU clock",
            "gpu_time": "many back-to-back calls (a CPU has no separate dispatch)",
        }

    def device(self) -> None:
        """This device and its measured ceilings: copy roofline, matrix-multiply peaks, ridge points."""
        if self.grading_mode or self.validating:
            show_text("(grading) device measurement skipped: the stored reference is used.")
            return
        fp = self._fingerprint()
        lines = [f"{self._device_name}: copy roofline {fp.copy_gbps:,.0f} GB/s (bytes read + written)"]
        for key, peak in sorted((getattr(fp, "peaks", None) or {}).items()):
            if ":" in key and "tflops" in key:
                ridge = peak * 1e12 / (fp.copy_gbps * 1e9)
                lines.append(
                    f"  {key.split(':', 1)[1]:<10} matrix-multiply peak {peak:,.1f} TFLOP/s → ridge point "
                    f"{ridge:,.0f} FLOP/byte"
                )
        show_text("\n".join(lines))

    def measure(self, *args: ParamValue, **params: ParamValue) -> None:
        """Time every variant at one point of the lesson's parameters, both ways, and state the work model.

        Parameters are given in the workload's order (e.g. ``L.measure("float16", 24)``) or by name."""
        wl = self.spec.workload
        asked = wl.case_params(args, params)
        point = self.spec.substitute(self._kind, asked)
        if self.grading_mode:
            self._show_against_reference(self._cases_at(asked), wl.describe(asked))
            return
        if self.validating:
            show_text(f"(validating) measurement of {wl.describe(point)} skipped.")
            return
        if not self._may_reveal(self._cases_at(point)):
            return
        ms = self._measure_point(point)
        by: dict[tuple[str, str], Measurement] = {(m.case.variant, m.method): m for m in ms}
        variants = [v for v in ratio_order(self.spec, wl.variants) if (v, "gpu_time") in by]
        base = variants[0]
        lines = [f"{wl.describe(point)} · {self._device_name}"]
        if point != asked:
            lines.append(
                f"(on a {self._kind.upper()} this lesson measures {render_params(point, short=False, sep=', ')} "
                f"instead of {render_params(asked, short=False, sep=', ')}: see lesson.toml)"
            )
        head = f"{'method':<14}" + "".join(f" {v + ' ms':>{max(12, len(v) + 4)}}" for v in variants)
        head += "".join(
            f" {ratio_heading(wl.variants[0], base, v, len(variants) == 2):>{max(8, len(base) + len(v) + 2)}}"
            for v in variants[1:]
        )
        lines.append(head)
        for method, note in self._method_notes().items():
            row = f"{method:<14}" + "".join(f" {by[(v, method)].median_ms:>{max(12, len(v) + 4)}.4f}" for v in variants)
            row += "".join(
                f" {by[(base, method)].median_ms / by[(v, method)].median_ms:>{max(8, len(base) + len(v) + 2) - 1}.2f}×"
                for v in variants[1:]
            )
            lines.append(f"{row}   ({note})")
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
        lines += self._record_quantities([m.case for m in ms])
        show_ledger(self.spec.id, self.chain, "\n".join(lines), self._shown([m.case for m in ms]))

    def sweep(self, *args: ParamValue, **fixed: ParamValue) -> None:
        """The size sweep of this device (to the memory-bound regime on a GPU), both timing methods, at
        the fixed parameters given (e.g. ``L.sweep("float16")``)."""
        from ..bench.runner import group_cases

        wl = self.spec.workload
        fixed_params = wl.case_params(args, fixed)
        if self.grading_mode:
            self._show_against_reference(self.spec.grid_cases("cuda", fixed_params), f"the sweep at {fixed_params}")
            return
        if self.validating:
            show_text(f"(validating) sweep at {fixed_params} skipped.")
            return
        kind = self._kind
        cases = self.spec.grid_cases(kind, self.spec.substitute(kind, fixed_params))
        groups = group_cases(cases)
        if not groups:
            known = self.spec.grid_cases(kind)
            has = "; ".join(
                f"{k} " + ", ".join(sorted({str(c.params[k]) for c in known if k in c.params}))
                for k in fixed_params
            )
            show_text(
                f"✘ nothing to sweep on this {kind.upper()}: the lesson's [sweep.{kind}] has no case at "
                f"{render_params(fixed_params, short=False, sep=', ')} (it sweeps {has or 'nothing'})."
            )
            return
        if not self._may_reveal(cases):
            return
        variants = [v for v in ratio_order(self.spec, wl.variants) if any(v in vs for _, vs in groups)]
        base = variants[0]
        size = wl.size_param
        where = render_params(fixed_params, short=False, sep=" · ")
        lines = [f"{self.spec.title} · {where + ' · ' if where else ''}{self._device_name}"]
        head = f"{size.replace('log2_', ''):>10}"
        for method in ("wall", "gpu"):
            head += "".join(f" {method + ' ' + v[:8]:>13}" for v in variants)
            head += "".join(f" {method + ' ×':>8}" for _ in variants[1:])
        lines.append(head)
        touched: list[Case] = []
        for params, vs in groups:
            ms = self._measure_point(params, vs)
            touched += [m.case for m in ms]
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
        lines += self._record_quantities(touched)
        show_ledger(self.spec.id, self.chain, "\n".join(lines), self._shown(touched))

    def measure_student(self, fn: Any) -> None:
        """Check and time the student's own kernel ``fn`` (the lesson's ``[student_variant]``) on this
        device with the grader's timing code (``autograder.kernels.measure_function``), next to the
        lesson's first variant at the same case; seal what it shows, as :meth:`measure` does."""
        from .student import measure_student

        sv = self.spec.student_variant
        if sv is None:
            show_text(f"✘ lesson {self.spec.id} declares no [student_variant]: there is no kernel of yours to measure.")
            return
        if self.grading_mode:
            self._show_graded_kernel()
            return
        if self.validating:
            show_text(f"(validating) measurement of your {sv.entry} skipped.")
            return
        measure_student(self, fn)

    def _show_graded_kernel(self) -> None:
        """Under grading, in place of measuring: what the grader measured of the submitted kernel."""
        sv = self.spec.student_variant
        record = self._context.record if self._context is not None else None
        if sv is None or record is None:
            show_text("(grading) your kernel: not measured here; no grading context was prepared.")
            return
        about = {q.id: q for q in self.spec.student_quantities}
        credit = set(sv.credit_grade_ids())
        lines = [f"(grading) your {sv.entry} was run by the grader on the {record.device_of_record}, not here:"]
        for g in record.predictions:
            if g.grade_id in credit and g.quantity == "kernel_correctness":
                lines.append(f"  correctness: {g.reason}")
            elif g.quantity in about:
                shown = kind_of(about[g.quantity]).show(g.reference) if isinstance(g.reference, float) else "—"
                lines.append(f"  {g.quantity}: measured {shown}")
        show_text("\n".join(lines))

    def grade_kernel(self, part: str) -> float | None:
        """Test cell of the student's own kernel: ``"correctness"`` or ``"performance"``. Under nbgrader
        the points the grader gave (it ran the kernel on the device of record); for the student a note."""
        sv = self.spec.student_variant
        if sv is None or part not in ("correctness", "performance"):
            show_text(f"✘ {part!r}: this lesson grades no such part of your kernel (correctness, performance).")
            return 0.0 if self.grading_mode else None
        credit = sv.correctness.grade_id if part == "correctness" and sv.correctness else sv.performance_grade_id
        if self.grading_mode:
            record = self._context.record if self._context is not None else None
            g = next((p for p in record.predictions if p.grade_id == credit), None) if record else None
            if g is None:
                show_text(f"{part}: no grade of your kernel was prepared (check nbgrader_config.py); 0 points.")
                return 0.0
            show_text(grade_cell_text(g))
            return g.points
        show_text(
            f"{part} of your {sv.entry}: graded when you submit, by running it on the course's grading device "
            "on hidden inputs (what you measured here is not used)."
        )
        return None

    # ------------------------------------------------------------------ grading and checking
    def _reading(self) -> SubmissionReading:
        verdict, chain = verify_chains([[e.model_dump(mode="json") for e in self.chain]])
        return SubmissionReading(
            verdict=verdict, entries=chain, student_device=self._device_key, student_device_name=self._device_name
        )

    def grade(self, quantity: str) -> float | None:
        """Test cell: under nbgrader the points (partial credit); for the student a preview."""
        q = self.spec.quantity(quantity)
        if self.grading_mode:
            if self._context is None:
                show_text(f"{quantity}: no grading context was prepared (check nbgrader_config.py); 0 points.")
                return 0.0
            ctx = self._context
            shown = next((p for p in ctx.record.predictions if p.quantity == quantity), None) if ctx.record else None
            g = shown or grade_quantity(quantity, ctx.reading, self.spec, ctx.reference, ctx.note, ctx.policy)
            show_text(grade_cell_text(g))  # what the fast batch's autograded notebook shows too
            return g.points
        rows, _ = checklist(self._reading(), self.spec)
        row = next(r for r in rows if r.quantity == quantity)
        show_text(
            f"{quantity}: {row.state} {row.value} ({row.note}). It is graded against the reference on the "
            f"course's grading device ({q.method}), not against your own measurement."
        )
        return None

    def status(self) -> None:
        """Before submitting: every prediction committed, valid, or missing (like `autograder check`)."""
        if self.grading_mode:
            if self._context is not None:
                rows, problems = checklist(self._context.reading, self.spec)
                show_text(render_checklist(rows, problems, restart_notes(self._context.reading)))
            return
        reading = self._reading()
        rows, problems = checklist(reading, self.spec)
        show_text(render_checklist(rows, problems, restart_notes(reading)))
