"""The two timing methods, on CUDA and on CPU.

``wall_per_call``: one call between two CUDA events (or perf_counter on CPU), as the lesson's student
times it.  On a fast GPU this measures CPU dispatch until the kernels outlast it.

``gpu_time``: device time without dispatch: a CUDA graph of K calls replayed and divided by K, inputs
rotated over enough buffers that the working set does not sit in L2.  On CPU there is no host/device
split; K back-to-back calls divided by K.

Both repeat until the spread is small or a time cap is hit, keeping every raw sample.

Both run under :func:`pinned_host`: on a GPU host the timing thread pinned to one core of the process's
allowed set (the last one); on a CPU torch's intra-op threads fixed (to one, by default).  Measured on an H200
host, an unpinned compiled call's per-call wall time moved between 62 and 315 µs from one fresh process
to the next while pinned ones stayed within 62–64 µs (benchmarks/gpu_probe_dispatch.py); on the 2-core CI
machine a threaded CPU op landed on 4/8 ms scheduler steps (a 2048² clone: 8.0 ms with 2 threads, 1.7 ms
with one).  On a CPU each sample also holds enough back-to-back calls to last ``cpu_min_sample_ms``, so
the timer and the scheduler resolve it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..records import summarize

__all__ = [
    "HostSetup", "L2Flusher", "TimingPolicy", "gpu_time", "pinned_host", "sample_layouts", "sample_until_stable",
    "wall_per_call",
]

Fn = Callable[..., object]
Inputs = tuple[torch.Tensor, ...]


@dataclass(frozen=True)
class TimingPolicy:
    warmup: int = 5
    min_samples: int = 15
    max_samples: int = 300
    target_iqr_rel: float = 0.02
    time_cap_s: float = 1.5
    graph_target_ms: float = 2.0
    #: a CUDA graph holds enough calls to last ``graph_target_ms`` (sized from a trial graph, not from
    #: dispatch-bound host timing): for a kernel of 2 µs that is ~1,000 calls, so the graph's own launch
    #: (~10 µs) and the per-graph layout of its buffers weigh < 1 % (with 256 calls, two graphs of one
    #: case built in one process differed by up to 29 % on an H200)
    max_graph_calls: int = 4096
    #: a graph sized to more than ``graph_min_calls_from`` calls (a kernel under ~4 µs) holds at least
    #: ``graph_min_calls``: on an H200, graphs of 960-1,019 calls of a 1.3 µs add replayed in two regimes
    #: (the median replay 4-25 % above the best: benchmarks/results/h200-2026-12-02c, calls 1-3), and at
    #: 1,100 calls the fp32 add's median still sat 2.2-5.8 % above its best of 30 on four leases; at 4,096
    #: calls (the per-call time of such a kernel converges, 1.72 µs a node for fp32 and bf16 adds alike) every
    #: such point was within 2 % (benchmarks/results/h200-2026-12-03d, probe)
    graph_min_calls: int = 4096
    graph_min_calls_from: int = 512
    #: after each sample that kept the GPU busy for more than ``cooldown_after_ms``, idle for ``cooldown``
    #: times its length: sustained matrix work drives an H200 into its power limit (SM 1,515 MHz against
    #: 1,980 at the start), so without pauses a long kernel's median depends on what ran before it
    cooldown: float = 1.0
    cooldown_after_ms: float = 0.5
    #: and after a sample busy for more than ``cooldown_floor_after_ms`` the pause lasts at least
    #: ``cooldown_floor_ms`` (0: no floor)
    cooldown_floor_ms: float = 0.0
    cooldown_floor_after_ms: float = 10.0
    rotate_factor: float = 4.0  # rotated buffers span this many L2 sizes
    #: a graph of at least ``layouts_from_calls`` calls (a kernel of a few µs) is captured this many times,
    #: one after another, each over its own copies of the inputs, and each capture is sampled to its own
    #: stop (its share of ``time_cap_s``) before the next is made; the samples of all of them are kept. On
    #: an H200, eight captures of one 1.3 µs add in one process had medians within 0.7–2.4 % of each other
    #: but one at -19 % (where its buffers landed): a median over one capture inherits such a layout, the
    #: median over five does not. (Captures sampled *in turn* measure something else: three graphs of
    #: ~1,500 nodes replayed alternately ran the add at 1.61–1.65 µs instead of 1.33–1.41.) From 16 calls
    #: (kernels up to ~125 µs): 04's eager fp16 2^24 chain, a graph of 30 calls, captured once, sat 0.6 %
    #: under three bench processes in both notebook runs of one lease (benchmarks/results/h200-2026-12-03c)
    graph_layouts: int = 5
    layouts_from_calls: int = 16
    #: device cycles spun (``torch.cuda._sleep``) before each graph replay's start event, so that the device
    #: is busy while the host launches the graph and the events time the graph's own work (0: no spin)
    graph_spin_cycles: int = 0
    pin_thread: bool = True  # on a GPU host, pin the timing thread to one core while timing
    cpu_threads: int | None = 1  # torch intra-op threads while timing on a CPU (None: leave as is)
    cpu_min_sample_ms: float = 2.0  # on a CPU, back-to-back calls per sample until a sample lasts this long
    #: on a CPU a sample is the best of this many runs of its back-to-back calls: on a loaded machine other
    #: processes take the core for whole scheduler ticks (4 ms), which only ever adds to a run
    cpu_best_of: int = 3
    #: on a CPU, which clock times a sample: "process" (CPU time of this process, all its threads: what
    #: other processes take from the core is not counted -- on the loaded 2-core CI machine wall-clock
    #: samples of one case still differed by 1.6x between runs, benchmarks/results/cpu-reference-drift-*)
    #: or "wall" (perf_counter)
    cpu_clock: str = "process"
    #: warm up for at least ``warmup`` calls *and* this long: on an H200 host the first compiled case of a
    #: process timed after 5 warm-up calls ran its calls at ~130 µs against ~69 µs for every later case
    warmup_ms: float = 25.0

    @classmethod
    def quick(cls) -> TimingPolicy:
        """For CI and notebooks on a CPU: fewer samples, shorter caps."""
        return cls(warmup=2, min_samples=7, max_samples=60, target_iqr_rel=0.05, time_cap_s=0.6, max_graph_calls=16)


@dataclass(frozen=True)
class HostSetup:
    """What :func:`pinned_host` fixed while timing (recorded with every measurement)."""

    pinned_cpu: int | None
    threads: int | None


@contextlib.contextmanager
def pinned_host(device: torch.device, policy: TimingPolicy) -> Iterator[HostSetup]:
    """On a GPU host, pin the calling thread to one core (the highest of its allowed set); on a CPU, fix
    torch's intra-op threads instead (the work itself runs there: pinned to one core of a busy 2-core
    machine it could not move off a core another process holds). Both are restored afterwards; where
    pinning is not possible the timing runs unpinned and the record says so (``pinned_cpu`` None)."""
    before_aff: set[int] | None = None
    core: int | None = None
    if policy.pin_thread and device.type == "cuda" and hasattr(os, "sched_setaffinity"):
        try:
            before_aff = set(os.sched_getaffinity(0))
            core = max(before_aff)
            os.sched_setaffinity(0, {core})
        except OSError:
            before_aff, core = None, None
    before_threads = torch.get_num_threads()
    threads: int | None = None
    if device.type == "cpu" and policy.cpu_threads is not None:
        torch.set_num_threads(policy.cpu_threads)
        threads = policy.cpu_threads
    elif device.type == "cpu":
        threads = before_threads
    try:
        yield HostSetup(pinned_cpu=core, threads=threads)
    finally:
        if threads is not None and threads != before_threads:
            torch.set_num_threads(before_threads)
        if before_aff is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before_aff)


def warm_up(fn: Fn, x: Inputs, policy: TimingPolicy) -> None:
    """``policy.warmup`` calls, then more until ``policy.warmup_ms`` have passed (at most 2,000 calls)."""
    device = _device(x)
    for _ in range(policy.warmup):
        fn(*x)
    _sync(device)
    t0 = time.perf_counter()
    n = 0
    while (time.perf_counter() - t0) * 1e3 < policy.warmup_ms and n < 2000:
        fn(*x)
        _sync(device)
        n += 1


class L2Flusher:
    """Evicts the last-level cache by zeroing a buffer larger than it, outside timed regions."""

    def __init__(self, device: torch.device, l2_bytes: int | None) -> None:
        self.l2_bytes = l2_bytes or 0
        size = max(256 << 20, 4 * self.l2_bytes) if device.type == "cuda" else 64 << 20
        self.buf = torch.empty(size, dtype=torch.uint8, device=device)

    def needed(self, working_set: int) -> bool:
        return self.buf.device.type == "cuda" and working_set < 2 * max(self.l2_bytes, 1)

    def flush(self) -> None:
        self.buf.zero_()


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _pause_ms(busy: float, policy: TimingPolicy) -> float:
    """The idle time after a sample that kept the device busy ``busy`` ms (see ``TimingPolicy.cooldown``)."""
    pause = busy * policy.cooldown
    if busy > policy.cooldown_floor_after_ms:
        pause = max(pause, policy.cooldown_floor_ms)
    return pause


def sample_until_stable(
    take: Callable[[], float], policy: TimingPolicy, busy_ms: Callable[[float], float] | None = None
) -> list[float]:
    """Call ``take`` until the relative IQR is under target (after min_samples) or a cap is hit.

    ``busy_ms(sample)`` says how long a sample kept the device busy; where it exceeds
    ``policy.cooldown_after_ms`` the loop idles ``policy.cooldown`` times as long before the next sample
    (the time cap counts the pauses)."""
    samples: list[float] = []
    t0 = time.perf_counter()
    while True:
        samples.append(take())
        if busy_ms is not None and policy.cooldown > 0:
            busy = busy_ms(samples[-1])
            if busy > policy.cooldown_after_ms:
                time.sleep(_pause_ms(busy, policy) / 1e3)
        n = len(samples)
        if n >= policy.max_samples or (n >= 3 and time.perf_counter() - t0 > policy.time_cap_s):
            return samples
        if n >= policy.min_samples and summarize(samples).iqr_rel <= policy.target_iqr_rel:
            return samples



def sample_layouts(
    capture: Callable[[int], Callable[[], float]],
    layouts: int,
    policy: TimingPolicy,
    busy_ms: Callable[[float], float] | None = None,
) -> list[float]:
    """Every sample of ``layouts`` captures, taken one capture after another: ``capture(j)`` makes the j-th
    (its own buffers) and gives its sampler, which :func:`sample_until_stable` runs to its own stop with
    an equal share of ``policy.time_cap_s``. Every capture is held until the last is sampled, so that the
    next one's buffers land elsewhere (a freed capture's memory would be handed to the next). With one
    layout this is :func:`sample_until_stable` of the one capture."""
    n = max(1, layouts)
    share = policy if n == 1 else dataclasses.replace(policy, time_cap_s=policy.time_cap_s / n)
    samples: list[float] = []
    held: list[Callable[[], float]] = []
    for j in range(n):
        held.append(capture(j))
        samples += sample_until_stable(held[-1], share, busy_ms=busy_ms)
    held.clear()
    return samples

def _nbytes(xs: Inputs) -> int:
    return sum(int(x.nbytes) for x in xs if isinstance(x, torch.Tensor))


def _device(xs: Inputs) -> torch.device:
    return next(x.device for x in xs if isinstance(x, torch.Tensor))


def wall_per_call(
    fn: Fn, x: Inputs, policy: TimingPolicy, flusher: L2Flusher | None = None, working_set: int = 0
) -> tuple[list[float], int]:
    """(ms-per-call samples, calls per sample): on CUDA one call per sample, dispatch included (flushing
    L2 before each when it would hold the data); on a CPU as many back-to-back calls as last
    ``cpu_min_sample_ms`` (a CPU has no dispatch to separate, and one short call does not resolve)."""
    device = _device(x)
    warm_up(fn, x, policy)
    flush = flusher is not None and flusher.needed(working_set)
    if device.type == "cuda":
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)

        def take() -> float:
            if flush:
                assert flusher is not None
                flusher.flush()
                torch.cuda.synchronize(device)
            start.record()
            fn(*x)
            end.record()
            end.synchronize()
            return float(start.elapsed_time(end))

        return sample_until_stable(take, policy, busy_ms=lambda ms: ms), 1

    est_ms = _fastest_call_ms(fn, x)
    k = max(1, min(10_000, math.ceil(policy.cpu_min_sample_ms / max(est_ms, 1e-4))))

    return sample_until_stable(_cpu_sample(fn, x, k, policy), policy), k


def _fastest_call_ms(fn: Fn, x: Inputs, tries: int = 3) -> float:
    """The fastest of ``tries`` single calls on the wall clock (ms): on a loaded machine one call can lose the
    core for a scheduler tick (4 ms), and a sample sized from that call would hold too few calls to resolve."""
    best = math.inf
    for _ in range(tries):
        t0 = time.perf_counter()
        fn(*x)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def _cpu_sample(fn: Fn, x: Inputs, k: int, policy: TimingPolicy) -> Callable[[], float]:
    """A CPU sample: ms per call of ``k`` back-to-back calls, the best of ``policy.cpu_best_of`` runs, on
    the process's CPU clock (or the wall clock, ``policy.cpu_clock``)."""

    clock = time.process_time if policy.cpu_clock == "process" else time.perf_counter

    def take() -> float:
        best = math.inf
        for _ in range(max(1, policy.cpu_best_of)):
            t = clock()
            for _ in range(k):
                fn(*x)
            best = min(best, clock() - t)
        return best * 1e3 / k

    return take


def _calls_for(est_ms: float, policy: TimingPolicy, graph: bool = True) -> int:
    """Calls per sample for a call of ``est_ms``: a CUDA graph's length (``graph``), or a CPU sample's."""
    k = max(2, min(policy.max_graph_calls, math.ceil(policy.graph_target_ms / max(est_ms, 1e-4))))
    if graph and k > policy.graph_min_calls_from:
        k = min(policy.max_graph_calls, max(k, policy.graph_min_calls))
    return k


def _graph_ms(fn: Fn, x: Inputs, device: torch.device, calls: int) -> float:
    """Device time of one replay of a CUDA graph of ``calls`` calls of ``fn`` (best of three replays)."""
    graph = _capture(fn, [x], calls, device)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    best = math.inf
    for _ in range(3):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        best = min(best, float(start.elapsed_time(end)))
    del graph
    return best


def _capture(fn: Fn, inputs: list[Inputs], k: int, device: torch.device) -> torch.cuda.CUDAGraph:
    """A CUDA graph of ``k`` calls of ``fn`` going round ``inputs`` (warmed on a side stream, replayed once)."""
    nbuf = len(inputs)
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for i in range(3):
            fn(*inputs[i % nbuf])
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(k):
            fn(*inputs[i % nbuf])
    graph.replay()
    return graph


def gpu_time(
    fn: Fn,
    x: Inputs,
    policy: TimingPolicy,
    l2_bytes: int | None = None,
    working_set: int = 0,
    calls: int | None = None,
) -> tuple[list[float], int, str]:
    """(ms-per-call samples, calls per sample, L2 policy in words) without CPU dispatch in the numbers.
    ``calls`` fixes the calls per sample (the graph's length on a GPU) instead of sizing it from a trial:
    a check that re-times a case the way a measurement did passes the measurement's ``calls_per_sample``."""
    device = _device(x)
    warm_up(fn, x, policy)
    if device.type != "cuda":
        est_ms = _fastest_call_ms(fn, x)
    else:
        t0 = time.perf_counter()
        for _ in range(3):
            fn(*x)
        _sync(device)
        est_ms = (time.perf_counter() - t0) * 1e3 / 3

    if device.type != "cuda":
        k = _calls_for(est_ms, policy, graph=False)
        k = max(k, min(10_000, math.ceil(policy.cpu_min_sample_ms / max(est_ms, 1e-4))))
        k = k if calls is None else max(1, calls)

        words = (
            f"cpu: best of {policy.cpu_best_of} runs of {k} back-to-back calls per sample, {policy.cpu_clock} clock "
            "(no host/device split)"
        )
        return sample_until_stable(_cpu_sample(fn, x, k, policy), policy), k, words

    # the device time of one call, from a small trial graph: host timing of a kernel shorter than its
    # dispatch says only how long the dispatch takes, and a graph sized from it is too short
    # (a call that outlasts the graph's target is long enough to be timed from the host estimate)
    if calls is not None:
        k = max(1, calls)
    else:
        per_call = est_ms if est_ms > policy.graph_target_ms else min(est_ms, _graph_ms(fn, x, device, 8) / 8)
        k = _calls_for(per_call, policy)
    l2 = l2_bytes or 0
    nbuf = 1
    if working_set and working_set < policy.rotate_factor * l2:
        nbuf = min(k, math.ceil(policy.rotate_factor * l2 / max(_nbytes(x), 1)))
    layouts = max(1, policy.graph_layouts) if k >= policy.layouts_from_calls else 1

    def copies(n: int) -> list[Inputs]:
        return [tuple(t.clone() if isinstance(t, torch.Tensor) else t for t in x) for _ in range(n)]

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    spin = max(0, policy.graph_spin_cycles)

    def capture(j: int) -> Callable[[], float]:
        # each capture's inputs stay alive while its graph is sampled (a graph replays on the tensors it was
        # captured with); the first capture runs on the caller's own inputs
        inputs = [x, *copies(nbuf - 1)] if j == 0 else copies(nbuf)
        graph = _capture(fn, inputs, k, device)
        torch.cuda.synchronize(device)

        def take() -> float:
            assert inputs
            if spin:
                torch.cuda._sleep(spin)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            return float(start.elapsed_time(end)) / k

        return take

    samples = sample_layouts(capture, layouts, policy, busy_ms=lambda ms: ms * k)
    span = nbuf * _nbytes(x)
    words = (
        f"cuda graph of {k} calls over {nbuf} rotated input buffers ({span / 2**20:.0f} MiB vs L2 {l2 / 2**20:.0f} MiB)"
        + (f", {layouts} captures sampled one after another" if layouts > 1 else "")
    )
    return samples, k, words
