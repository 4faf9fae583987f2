"""The API students call inside a lesson notebook.

    from autograder.lesson import Lesson
    L = Lesson.load()                       # reads lesson.toml beside the notebook
    L.predict("gpu_speedup@fp16,2^24", 3.0, because="...")
    L.measure("float16", 24)                # the project's benchmark helper, both timing methods
    L.grade("gpu_speedup@fp16,2^24")        # test cell: a preview now, the real grade under nbgrader
    L.status()                              # committed / valid / missing, before submitting

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

from ..bench.derive import quantity_value
from ..errors import PredictionError
from ..grading.checklist import checklist, render_checklist
from ..grading.context import GradingContext
from ..grading.grade import grade_quantity
from ..grading.reader import SubmissionReading
from ..grading.values import check_value
from ..ledger import append, committed_predictions, genesis, verify_chains
from ..records import DType, LedgerEntry, Measurement
from ..spec import LessonSpec, load_spec
from ..traffic import traffic
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
        self._measurements: dict[tuple[str, int], list[Measurement]] = {}
        self._harness: Any = None
        self.chain: list[LedgerEntry] = []
        self._device: Any = None
        self._device_name = "?"
        self._device_key = "?"

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
        lesson._start_device()
        lesson._resume_or_start()
        return lesson

    @property
    def sidecar(self) -> Path:
        return self.folder / f".{self.spec.id}.ledger.json"

    def _start_device(self) -> None:
        import torch

        from ..bench.fingerprint import device_key, pick_device

        self._device = pick_device()
        if self._device.type == "cuda":
            self._device_name = torch.cuda.get_device_name(self._device)
        else:
            from ..bench.fingerprint import _cpu_model

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
        value: float | str,
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
        if value is None:
            show_text(f"✘ {quantity}: no prediction yet — replace None with your {q.unit} and run this cell again.")
            return
        normalized, problem = check_value(q, value)
        if problem is not None:
            raise PredictionError(f"not committed: {problem}")
        if not isinstance(because, str) or not because.strip():
            raise PredictionError(f'not committed: {quantity} needs a one-sentence because="..." reason')
        if len(because) > 2000:
            raise PredictionError("not committed: keep because= to one sentence (under 2000 characters)")
        assert normalized is not None
        shown = f"{normalized:g}×" if isinstance(normalized, float) else normalized
        last = committed_predictions(self.chain).get(quantity)
        if last is not None and last.value == normalized and last.because == because.strip():
            show_ledger(
                self.spec.id,
                self.chain,
                f"✔ already committed #{last.seq}: {q.describe()} = {shown} (unchanged, nothing new recorded)",
            )
            return
        e = self._append("prediction", quantity, normalized, because.strip())
        msg = f"✔ committed #{e.seq}: {q.describe()} = {shown} — because {because.strip()}"
        if committed_predictions(self.chain)[quantity].revised_after_measurement:
            msg += "\n⚠ you changed it after measuring this quantity: it is marked revised_after_measurement."
        show_ledger(self.spec.id, self.chain, msg)

    # ------------------------------------------------------------------ measuring
    def _measure_pair(self, dtype: DType, log2_n: int) -> list[Measurement]:
        key = (dtype, log2_n)
        if key not in self._measurements:
            from ..bench.harness import Harness
            from ..bench.timing import TimingPolicy

            if self._harness is None:
                import torch

                assert self._device is not None
                l2 = None
                if self._device.type == "cuda":
                    l2 = int(getattr(torch.cuda.get_device_properties(self._device), "L2_cache_size", 0)) or None
                policy = TimingPolicy() if self._device.type == "cuda" else TimingPolicy.quick()
                self._harness = Harness(device=self._device, l2_bytes=l2, policy=policy)
            self._measurements[key] = self._harness.measure_pair(self.spec.chain, dtype, log2_n)
        return self._measurements[key]

    def _record_quantities(self, touched: set[tuple[str, int]]) -> list[str]:
        everything = [m for ms in self._measurements.values() for m in ms]
        lines = []
        for q in self.spec.quantities:
            if not any((c.dtype, c.log2_n) in touched for c in q.cases()):
                continue
            v = quantity_value(q, everything, self._device_key)
            if v is None:
                continue
            self._append(
                "measurement",
                q.id,
                v.value,
                meta={"device_key": self._device_key, "device_name": self._device_name, "method": q.method},
            )
            shown = f"{v.value:.2f}×" if isinstance(v.value, float) else v.value
            lines.append(f"  measured {q.id} = {shown}")
        return lines

    def measure(self, dtype: DType = "float16", log2_n: int = 24) -> None:
        """Time the chain eager vs compiled at one size, both ways, and explain the numbers in bytes."""
        if self.grading_mode:
            show_text(f"(grading) measurement of {dtype} 2^{log2_n} skipped: the stored reference is used.")
            return
        ms = self._measure_pair(dtype, log2_n)
        by = {(m.case.variant, m.method): m for m in ms}
        n = 1 << log2_n
        k = len(self.spec.chain)
        te = traffic(ms[0].case.model_copy(update={"variant": "eager"}), k)
        tf = traffic(ms[0].case.model_copy(update={"variant": "compiled"}), k)
        lines = [
            f"{self.spec.expression()} · {dtype} · N = 2^{log2_n} = {n:,} elements · {self._device_name}",
            f"{'method':<14} {'eager ms':>10} {'compiled ms':>12} {'speedup':>8}",
        ]
        notes = {
            "wall_per_call": "one call between two events: includes CPU dispatch",
            "gpu_time": "replayed CUDA graph / back-to-back calls: kernels only",
        }
        for method in ("wall_per_call", "gpu_time"):
            e, c = by[("eager", method)], by[("compiled", method)]
            lines.append(
                f"{method:<14} {e.median_ms:>10.4f} {c.median_ms:>12.4f} "
                f"{e.median_ms / c.median_ms:>7.2f}×   ({notes[method]})"
            )
        lines.append(
            f"traffic model: eager {te.launches} launches, {te.bytes_moved / 1e6:,.1f} MB; "
            f"fused {tf.launches} launch, {tf.bytes_moved / 1e6:,.1f} MB "
            f"(ratio {te.bytes_moved / tf.bytes_moved:.1f}×)"
        )
        g = by[("compiled", "gpu_time")]
        lines.append(
            f"kernels counted: eager {by[('eager', 'gpu_time')].launches}, compiled {g.launches} "
            f"({g.launches_source}); fused achieved {g.achieved_gbps:,.0f} GB/s"
        )
        lines += self._record_quantities({(dtype, log2_n)})
        show_ledger(self.spec.id, self.chain, "\n".join(lines))

    def sweep(self, dtype: DType = "float16") -> None:
        """The size sweep of this device (to the memory-bound regime on a GPU), both timing methods."""
        if self.grading_mode:
            show_text(f"(grading) sweep of {dtype} skipped: the stored reference is used.")
            return
        kind: Literal["cuda", "cpu"] = "cuda" if self._device is not None and self._device.type == "cuda" else "cpu"
        sizes = self.spec.sweep[kind].log2_sizes
        lines = [
            f"{self.spec.expression()} · {dtype} · {self._device_name}",
            f"{'N':>12} {'wall eager':>11} {'wall comp':>10} {'wall ×':>7} {'gpu eager':>10} {'gpu comp':>9} "
            f"{'gpu ×':>6}",
        ]
        for k in sizes:
            by = {(m.case.variant, m.method): m.median_ms for m in self._measure_pair(dtype, k)}
            we, wc = by[("eager", "wall_per_call")], by[("compiled", "wall_per_call")]
            ge, gc = by[("eager", "gpu_time")], by[("compiled", "gpu_time")]
            lines.append(
                f"{'2^' + str(k):>12} {we:>11.4f} {wc:>10.4f} {we / wc:>6.2f}× {ge:>10.4f} {gc:>9.4f} {ge / gc:>5.2f}×"
            )
        lines += self._record_quantities({(dtype, k) for k in sizes})
        show_ledger(self.spec.id, self.chain, "\n".join(lines))

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
            show_text(f"{g.points:g}/{g.max_points:g} points — {g.reason}")
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
                show_text(render_checklist(rows, problems))
            return
        rows, problems = checklist(self._reading(), self.spec)
        show_text(render_checklist(rows, problems))
