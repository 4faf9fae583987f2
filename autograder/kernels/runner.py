"""run_submission: one submission in a child process, watched by a parent that never imports student code.

The parent starts the child (:mod:`.sandbox`), sends it the task, answers each ``ready`` with ``go`` and
timestamps ``go`` and the ``done`` that follows (the clock the submission cannot reach), enforces the wall
deadline by killing the process group, and reads the framed messages (:func:`.child.unframe`).  After the
child has gone it checks the saved outputs itself (:mod:`.verify`) and decides (:func:`decide`).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AutograderError
from ..isolation import start_failure_line
from . import child as child_mod
from .models import CaseResult, KernelResult, KernelTask
from .sandbox import child_spec, child_sys_path, limit_setter
from .verdicts import AUDIT_FAMILIES, Finding, error_finding, exit_finding
from .verify import Timing, check_outputs, threads_left_in_checks, timing_plan

__all__ = ["ChildRun", "Shape", "Started", "WarmStart", "default_ahead", "run_submission", "spawn"]

_CHILD_SOURCE: str | None = None
_TAIL = 16384
_SMALL = 32768  # a task line this long fits an empty pipe's buffer (64 KiB on Linux)


def _child_source() -> str:
    global _CHILD_SOURCE
    if _CHILD_SOURCE is None:
        _CHILD_SOURCE = Path(child_mod.__file__).read_text(encoding="utf-8")
    return _CHILD_SOURCE


_turn_listener: Callable[[bool], None] | None = None


def on_turn_wait(listener: Callable[[bool], None] | None) -> None:
    """Tell ``listener`` when a submission of this process starts (True) and stops (False) waiting for its
    device turn: the fast batch stops a submission's deadline meanwhile (the other submissions' GPU work
    is not this one's time)."""
    global _turn_listener
    _turn_listener = listener


class DeviceTurn:
    """One submission at a time on a device: an exclusive ``flock`` on a file named after the device (and
    the GPUs this process may see), held from a child's first device call to the end of the parent's
    verification of its outputs (whose references are made on the device). Children of a pool
    start and import torch side by side; their GPU work, timed loops included, never overlaps. Waiting for
    the turn does not count against a submission's wall-time limit."""

    def __init__(self, device: str) -> None:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "all").replace(",", "-") or "none"
        self.path = Path(tempfile.gettempdir(), f"autograder-turn-{device}-{visible}.lock")
        self._fd: int | None = None

    def take(self, timeout_s: float) -> float:
        """Wait for the device (at most ``timeout_s``); the seconds waited. Raises TimeoutError. While it
        waits, the listener of :func:`on_turn_wait` is told (True, then False)."""
        t0 = time.perf_counter()
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        waiting = False
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self._fd = fd
                    return time.perf_counter() - t0
                except BlockingIOError:
                    if time.perf_counter() - t0 > timeout_s:
                        os.close(fd)
                        raise TimeoutError(f"the device was busy for {timeout_s:.0f} s") from None
                    if not waiting and _turn_listener is not None:
                        waiting = True
                        _turn_listener(True)
                    time.sleep(0.005)
        finally:
            if waiting and _turn_listener is not None:
                _turn_listener(False)

    def give(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


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
    waited_s: float = 0.0  # for the device turn (not counted against the wall-time limit)
    finished: bool = False  # the child sent its last message (end, error, no_entry)
    up_at: float | None = None  # when the child had imported torch (its perf_counter: CLOCK_MONOTONIC)
    boot_s: float | None = None  # spawn to up: the child's start (hidden when it was started ahead)
    task_at: float | None = None  # when its task was sent (the wall deadline starts there)
    turn: DeviceTurn | None = None  # the device turn, still held after the child has gone (see _result)
    picks: dict[int, int] = field(default_factory=dict)  # per timed case: the sampled elements' pick

    def first(self, t: str) -> dict[str, Any] | None:
        return next((m for m in self.messages if m["t"] == t), None)

    def all(self, t: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["t"] == t]


#: how long a child still starting when its task is sent may take to come up (torch imported): that start is the
#: grader's, not the submission's (no student code runs before it), so the wall time counts from the later of the
#: task sent and the child up; a loaded node's slow start is not the student's timeout
START_S = 120.0


def _watch(proc: subprocess.Popen[bytes], msg_fd: int, err_fd: int, deadline: float, run: ChildRun,
           t_spawn: float, expected_cases: int, turn: DeviceTurn | None = None,
           on_up: Callable[[], None] | None = None) -> None:
    """Read both pipes until the child closes them or the deadline passes; answer ``ready`` with ``go``;
    call ``on_up`` once the child has said ``up`` (torch imported: at once for a child started ahead)."""
    sel = selectors.DefaultSelector()
    sel.register(msg_fd, selectors.EVENT_READ, "msg")
    sel.register(err_fd, selectors.EVENT_READ, "err")
    buf, err, open_fds = b"", b"", 2
    assert proc.stdin is not None
    shifted = False  # the deadline moved past the child's start (once, when it says it is up)
    while open_fds:
        if run.finished and proc.poll() is not None:
            break  # the child has said its last word and gone (a process it left may hold the pipes open)
        left = (deadline if shifted else max(deadline, t_spawn + START_S)) - time.perf_counter()
        if left <= 0:
            run.timed_out = True
            return
        for key, _ in sel.select(timeout=min(left, 0.2 if run.finished else 1.0)):
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
                if msg["t"] == "turn" and turn is not None and not run.waited_s:
                    waited = _take_turn(turn, proc, deadline - time.perf_counter())
                    run.waited_s, deadline = waited, deadline + waited
                    continue
                _handle(msg, now, run, proc, t_spawn, expected_cases)
                if not shifted and run.up_at is not None:
                    shifted = True
                    deadline += max(0.0, run.up_at - t_spawn)
                if on_up is not None and run.up_at is not None:
                    on_up()
                    on_up = None
            if len(buf) > child_mod.MAX_LINE:
                run.protocol = run.protocol or "a message over the size limit"
                buf = b""
    run.stderr = err.decode("utf-8", "replace")


def _take_turn(turn: DeviceTurn, proc: subprocess.Popen[bytes], left_s: float) -> float:
    """Wait for the device, then let the child begin; the seconds waited (0 if the turn never came: the
    child then waits for ``begin`` until its deadline, as a hang would)."""
    try:
        waited = turn.take(timeout_s=max(60.0, 30 * left_s))
    except TimeoutError:
        return 0.0
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"begin\n")
        proc.stdin.flush()
    except OSError:
        pass
    return max(waited, 1e-9)


def _handle(msg: dict[str, Any], now: float, run: ChildRun, proc: subprocess.Popen[bytes], t_spawn: float,
            expected_cases: int) -> None:
    t = msg["t"]
    key = (str(msg.get("phase")), int(msg.get("case") or 0)) if t in ("ready", "done") else None
    if t == "up" and run.up_at is None and not run.go and isinstance(msg.get("at"), int | float):
        run.up_at = float(msg["at"])
    elif t == "hello" and run.started_s is None:
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
    elif t in ("end", "error", "no_entry"):
        run.finished = True
    elif t == "done" and key is not None:
        if key not in run.go or key in run.done:
            run.protocol = run.protocol or f"a done for {key} the grader did not start"
            return
        run.done[key] = now
        if key[0] == "timed":
            # which elements of a large output the child saves: picked now, after the case's timed calls
            run.picks[key[1]] = secrets.randbits(62)
            _send(proc, f"pick {run.picks[key[1]]}\n".encode())
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


@dataclass(frozen=True)
class Shape:
    """What a child is started with, before its task exists: a child started ahead serves a submission of
    the same shape only (its sandbox, its device's nodes and environment, its rlimits)."""

    device: str
    isolate: bool
    memory_mb: int
    cpu_s: int
    file_mb: int
    cuda_ahead: bool = False  # make the CUDA context while waiting for the task (Limits.cuda_ahead)

    @classmethod
    def of(cls, task: KernelTask, isolate: bool) -> Shape:
        lim = task.limits
        return cls(task.device, isolate, lim.memory_mb, int(lim.wall_s) + 10, lim.output_mb + 64,
                   lim.cuda_ahead and task.device == "cuda")


@dataclass
class Started:
    """One child and its sandbox, started for one submission (given or not yet): never given a second."""

    shape: Shape
    tmp: tempfile.TemporaryDirectory[str]
    proc: subprocess.Popen[bytes] | None
    msg_r: int
    err_r: int
    isolated: bool
    uid: int | None
    t_spawn: float
    error: str = ""  # why it could not be started
    used: bool = False

    @property
    def base(self) -> Path:
        return Path(self.tmp.name)

    def fits(self, shape: Shape, idle_s: float) -> bool:
        """Still waiting for a task of this shape (alive, and well within its idle time)."""
        return (self.proc is not None and not self.used and self.shape == shape and self.proc.poll() is None
                and time.perf_counter() - self.t_spawn < 0.8 * idle_s)

    def discard(self) -> None:
        """Kill the child and everything it started (if still there), close its pipes, remove its folder."""
        if self.proc is not None:
            if self.proc.poll() is None:
                _kill(self.proc)
            else:
                try:  # a process it left in its group (no PID namespace without bubblewrap)
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if self.proc.stdin is not None:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
        for fd in (self.msg_r, self.err_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.msg_r = self.err_r = -1
        self.tmp.cleanup()


def spawn(shape: Shape, idle_s: float = child_mod.IDLE_S) -> Started:
    """A fresh sandbox and a fresh child in it: it imports torch and waits (``idle_s`` at most) for its task."""
    tmp = tempfile.TemporaryDirectory(prefix="autograder-kernel-")
    base = Path(tmp.name)
    (base / "nb").mkdir()
    (base / "out").mkdir()
    msg_r, msg_w = os.pipe()
    err_r, err_w = os.pipe()
    flag = (child_mod.CUDA_AHEAD_ARG,) if shape.cuda_ahead else ()
    spec = child_spec(_child_source(), msg_w, base, shape.device, isolate=shape.isolate, args=(*flag, f"{idle_s:g}"))
    preexec = limit_setter(shape.memory_mb, shape.cpu_s, shape.file_mb,
                           spec.uid if spec.uid is not None else os.geteuid(), shape.device == "cuda")
    t_spawn = time.perf_counter()
    try:
        proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            spec.argv, stdin=subprocess.PIPE, stdout=err_w, stderr=err_w, pass_fds=(msg_w,), env=spec.env,
            cwd=str(base / "nb"), preexec_fn=preexec, start_new_session=True)  # noqa: PLW1509
        error = ""
    except OSError as exc:
        proc, error = None, str(exc)
    os.close(msg_w)
    os.close(err_w)
    return Started(shape, tmp, proc, msg_r, err_r, spec.isolated, spec.uid, t_spawn, error)


def _send(proc: subprocess.Popen[bytes], line: bytes) -> None:
    try:
        assert proc.stdin is not None
        proc.stdin.write(line)
        proc.stdin.flush()
    except (OSError, ValueError):  # the child has gone (or its pipe was closed)
        pass


def _serve(started: Started, task: KernelTask, plan: Timing,
           after_send: Callable[[], None] | None = None) -> ChildRun:
    """Give ``started`` its task (the wall deadline starts now), then watch it to its end. ``after_send``
    runs once the task is on its way and the child is up (a :class:`WarmStart` starts the next children
    there: a child started ahead is up already; a cold one's start is not slowed by theirs), or when the
    child has gone without coming up."""
    started.used = True
    run = ChildRun()
    base, proc = started.base, started.proc
    if proc is None:
        run.stderr = started.error
        if after_send is not None:
            after_send()
        return run
    lim = task.limits
    scratch = str(base / "out")
    exclusive = lim.exclusive_device if lim.exclusive_device is not None else task.device == "cuda"
    turn = DeviceTurn(task.device) if exclusive else None
    payload = {
        "workload_source": task.workload.read_text(encoding="utf-8"), "workload_name": task.workload.stem,
        "make_inputs": task.make_inputs, "entry": task.entry, "source": task.source,
        "cases": list(task.cases), "check_cases": list(task.check_cases), "seed": task.seed,
        "device": task.device, "calls": plan.calls, "warmup": plan.warmup, "warmup_ms": plan.warmup_ms,
        "gpu_memory_mb": lim.gpu_memory_mb, "output_bytes": lim.output_mb << 20, "scratch": scratch,
        "verify_sample_from": lim.verify_sample_from,
        "forbidden": [str(task.workload.resolve().parent)], "forks": 32,
        "threads": 1 if task.device == "cpu" else min(4, os.cpu_count() or 1),
        "input_threads": min(4, os.cpu_count() or 1),
        "sys_path": child_sys_path(),
        "turn": turn is not None,
    }
    line = child_mod.frame({"t": "task", **payload})
    failed = False
    t_task = time.perf_counter()
    deadline = t_task + lim.wall_s
    try:
        assert proc.stdin is not None
        if len(line) <= _SMALL:
            _send(proc, line)  # fits the pipe's buffer: never waits for the child
        else:  # a child still importing reads it later: the deadline is watched meanwhile
            threading.Thread(target=_send, args=(proc, line), daemon=True).start()
        run.task_at = t_task
        _watch(proc, started.msg_r, started.err_r, deadline, run, t_task, len(task.cases), turn, after_send)
    except BaseException:
        failed = True
        raise
    finally:
        if run.timed_out or proc.poll() is None:
            if not run.timed_out:
                try:
                    proc.wait(timeout=max(0.5, deadline + run.waited_s - time.perf_counter()))
                except subprocess.TimeoutExpired:
                    run.timed_out = True
            _kill(proc)
        # the child and everything it started are gone; the turn is kept for the parent's verification,
        # which makes its references on the device (:func:`_result` gives it back), unless nobody will verify
        if turn is not None and failed:
            turn.give()
        else:
            run.turn = turn
        run.returncode = proc.returncode
        if not run.stderr:
            try:
                os.set_blocking(started.err_r, False)
                run.stderr = os.read(started.err_r, _TAIL).decode("utf-8", "replace")
            except OSError:
                pass
    if run.up_at is not None:
        run.boot_s = run.up_at - started.t_spawn
    elif after_send is not None:
        after_send()
    return run


def _failure(run: ChildRun, isolated: bool, n_cases: int, n_checks: int) -> Finding | None:
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
        if err.get("phase") != "check" and threads_left_in_checks(run, n_checks):
            # the threads it left running, not the error they led to, decide (one that starts a thread per call
            # runs out of threads in the timed loop or not, as the GPU's pace has it)
            return Finding("gamed", "thread", "the kernel returned before its work was done and left threads "
                                              "running to finish it (then raised "
                                              f"{err.get('kind')!s}: {str(err.get('message', ''))[:80]}): a "
                                              "result must be complete when the call returns")
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


def _plan(task: KernelTask) -> Timing:
    """The timing plan, or :class:`AutograderError` (one line) when the course's side is broken."""
    if not task.workload.is_file():
        raise AutograderError(f"the workload {task.workload} does not exist")
    try:
        return timing_plan(task)
    except (Exception, SystemExit) as exc:  # the lesson's own code: the course's error, not the student's
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise AutograderError(f"the workload {task.workload} cannot make its inputs: {line}") from None


def _result(task: KernelTask, started: Started, plan: Timing, t0: float,
            after_send: Callable[[], None] | None = None) -> KernelResult:
    """``task`` served by ``started``, checked and decided; the child and its folder are gone after."""
    run: ChildRun | None = None
    try:
        run = _serve(started, task, plan, after_send)
        phases = _phases(run, t0)
        found = _failure(run, started.isolated, len(task.cases), len(task.check_cases))
        cases: tuple[CaseResult, ...] = ()
        if found is None:
            tv = time.perf_counter()
            # under the device turn: the references are made on the device, and another child's timed
            # loop must not share it with them
            found, cases = check_outputs(task, run, started.base / "out", plan)
            phases["verify"] = time.perf_counter() - tv
    finally:
        if run is not None and run.turn is not None:
            run.turn.give()
        started.discard()
    return KernelResult(verdict=found.verdict, family=found.family, reason=found.reason,  # type: ignore[arg-type]
                        cases=cases, seconds=time.perf_counter() - t0, phases=phases)


def run_submission(task: KernelTask, *, isolate: bool = True) -> KernelResult:
    """One submission, in a fresh child process (in bubblewrap when ``isolate`` and bwrap is available),
    started now (:class:`WarmStart` starts each next one ahead).

    Never raises for anything the student's code does; raises :class:`AutograderError` (one line) when
    the course's side is broken (the workload is missing or cannot make its inputs)."""
    t0 = time.perf_counter()
    plan = _plan(task)
    return _result(task, spawn(Shape.of(task, isolate)), plan, t0)


def default_ahead() -> int:
    """Children to keep started ahead: one per three cores (their starts run side by side), 1 to 5. On an
    H200 host (16 cores) a child's start took ~4.5 s and a compiled submission ~1.1 s, so three ahead left
    a submission waiting for its child (0.59 s a submission, benchmarks/results/h200-2026-12-02b)."""
    return max(1, min(5, (os.cpu_count() or 1) // 3))


class WarmStart:
    """Submissions one after another, each in a fresh child in a fresh sandbox as :func:`run_submission`
    does, with the next children started ahead: when a submission's task is sent, new children are started
    (bubblewrap, Python, torch and Triton imported) until ``ahead`` wait for the next submissions' tasks, so
    that their starts overlap this one's work (with ``ahead`` > 1 they also overlap each other, on a machine
    with the cores for it). A child serves one submission only, the longest-waiting first; one that does not
    fit the next task (another device or limits) or has waited too long is killed; those never used are
    killed by :meth:`close` (each also leaves by itself after ``idle_s`` without a task, or when this
    process has gone). One ``WarmStart`` per thread that grades."""

    def __init__(self, *, isolate: bool = True, idle_s: float = child_mod.IDLE_S, ahead: int | None = None) -> None:
        self.isolate, self.idle_s = isolate, idle_s
        self.ahead = max(1, ahead if ahead is not None else default_ahead())
        self._queue: deque[Started] = deque()
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def _mine(self) -> deque[Started]:
        if os.getpid() != self._pid:  # a forked copy: those children are another process's
            self._queue, self._pid = deque(), os.getpid()
        return self._queue

    def _take(self, shape: Shape) -> Started | None:
        """The longest-waiting child that fits ``shape``; those before it that do not are killed."""
        while True:
            with self._lock:
                q = self._mine()
                got = q.popleft() if q else None
            if got is None or got.fits(shape, self.idle_s):
                return got
            got.discard()

    @property
    def waiting(self) -> Started | None:
        """The child started ahead that the next task goes to (None when there is none)."""
        q = self._mine()
        return q[0] if q else None

    @property
    def queued(self) -> list[Started]:
        """Every child started ahead and waiting, the next one first."""
        return list(self._mine())

    def run(self, task: KernelTask) -> KernelResult:
        """As :func:`run_submission`, by a child started ahead where one fits; starts the next ones."""
        t0 = time.perf_counter()
        plan = _plan(task)
        shape = Shape.of(task, self.isolate)
        mine = self._take(shape)
        if mine is None:
            mine = spawn(shape, self.idle_s)
        return _result(task, mine, plan, t0, lambda: self._top_up(shape))

    def prime(self, task: KernelTask) -> int:
        """Start children for tasks of ``task``'s shape until ``ahead`` wait, before any is sent (so that the
        first submission of a batch does not wait for a child's start either); returns how many wait."""
        self._top_up(Shape.of(task, self.isolate))
        return len(self._mine())

    def _top_up(self, shape: Shape) -> None:
        """Start children until ``ahead`` wait; if this machine cannot now (no descriptors, no disk), the
        next submission starts its own as :func:`run_submission` does."""
        while len(self._mine()) < self.ahead:
            try:
                started = spawn(shape, self.idle_s)
            except OSError:
                return
            with self._lock:
                self._mine().append(started)

    def close(self) -> None:
        """Kill the children started ahead, if any (they never got a task)."""
        while True:
            with self._lock:
                q = self._mine()
                left = q.popleft() if q else None
            if left is None:
                return
            left.discard()

    def __enter__(self) -> WarmStart:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _phases(run: ChildRun, t0: float) -> dict[str, float]:
    out: dict[str, float] = {}
    if run.started_s is not None:
        out["child_start"] = run.started_s - run.waited_s  # from the task sent: what the submission waited
    if run.boot_s is not None and 0.0 <= run.boot_s < 3600.0:
        out["boot"] = run.boot_s  # the child's own start (spawn to torch imported), hidden when ahead
    if run.waited_s:
        out["turn_wait"] = run.waited_s
    end = run.first("end")
    if end is not None and isinstance(end.get("phases"), dict):
        for k, v in end["phases"].items():
            if isinstance(v, int | float):
                out[str(k)] = float(v)
    return out
