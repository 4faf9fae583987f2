"""What runs in the child process of one submission, and the pure helpers the parent shares with it.

The parent starts ``python -c <this file's source> <idle seconds> <message fd>`` (inside bubblewrap when it
can).  The child imports torch (and Triton) first, says ``up`` and waits (at most the idle seconds, else it
leaves) for one JSON line on its stdin: the task of the one submission it serves.  So a child can be started
ahead, while the previous submission runs (:class:`autograder.kernels.runner.WarmStart`).  The parent then
answers each ``ready`` with ``go``.  The child:

1. keeps references to the timing functions (perf_counter, CUDA events, synchronize, median) before any
   student code exists, and installs an audit hook (PEP 578: it cannot be removed) that reports imports
   of the workload, opens of course files, sockets, process starts and heap walks at once;
2. makes every input from the hidden seed (fresh tensors for every timed call, trap calls whose tensors
   are refilled in place without a version bump) from the workload's source, then drops the workload;
3. times a null function through the very same loop: the baseline of the parent's clock;
4. execs the student's source in a fresh module, runs the entry on the check cases, times each case
   (warm-up, L2 flush between calls on CUDA, the device kept busy by a spin while each call is launched so
   that its events time the device's work and not the launch, a device-wide sync after each call) and saves a sample of
   the outputs (check outputs, first, last, traps and random timed calls) as raw bytes to the scratch
   folder, with the seeds that made their inputs;
5. says which timing functions were replaced, and ends with ``os._exit`` (no atexit of the student's).

Every message is one JSON line on the message descriptor (:func:`frame`); the parent never unpickles.
Only the standard library is imported at module level: the parent imports this module for
:func:`call_seed`, :func:`plan_calls` and :func:`frame` without loading torch through it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

#: a message line longer than this is a protocol violation (the parent stops reading the child)
MAX_LINE = 1 << 20
NULL_ENTRY = "__null__"
#: device cycles spun before each timed call's start event on CUDA (about 200 µs at an H200's 1.98 GHz):
#: longer than launching a call takes, shorter than anything worth timing
SPIN_CYCLES = 400_000
#: seconds a child started ahead waits for its task before it leaves by itself (the parent passes its own)
IDLE_S = 600.0
#: the argument (before the idle seconds) that asks a child to make its CUDA context while it waits
CUDA_AHEAD_ARG = "cuda-ahead"


def frame(obj: dict[str, Any]) -> bytes:
    """One message: compact JSON and a newline (never longer than :data:`MAX_LINE`)."""
    line = json.dumps(obj, separators=(",", ":"), default=str).encode() + b"\n"
    if len(line) > MAX_LINE:
        raise ValueError(f"message of {len(line)} bytes is over the {MAX_LINE}-byte limit")
    return line


def unframe(line: bytes) -> dict[str, Any] | None:
    """The message in one line, or None when it is not a JSON object with a string ``t``."""
    if len(line) > MAX_LINE:
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and isinstance(obj.get("t"), str) else None


def call_seed(seed: int, kind: str, case_index: int, call: int) -> int:
    """The input seed of one call: ``kind`` is ``check``, ``warm``, ``timed`` or ``refill``."""
    digest = hashlib.sha256(f"{seed}/{kind}/{case_index}/{call}".encode()).digest()
    return int.from_bytes(digest[:6], "little")


#: of a timed output with more elements than a task's ``verify_sample_from``, the child saves the first and
#: last ``SAMPLE_EDGE`` elements and ``SAMPLE_SIZE`` more at indices the parent picks once the case's timed
#: calls are over (so no call can know which elements will be checked)
SAMPLE_EDGE = 1 << 16
SAMPLE_SIZE = 1 << 20


def sample_plan(n: int, pick: int) -> tuple[int, int]:
    """(start, stride) of the sampled indices of an ``n``-element output: ``(start + stride * j) % n`` for
    j < SAMPLE_SIZE, stride coprime with ``n`` (so the indices are distinct and spread over the whole output,
    every residue of any block size hit alike). Pure: the child and the parent compute the same."""
    import math

    h = hashlib.sha256(f"sample/{pick}".encode()).digest()
    start = int.from_bytes(h[:8], "little") % n
    stride = 1 + int.from_bytes(h[8:16], "little") % max(n - 1, 1)
    while math.gcd(stride, n) != 1:
        stride = stride % n + 1
    return start, stride


def sample_indices(torch: Any, n: int, pick: int, device: Any) -> Any:
    """The int64 indices of the sampled elements (edges first), on ``device``."""
    start, stride = sample_plan(n, pick)
    head = torch.arange(min(SAMPLE_EDGE, n), device=device, dtype=torch.int64)
    tail = torch.arange(max(n - SAMPLE_EDGE, 0), n, device=device, dtype=torch.int64)
    spread = (start + stride * torch.arange(SAMPLE_SIZE, device=device, dtype=torch.int64)) % n
    return torch.concat([head, tail, spread])


def plan_calls(calls: int, seed: int, case_index: int, extra: int = 3) -> tuple[list[int], list[int]]:
    """(trap calls, calls whose outputs are saved) of one timed case.

    Trap calls reuse the warm-up inputs' tensors refilled in place (``.data``: no ``_version`` bump), so a
    result cached by pointer or version replays the warm-up's answer.  Saved: first, last, every trap and
    ``extra`` more picked from the hidden seed."""
    traps = sorted({c for c in range(2, calls, max(3, calls // 4))} | ({calls - 2} if calls > 3 else set()))
    rnd = [call_seed(seed, "pick", case_index, k) % calls for k in range(extra)]
    saved = sorted({0, calls - 1, *traps, *rnd})
    return traps, saved


def _load_workload(source: str, name: str) -> dict[str, Any]:
    # lazy: the child's start is timed phase by phase; the parent imports this module without torch
    import types

    mod = types.ModuleType(name)
    mod.__file__ = f"<workload {name}>"
    sys.modules[name] = mod  # dataclasses and typing look the module up while it runs
    try:
        exec(compile(source, mod.__file__, "exec"), mod.__dict__)
    finally:
        sys.modules.pop(name, None)
    return mod.__dict__


class _Child:
    """The child's state: captured timers, inputs, the message descriptor."""

    def __init__(self, fd: int, task: dict[str, Any]) -> None:
        # lazy: the child's start is timed phase by phase; the parent imports this module without torch
        import _thread
        import statistics
        import threading
        import time

        import torch

        self.fd, self.task, self.pid = fd, task, os.getpid()
        self.torch = torch
        self.device = torch.device(task["device"])
        if self.device.type == "cuda" and self.device.index is None:
            # the first GPU this process may see (CUDA_VISIBLE_DEVICES: under Slurm, the shard's own); some
            # calls (the per-process memory fraction) refuse a device without an index
            self.device = torch.device("cuda", 0)
        self.cuda = self.device.type == "cuda"
        # the timing functions, kept before any student code exists
        self.perf = time.perf_counter
        self.cpu = time.process_time  # the process's CPU time: what a scheduler's preemption does not add to
        self.median = statistics.median
        self.count_threads = _thread._count
        self.listdir = os.listdir
        self.exact = type
        self.tensor_type = torch.Tensor
        self.write = os.write
        self.stdin = sys.stdin.buffer  # the parent's go signals, kept before the student can replace sys.stdin
        self.dumps = json.dumps
        self.exit = os._exit
        self.sync: Callable[[], None] = (lambda: torch.cuda.synchronize(self.device)) if self.cuda else (lambda: None)
        self.Event: Any = torch.cuda.Event if self.cuda else None
        self.current_stream: Any = torch.cuda.current_stream if self.cuda else None
        # the device kept busy (a spin of SPIN_CYCLES) while this thread launches a timed call, so that the
        # call's events time the device's work, not the host's launch of it (a Triton launch costs tens of
        # µs: a 60 µs kernel timed from an idle device measured 40-60 % of the copy roofline, a CUDA graph of
        # it 99 %); the parent's baseline loop spins the same, so its clock is unchanged
        _sleep = torch.cuda._sleep if self.cuda else None
        self.spin: Callable[[], None] = (lambda: _sleep(SPIN_CYCLES)) if _sleep is not None else (lambda: None)
        self.max_reserved: Any = torch.cuda.max_memory_reserved if self.cuda else None
        self.originals = self._timing_functions()
        self.threading = threading

    def _timing_functions(self) -> dict[str, Any]:
        # lazy: the child's start is timed phase by phase; the parent imports this module without torch
        import statistics
        import time

        torch = self.torch
        out: dict[str, Any] = {
            "time.perf_counter": time.perf_counter, "time.perf_counter_ns": time.perf_counter_ns,
            "time.time": time.time, "time.monotonic": time.monotonic, "statistics.median": statistics.median,
            "statistics.mean": statistics.mean, "torch.cuda.synchronize": torch.cuda.synchronize,
            "torch.cuda.Event": torch.cuda.Event, "torch.Tensor.median": torch.Tensor.median,
            "torch.median": torch.median,
        }
        for attr in ("record", "synchronize", "elapsed_time", "query", "__init__"):
            out[f"torch.cuda.Event.{attr}"] = torch.cuda.Event.__dict__.get(attr, getattr(torch.cuda.Event, attr))
        return out

    def patched(self) -> list[str]:
        """The timing functions that no longer are the ones captured before the import."""
        now = self._timing_functions()
        return sorted(k for k, v in self.originals.items() if now.get(k) is not v)

    def tasks(self) -> int:
        """The process's OS threads (native ones included, which ``_thread._count`` does not see)."""
        try:
            return len(self.listdir("/proc/self/task"))
        except OSError:
            return 0

    def send(self, **msg: Any) -> None:
        if os.getpid() != self.pid:  # a forked copy returning into the harness says nothing
            self.exit(0)
        self.write(self.fd, frame(msg))

    def wait_go(self) -> None:
        line = self.stdin.readline()
        if line.strip() != b"go":
            self.exit(3)

    def read_pick(self) -> int:
        """The parent's pick of the sampled elements, sent once a case's timed calls are over."""
        parts = self.stdin.readline().split()
        if len(parts) != 2 or parts[0] != b"pick" or not parts[1].isdigit():
            self.exit(3)
        return int(parts[1])


def _audit(child: _Child, workload_name: str, forbidden: Sequence[str], forks_limit: int) -> Callable[..., None]:
    """The hook that reports, when it happens, what a kernel has no business doing."""
    state = {"forks": 0, "notes": 0, "on": False}
    stems = {workload_name, "workload"}
    roots = tuple(r.rstrip("/") for r in forbidden if r)
    write, fd, pid = os.write, child.fd, child.pid

    def note(what: str, detail: str) -> None:
        if state["notes"] >= 50 or os.getpid() != pid:
            return
        state["notes"] += 1
        try:
            write(fd, frame({"t": "audit", "what": what, "detail": detail[:300]}))
        except Exception:
            state["notes"] = 50

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not state["on"]:
            return
        if event == "import" and args and str(args[0]).split(".")[0] in stems:
            note("reads_reference", f"import {args[0]}")
        elif event == "open" and args and isinstance(args[0], str | bytes):
            p = os.path.abspath(os.fsdecode(args[0]))
            if any(p == r or p.startswith(r + "/") for r in roots):
                note("course_file", p)
        elif event in ("socket.connect", "socket.sendto", "socket.getaddrinfo", "socket.gethostbyname"):
            note("network", f"{event} {args[1] if len(args) > 1 else ''}")
        elif event in ("os.fork", "os.forkpty", "os.posix_spawn", "subprocess.Popen", "os.system"):
            state["forks"] += 1
            if state["forks"] == forks_limit + 1:
                note("fork_bomb", f"more than {forks_limit} processes started ({event})")
        elif event in ("gc.get_objects", "gc.get_referrers", "gc.get_referents"):
            note("reads_reference", f"{event}: walked the heap")

    sys.addaudithook(hook)
    return lambda: state.update(on=True)


def _make(make: Callable[..., Any], case: dict[str, Any], seed: int, device: str) -> tuple[Any, ...]:
    x = make(dict(case), seed, device)
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def _describe(child: _Child, out: Any) -> dict[str, Any]:
    if child.exact(out) is not child.tensor_type:
        return {"ok": False, "type": f"{child.exact(out).__module__}.{child.exact(out).__qualname__}"}
    return {"ok": True, "shape": list(out.shape), "dtype": str(out.dtype).replace("torch.", ""),
            "device": out.device.type}


def _save(child: _Child, out: Any, path: str, budget: list[int], pick: int | None = None,
          sample_from: int = 0) -> dict[str, Any]:
    """Describe ``out`` and save its raw bytes (or, where it has more than ``sample_from`` elements and a
    ``pick`` is given, the elements of :func:`sample_indices`) for the parent to read."""
    info = _describe(child, out)
    if not info["ok"]:
        return info
    torch = child.torch
    try:
        flat = out.detach().reshape(-1)
        n = int(flat.numel())
        if pick is not None and 0 < sample_from < n:
            flat = flat[sample_indices(torch, n, pick, flat.device)]
            info["sampled"] = pick
        flat = flat.cpu()  # a copy where the layout needs one
        if flat.dtype == torch.bool:
            flat = flat.to(torch.uint8)
        raw = flat.view(torch.uint8).numpy()
    except Exception as exc:
        info.update(file=None, unsaved=f"{child.exact(exc).__name__}: {str(exc)[:200]}")
        return info
    if raw.nbytes > budget[0]:
        info.update(ok=True, file=None, skipped="output budget spent")
        return info
    budget[0] -= raw.nbytes
    raw.tofile(path)
    info["file"] = os.path.basename(path)
    return info


def _warm(child: _Child, fn: Callable[..., Any], warm: tuple[Any, ...], warmup: int, warmup_ms: float) -> None:
    """``warmup`` calls on the warm-up inputs, then more until ``warmup_ms`` have passed (at most 2,000)."""
    perf, sync = child.perf, child.sync
    for _ in range(warmup):
        fn(*warm)
    sync()
    t0, n = perf(), 0
    while (perf() - t0) * 1e3 < warmup_ms and n < 2000:
        fn(*warm)
        sync()
        n += 1


def _time_case(child: _Child, fn: Callable[..., Any], warm: tuple[Any, ...], timed: list[tuple[Any, ...]],
               refills: dict[int, tuple[Any, ...]], keep: set[int], flusher: Any) -> dict[str, Any]:
    """One call per entry of ``timed`` (a trap call refills ``warm`` in place first, outside the timed
    region), a device-wide sync after each: per-call in-process times, the most threads alive after a
    call, how long the device sync waited past the call's own stream, and copies of the ``keep`` outputs."""
    perf, sync, cuda = child.perf, child.sync, child.cuda
    cpu0 = child.cpu()
    late_wait = 0.0
    threads0, tasks0 = child.count_threads(), child.tasks()
    samples: list[float] = []
    outs: dict[int, Any] = {}
    extra_wait = 0.0
    threads_after = 0
    events = []
    for i, fresh in enumerate(timed):
        x = fresh
        if i in refills:  # the trap: same tensors as the warm-up, new values, no version bump
            for dst, src in zip(warm, refills[i], strict=True):
                dst.data.copy_(src)
            x = warm
        if flusher is not None:
            flusher.flush()
        sync()
        if cuda:
            start, end = child.Event(enable_timing=True), child.Event(enable_timing=True)
            child.spin()  # on the device before the start event: the launch below happens while it spins
            start.record()
            out = fn(*x)
            end.record()
            end.synchronize()
            tl = perf()
            child.current_stream().synchronize()  # work queued on the call's stream after its end event
            ta = perf()
            late_wait += ta - tl
            sync()  # what is left is on other streams
            extra_wait += perf() - ta
            events.append((start, end))
        else:
            ta = perf()
            out = fn(*x)
            samples.append((perf() - ta) * 1e3)
        if os.getpid() != child.pid:
            child.exit(0)
        threads_after = max(threads_after, child.count_threads() - threads0, child.tasks() - tasks0)
        if i in keep:  # a copy: a later trap refill must not change an output that aliases its input
            outs[i] = out.clone() if child.exact(out) is child.tensor_type else out
        del out
    sync()
    if cuda:
        samples = [float(s.elapsed_time(e)) for s, e in events]
    return {"samples": samples, "threads": threads_after, "extra_wait_ms": extra_wait * 1e3,
            "late_wait_ms": late_wait * 1e3, "cpu_ms": (child.cpu() - cpu0) * 1e3, "outs": outs}


def _flusher(child: _Child) -> Any:
    if not child.cuda:
        return None
    # lazy: the child's start is timed phase by phase; the parent imports this module without torch
    from autograder.bench.timing import L2Flusher  # bench's helper (CUDA only: a CPU has nothing to flush)

    l2 = int(getattr(child.torch.cuda.get_device_properties(child.device), "L2_cache_size", 0) or 0)
    return L2Flusher(child.device, l2)


def main(fd: int, idle_s: float = IDLE_S, cuda_ahead: bool = False) -> None:
    # lazy: the child's start is timed phase by phase; the parent imports this module without torch
    import faulthandler
    import gc
    import linecache
    import types

    faulthandler.enable()
    # lazy: the child's start is timed phase by phase; the parent imports this module without torch
    import select
    import time

    # torch (and Triton, where installed) first: a child started ahead of its submission has them imported
    # while it waits for its task (no student code exists yet, nor any task)
    t_boot = time.perf_counter()
    # lazy: the child's start is timed phase by phase; the parent imports this module without torch
    import importlib

    importlib.import_module("torch")
    try:
        importlib.import_module("triton")
    except Exception:  # no Triton, or one that cannot load here: the student's own import says so
        pass
    t_cuda = time.perf_counter()
    if cuda_ahead:
        # a child started ahead for a CUDA node makes its CUDA context now, while it waits for its task
        # (Limits.cuda_ahead): ~0.2-0.5 s a submission that would otherwise fall inside the device turn.
        # No kernel is launched here, and no student code exists yet
        try:
            importlib.import_module("torch").cuda.init()
            importlib.import_module("torch").empty(1, device="cuda")
        except Exception:  # no usable device: the task's own start says so, with its verdict
            pass
    t_up = time.perf_counter()
    os.write(fd, frame({"t": "up", "at": t_up}))
    if not select.select([0], [], [], idle_s)[0]:
        os._exit(0)  # never given a task: a child started ahead that nobody used leaves by itself
    line = sys.stdin.buffer.readline()
    if not line.strip():
        os._exit(0)  # the parent closed the pipe (it has gone, or it discarded this child)
    task = json.loads(line)
    # python -I ignores PYTHONPATH: the framework (which a workload and the L2 flush import) and its
    # dependencies are found where the parent found them
    for root in task.get("sys_path") or []:
        if root not in sys.path:
            sys.path.append(root)
    child = _Child(fd, task)
    torch = child.torch
    perf = child.perf
    phases: dict[str, float] = {"torch_import": t_cuda - t_boot, "idle": perf() - t_up}
    if cuda_ahead:
        phases["cuda_ahead"] = t_up - t_cuda  # the CUDA context made while waiting (hidden when ahead)
    if task.get("turn"):
        # the GPU is this submission's only once the parent says so: children of a pool start and import
        # side by side, but one at a time runs anything on the device (a timed loop never shares it)
        child.send(t="turn")
        line = child.stdin.readline()
        if line.strip() != b"begin":
            child.exit(3)
    t = perf()
    if child.cuda:
        frac = min(1.0, task["gpu_memory_mb"] * 2**20 / torch.cuda.get_device_properties(child.device).total_memory)
        torch.cuda.set_per_process_memory_fraction(frac, child.device)
        torch.empty(1, device=child.device)  # the CUDA context, unless it was made ahead
        phases["cuda_init"] = perf() - t
        t = perf()
    torch.set_num_threads(int(task.get("input_threads") or 1))  # making inputs may use a few cores
    child.send(t="hello", pid=child.pid)
    enable_audit = _audit(child, task["workload_name"], task.get("forbidden", []), int(task.get("forks", 32)))

    # 2. every input, from the hidden seed, before any student code
    wl = _load_workload(task["workload_source"], task["workload_name"])
    make = wl[task["make_inputs"]]
    dev, seed = task["device"], int(task["seed"])
    checks = [_make(make, c, call_seed(seed, "check", i, 0), dev) for i, c in enumerate(task["check_cases"])]
    calls, plans, cases = int(task["calls"]), [], []
    for ci, case in enumerate(task["cases"]):
        traps, saved = plan_calls(calls, seed, ci)
        warm = _make(make, case, call_seed(seed, "warm", ci, 0), dev)
        timed = [_make(make, case, call_seed(seed, "timed", ci, k), dev) if k not in traps else ()
                 for k in range(calls)]
        refills = {k: _make(make, case, call_seed(seed, "refill", ci, k), dev) for k in traps}
        cases.append((warm, timed, refills))
        plans.append((traps, saved))
    wl.clear()
    del make, wl
    gc.collect()
    flusher = _flusher(child)
    torch.set_num_threads(int(task.get("threads") or 1))  # timing: one intra-op thread (bench's CPU policy)
    phases["inputs"] = perf() - t

    # 3. the baseline of the parent's clock: the same loop, a function that does nothing
    t = perf()
    null: Callable[..., Any] = lambda *a: a[0]  # noqa: E731
    for ci, (warm, timed, refills) in enumerate(cases):
        _warm(child, null, warm, 1, 0.0)
        child.send(t="ready", phase="baseline", case=ci)
        child.wait_go()
        rb = _time_case(child, null, warm, timed, refills, set(plans[ci][1]), flusher)
        child.send(t="done", phase="baseline", case=ci, cpu_ms=rb["cpu_ms"])
    phases["baseline"] = perf() - t

    # 4. the student's code, in a fresh module
    t = perf()
    forks0 = child.count_threads()
    enable_audit()
    src = task["source"]
    name = "<submission>"
    linecache.cache[name] = (len(src), None, src.splitlines(keepends=True), name)
    mod = types.ModuleType("submission")
    mod.__file__ = name
    sys.modules["submission"] = mod
    try:
        exec(compile(src, name, "exec"), mod.__dict__)
    except BaseException as exc:
        child.send(t="error", phase="import", kind=child.exact(exc).__name__, message=str(exc)[:500])
        child.exit(0)
    phases["import"] = perf() - t
    fn = mod.__dict__.get(task["entry"])
    if not callable(fn):
        child.send(t="no_entry", entry=task["entry"], found=child.exact(fn).__name__ if fn is not None else None)
        child.exit(0)
    child.send(t="imported", threads=child.count_threads() - forks0)

    scratch = task["scratch"]
    budget = [int(task["output_bytes"])]
    sample_from = int(task.get("verify_sample_from") or 0)
    # correctness on the hidden check cases (the first call compiles)
    t = perf()
    compile_s = 0.0
    for i, x in enumerate(checks):
        phase = "check"
        tc = perf()
        th0, tk0 = child.count_threads(), child.tasks()
        try:
            out = fn(*x)
            child.sync()
            started = max(child.count_threads() - th0, child.tasks() - tk0, 0)
        except BaseException as exc:
            child.send(t="error", phase=phase, case=i, kind=child.exact(exc).__name__, message=str(exc)[:500])
            child.exit(0)
        if i == 0:
            compile_s = perf() - tc
        info = _save(child, out, os.path.join(scratch, f"check-{i}.bin"), budget)
        child.send(t="output", phase="check", case=i, call=0, seed=call_seed(seed, "check", i, 0), threads=started,
                   **info)
        del out
    phases["compile"] = compile_s
    phases["check"] = perf() - t - compile_s
    del checks

    # timing, case by case, between the parent's go and done
    t = perf()
    for ci, (warm, timed, refills) in enumerate(cases):
        traps, saved = plans[ci]
        try:
            _warm(child, fn, warm, int(task["warmup"]), float(task["warmup_ms"]))
            child.send(t="ready", phase="timed", case=ci)
            child.wait_go()
            r = _time_case(child, fn, warm, timed, refills, set(saved), flusher)
        except BaseException as exc:
            child.send(t="error", phase="timed", case=ci, kind=child.exact(exc).__name__, message=str(exc)[:500])
            child.exit(0)
        child.send(t="done", phase="timed", case=ci, samples=r["samples"], threads=r["threads"],
                   extra_wait_ms=r["extra_wait_ms"], late_wait_ms=r["late_wait_ms"], cpu_ms=r["cpu_ms"],
                   median=child.median(r["samples"]))
        pick = child.read_pick()  # which elements of a large output are checked: known only now
        # traps first (they catch replayed results), then the last and first calls, then the random ones:
        # when the output budget runs out it is the least telling ones that are not saved
        order = sorted(r["outs"], key=lambda k: (k not in traps, k != calls - 1, k != 0, k))
        for k in order:
            out = r["outs"][k]
            kind = "refill" if k in traps else "timed"
            info = _save(child, out, os.path.join(scratch, f"timed-{ci}-{k}.bin"), budget, pick, sample_from)
            child.send(t="output", phase="timed", case=ci, call=k, seed=call_seed(seed, kind, ci, k),
                       warm_seed=call_seed(seed, "warm", ci, 0), trap=k in traps, **info)
        del r, warm, timed, refills
        cases[ci] = ((), [], {})
    phases["timing"] = perf() - t
    alive = [th.name for th in child.threading.enumerate() if th is not child.threading.main_thread()]
    gpu_peak = int(child.max_reserved(child.device)) if child.cuda else 0
    child.send(t="end", patched=child.patched(), threads_alive=alive[:10], phases=phases, gpu_peak_bytes=gpu_peak)
    child.exit(0)


if __name__ == "__main__":
    main(int(sys.argv[-1]), float(sys.argv[-2]) if len(sys.argv) > 2 else IDLE_S,
         len(sys.argv) > 3 and sys.argv[-3] == CUDA_AHEAD_ARG)
