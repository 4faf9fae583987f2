"""The student's own kernel: predictions are committed to the ledger (in the notebook's outputs and the
sidecar beside it), measurements are made on this device and sealed in the same chain."""

from __future__ import annotations

import json
import os
import platform
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch

from ..bench.derive import quantity_value
from ..bench.fingerprint import cpu_model, device_key, fingerprint, pick_device
from ..bench.harness import Harness
from ..bench.runner import group_cases
from ..bench.timing import TimingPolicy
from ..errors import PredictionError
from ..grading.values import check_value
from ..kinds import Measurements, kind_of
from ..ledger import append, committed_predictions, genesis, measured_values, start_over
from ..records import Case, DeviceFingerprint, LedgerEntry, Measurement, ParamValue, Quantity, render_params
from ..spec import DeviceKind, LessonSpec
from ._mode import NotebookMode, read_sidecar, sidecar_path
from ._output import show_ledger, show_text
from .student import measure_student
from .tables import device_lines, measure_table, sweep_table

__all__ = ["StudentMode"]


def _now() -> datetime:
    return datetime.now(timezone.utc)


class StudentMode(NotebookMode):
    """Starts on this machine's device and resumes the sidecar's chain (or starts a new one)."""

    def __init__(self, spec: LessonSpec, folder: Path) -> None:
        super().__init__(spec, folder)
        self.measurements: dict[str, list[Measurement]] = {}
        self._harness: Any = None
        self._fp: DeviceFingerprint | None = None
        self._start_device()
        self._resume_or_start()

    # ------------------------------------------------------------------ device and ledger
    def _start_device(self) -> None:
        self.torch_device = pick_device()
        if self.torch_device.type == "cpu" and self.spec.student_variant is not None:
            # a student's Triton kernel runs on a CPU only in Triton's interpreter (read when it is decorated)
            os.environ.setdefault("TRITON_INTERPRET", "1")
        if self.torch_device.type == "cuda":
            self.device_name = torch.cuda.get_device_name(self.torch_device)
        else:
            self.device_name = f"CPU ({cpu_model()})"
        self.device_key = device_key(self.device_name, self.torch_device.type)

    @property
    def kind(self) -> DeviceKind:
        return "cuda" if self.torch_device.type == "cuda" else "cpu"

    @property
    def sidecar(self) -> Path:
        return sidecar_path(self.spec, self.folder)

    def _resume_or_start(self) -> None:
        chain = read_sidecar(self.sidecar) if self.sidecar.exists() else None
        if chain is not None:
            self.chain = chain
            said = f"{self.spec.id}: resumed your ledger ({len(chain)} entries) on {self.device_name}."
            show_ledger(self.spec.id, self.chain, said)
            return
        self.chain = [genesis(self.spec.id, secrets.token_hex(16), _now())]
        self._save()
        show_ledger(self.spec.id, self.chain, f"{self.spec.id}: new ledger started on {self.device_name}.")

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
    def predict(self, q: Quantity, value: float | str | None, because: str) -> None:
        quantity = q.id
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

    def start_over(self, because: str) -> None:
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
            l2 = None
            if self.torch_device.type == "cuda":
                l2 = int(getattr(torch.cuda.get_device_properties(self.torch_device), "L2_cache_size", 0)) or None
            policy = TimingPolicy() if self.torch_device.type == "cuda" else TimingPolicy.quick()
            self._harness = Harness(device=self.torch_device, l2_bytes=l2, policy=policy)
        return self._harness

    def fingerprint(self) -> DeviceFingerprint:
        """This device's peaks (copy bandwidth, ...), measured once, for fraction-of-peak quantities."""
        if self._fp is None:
            self._fp = fingerprint(self.torch_device)
        return self._fp

    def measure_point(self, params: dict[str, ParamValue], variants: list[str] | None = None) -> list[Measurement]:
        key = repr(sorted(params.items()))
        if key not in self.measurements:
            self.measurements[key] = self._harness_for_device().measure(self.spec.workload, params, variants)
            _log_measurements(self.measurements[key])
        return self.measurements[key]

    def _setup(self) -> dict[str, str]:
        """What per-call timings depend on, recorded with every measurement so that grading can say when
        the student's setup differs from the reference's (device, software releases, host CPU)."""
        setup = {
            "device_key": self.device_key,
            "device_name": self.device_name,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "cpu_model": cpu_model(),
        }
        if torch.version.cuda:
            setup["cuda"] = str(torch.version.cuda)
        return setup

    def may_reveal(self, cases: list[Case]) -> bool:
        """Refuse a measurement that would show a quantity nobody has predicted yet.

        A quantity is revealed by any case it is derived from (both sides of a direction, the baseline of
        a ratio, any point of a crossover's sweep) and by what the lesson's ``[reveals]`` adds
        (:meth:`LessonSpec.revealed_by`), whatever was measured before: so no half of a comparison is
        shown before it is predicted, in this kernel or another. Nothing is shown then: the student
        commits, then runs the cell again, and Run All with the predictions still empty costs nothing."""
        committed = committed_predictions(self.chain)
        missing = [q.id for q in self.spec.revealed_by(self.kind, cases) if q.id not in committed]
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

    def shown(self, cases: list[Case]) -> dict[str, Any]:
        """What a measurement display shows, for its output's metadata (read by ``autograder lint``)."""
        unique = {c.key: c for c in cases}
        return {"device_kind": self.kind, "cases": [c.model_dump(mode="json") for c in unique.values()]}

    def record_quantities(self, shown: list[Case]) -> list[str]:
        """Seal every quantity the shown cases reveal: its value where this kernel has measured all it is
        derived from, else what was shown of it (``value`` None, ``meta.shown``): a prediction changed
        after seeing part of a quantity is a revision after measurement too."""
        index = Measurements(m for ms in self.measurements.values() for m in ms)
        lines = []
        for q in self.spec.revealed_by(self.kind, shown):
            kind = kind_of(q)
            fp = self.fingerprint() if kind.name in ("peak_fraction", "crossover") else None
            v = quantity_value(q, index, self.device_key, fp)
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

    def device(self) -> None:
        show_text("\n".join(device_lines(self.device_name, self.fingerprint())))

    def measure(self, asked: dict[str, ParamValue], point: dict[str, ParamValue]) -> None:
        if not self.may_reveal([Case(variant=v, params=point) for v in self.spec.workload.variants]):
            return
        ms = self.measure_point(point)
        lines = measure_table(self.spec, asked, point, self.kind, self.device_name, ms)
        lines += self.record_quantities([m.case for m in ms])
        show_ledger(self.spec.id, self.chain, "\n".join(lines), self.shown([m.case for m in ms]))

    def sweep(self, fixed: dict[str, ParamValue]) -> None:
        kind = self.kind
        cases = self.spec.grid_cases(kind, self.spec.substitute(kind, fixed))
        groups = group_cases(cases)
        if not groups:
            known = self.spec.grid_cases(kind)
            has = "; ".join(
                f"{k} " + ", ".join(sorted({str(c.params[k]) for c in known if k in c.params})) for k in fixed
            )
            show_text(
                f"✘ nothing to sweep on this {kind.upper()}: the lesson's [sweep.{kind}] has no case at "
                f"{render_params(fixed, short=False, sep=', ')} (it sweeps {has or 'nothing'})."
            )
            return
        if not self.may_reveal(cases):
            return
        measured = [(params, vs, self.measure_point(params, vs)) for params, vs in groups]
        touched = [m.case for _, _, ms in measured for m in ms]
        lines = sweep_table(self.spec, fixed, self.device_name, measured)
        lines += self.record_quantities(touched)
        show_ledger(self.spec.id, self.chain, "\n".join(lines), self.shown(touched))

    def measure_student(self, fn: Any) -> None:
        measure_student(self, fn)


#: a file to which every measurement the notebook makes is appended as one JSON line (its raw samples and
#: SM clock): how `benchmarks/notebook_vs_bench.py` sets a student's run beside `autograder bench` case by case
MEASUREMENT_LOG = "AUTOGRADER_MEASUREMENT_LOG"


def _log_measurements(ms: list[Measurement]) -> None:
    path = os.environ.get(MEASUREMENT_LOG)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        for m in ms:
            f.write(m.model_dump_json() + "\n")
