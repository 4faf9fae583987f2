"""run_submission: one submission in a child process, watched by a parent that never imports student code.

The parent starts the child (:mod:`.sandbox`), sends it the task, answers each ``ready`` with ``go`` and
timestamps ``go`` and the ``done`` that follows (the clock the submission cannot reach), enforces the wall
deadline by killing the process group, and reads the framed messages (:func:`.child.unframe`).  After the
child has gone it checks the saved outputs itself (:mod:`.verify`) and decides (:func:`decide`).
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AutograderError
from ..preprocessors.sandbox import start_failure_line
from . import child as child_mod
from .models import CaseResult, KernelResult, KernelTask
from .sandbox import child_spec, limit_setter
from .verdicts import AUDIT_FAMILIES, Finding, error_finding, exit_finding
from .verify import Timing, check_outputs, timing_plan

__all__ = ["ChildRun", "run_submission"]

_CHILD_SOURCE: str | None = None
_TAIL = 16384


def _child_source() -> str:
    global _CHILD_SOURCE
    if _CHILD_SOURCE is None:
        _CHILD_SOURCE = Path(child_mod.__file__).read_text(encoding="utf-8")
    return _CHILD_SOURCE


@dataclass
class ChildRun:
    """What the parent saw of one child."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    go: dict[tuple[str, int], float] = field(default_factory=dict)
    done: dict[tuple[str, int], float] = field(default_factory=dict)
    returncode: int | None = None
    timed_out: bool = False
    stderr: str = ""
    protocol: str = ""  # what was wrong with the child's messages, if anything
    started_s: float | None = None  # spawn to the child's hello

    def first(self, t: str) -> dict[str, Any] | None:
        return next((m for m in self.messages if m["t"] == t), None)

    def all(self, t: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["t"] == t]


def _watch(proc: subprocess.Popen[bytes], msg_fd: int, err_fd: int, deadline: float, run: ChildRun,
           t_spawn: float, expected_cases: int) -> None:
    """Read both pipes until the child closes them or the deadline passes; answer ``ready`` with ``go``."""
    sel = selectors.DefaultSelector()
    sel.register(msg_fd, selectors.EVENT_READ, "msg")
    sel.register(err_fd, selectors.EVENT_READ, "err")
    buf, err, open_fds = b"", b"", 2
    assert proc.stdin is not None
    while open_fds:
        left = deadline - time.perf_counter()
        if left <= 0:
            run.timed_out = True
            return
        for key, _ in sel.select(timeout=min(left, 1.0)):
            fd = int(key.fd)  # type: ignore[call-overload]
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                sel.unregister(fd)
                open_fds -= 1
                continue
            if key.data == "err":
                err = (err + chunk)[-_TAIL:]
                continue
            now = time.perf_counter()
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = child_mod.unframe(line)
                if msg is None:
                    run.protocol = run.protocol or "a message that is not one JSON line"
                    continue
                _handle(msg, now, run, proc, t_spawn, expected_cases)
            if len(buf) > child_mod.MAX_LINE:
                run.protocol = run.protocol or "a message over the size limit"
                buf = b""
    run.stderr = err.decode("utf-8", "replace")
    run.stderr = err.decode("utf-8", "replace")


def _handle(msg: dict[str, Any], now: float, run: ChildRun, proc: subprocess.Popen[bytes], t_spawn: float,
            expected_cases: int) -> None:
    t = msg["t"]
    key = (str(msg.get("phase")), int(msg.get("case") or 0)) if t in ("ready", "done") else None
    if t == "hello" and run.started_s is None:
        run.started_s = now - t_spawn
    elif t == "ready" and key is not None:
        if key in run.go or key[1] >= max(expected_cases, 1):
            run.protocol = run.protocol or f"a second ready for {key}"
            return
        run.go[key] = time.perf_counter()
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"go\n")
            proc.stdin.flush()
        except OSError:
            pass
    elif t == "done" and key is not None:
        if key not in run.go or key in run.done:
            run.protocol = run.protocol or f"a done for {key} the grader did not start"
            return
        run.done[key] = now
    run.messages.append(msg)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def _spawn_and_watch(task: KernelTask, base: Path, isolate: bool, plan: Timing) -> tuple[ChildRun, bool]:
    msg_r, msg_w = os.pipe()
    err_r, err_w = os.pipe()
    spec = child_spec(_child_source(), msg_w, base, task.device, isolate=isolate)
    lim = task.limits
    preexec = limit_setter(lim.memory_mb, int(lim.wall_s) + 10, lim.output_mb + 64,
                           spec.uid if spec.uid is not None else os.geteuid(), task.device == "cuda")
    run = ChildRun()
    t_spawn = time.perf_counter()
    deadline = t_spawn + lim.wall_s
    scratch = str(base / "out")
    payload = {
        "workload_source": task.workload.read_text(encoding="utf-8"), "workload_name": task.workload.stem,
        "make_inputs": task.make_inputs, "entry": task.entry, "source": task.source,
        "cases": list(task.cases), "check_cases": list(task.check_cases), "seed": task.seed,
        "device": task.device, "calls": plan.calls, "warmup": plan.warmup, "warmup_ms": plan.warmup_ms,
        "gpu_memory_mb": lim.gpu_memory_mb, "output_bytes": lim.output_mb << 20, "scratch": scratch,
        "forbidden": [str(task.workload.resolve().parent)], "forks": 32, "threads": 1,
    }
    try:
        proc = subprocess.Popen(spec.argv, stdin=subprocess.PIPE, stdout=err_w, stderr=err_w, pass_fds=(msg_w,),
                                env=spec.env, cwd=str(base / "nb"), preexec_fn=preexec,  # noqa: PLW1509
                                start_new_session=True)
    except OSError as exc:
        for fd in (msg_r, msg_w, err_r, err_w):
            os.close(fd)
        run.stderr = str(exc)
        return run, spec.isolated
    os.close(msg_w)
    os.close(err_w)
    try:
        assert proc.stdin is not None
        try:
            proc.stdin.write(child_mod.frame({"t": "task", **payload}))
            proc.stdin.flush()
        except OSError:
            pass
        _watch(proc, msg_r, err_r, deadline, run, t_spawn, len(task.cases))
    finally:
        if run.timed_out or proc.poll() is None:
            if not run.timed_out:
                try:
                    proc.wait(timeout=max(0.5, deadline - time.perf_counter()))
                except subprocess.TimeoutExpired:
                    run.timed_out = True
            _kill(proc)
        run.returncode = proc.returncode
        if not run.stderr:
            try:
                os.set_blocking(err_r, False)
                run.stderr = os.read(err_r, _TAIL).decode("utf-8", "replace")
            except OSError:
                pass
        os.close(msg_r)
        os.close(err_r)
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
    return run, spec.isolated


def _failure(run: ChildRun, isolated: bool, n_cases: int) -> Finding | None:
    """A verdict that does not need the outputs: the child did not start, was killed, hit a limit, raised,
    reached for what a kernel must not, or broke the protocol."""
    audits = run.all("audit")
    for fam in AUDIT_FAMILIES:
        hit = next((a for a in audits if a.get("what") == fam), None)
        if hit is not None:
            verdict, reason = AUDIT_FAMILIES[fam]
            return Finding(verdict, fam, f"{reason} ({str(hit.get('detail', ''))[:120]})")
    student_ran = all(("baseline", i) in run.done for i in range(n_cases))
    if not student_ran:
        if run.timed_out:
            return Finding("sandbox_failed", "start", "the grader's child did not get ready within the wall time")
        what = "the kernel's sandbox" if isolated else "the kernel's process"
        return Finding("sandbox_failed", "start", start_failure_line(run.stderr, what))
    if run.protocol:
        return Finding("gamed", "forged_message", f"the kernel wrote to the grader's channel: {run.protocol}")
    err = run.first("error")
    if err is not None:
        return error_finding(str(err.get("kind")), str(err.get("message", "")), str(err.get("phase")))
    if run.first("no_entry") is not None:
        ne = run.first("no_entry") or {}
        found = f" (it is a {ne['found']})" if ne.get("found") else ""
        return Finding("no_entry", "missing", f"the cell does not define a function named {ne.get('entry')}{found}")
    if run.timed_out:
        return Finding("timeout", "hang", "the kernel did not finish within the wall-time limit")
    if run.first("end") is None:
        return exit_finding(run.returncode, run.stderr)
    return None


def run_submission(task: KernelTask, *, isolate: bool = True) -> KernelResult:
    """One submission, in a fresh child process (in bubblewrap when ``isolate`` and bwrap is available).

    Never raises for anything the student's code does; raises :class:`AutograderError` (one line) when
    the course's side is broken (the workload cannot be read)."""
    t0 = time.perf_counter()
    if not task.workload.is_file():
        raise AutograderError(f"the workload {task.workload} does not exist")
    plan = timing_plan(task)
    with tempfile.TemporaryDirectory(prefix="autograder-kernel-") as tmp:
        base = Path(tmp)
        (base / "nb").mkdir()
        (base / "out").mkdir()
        run, isolated = _spawn_and_watch(task, base, isolate, plan)
        phases = _phases(run, t0)
        found = _failure(run, isolated, len(task.cases))
        cases: tuple[CaseResult, ...] = ()
        if found is None:
            tv = time.perf_counter()
            found, cases = check_outputs(task, run, base / "out", plan)
            phases["verify"] = time.perf_counter() - tv
    return KernelResult(verdict=found.verdict, family=found.family, reason=found.reason,  # type: ignore[arg-type]
                        cases=cases, seconds=time.perf_counter() - t0, phases=phases)


def _phases(run: ChildRun, t0: float) -> dict[str, float]:
    out: dict[str, float] = {}
    if run.started_s is not None:
        out["child_start"] = run.started_s
    end = run.first("end")
    if end is not None and isinstance(end.get("phases"), dict):
        for k, v in end["phases"].items():
            if isinstance(v, int | float):
                out[str(k)] = float(v)
    return out
