"""The host setup timing runs under, and how many calls a CPU sample holds (autograder.bench.timing)."""

import os
import statistics
import time
from dataclasses import replace

import pytest
import torch

from autograder.bench.clocks import bring_to_steady, sm_clock_mhz
from autograder.bench.timing import TimingPolicy, gpu_time, pinned_host, wall_per_call, warm_up


def test_on_a_cpu_torch_threads_are_fixed_while_timing_and_restored():
    before, aff = torch.get_num_threads(), os.sched_getaffinity(0)
    with pinned_host(torch.device("cpu"), TimingPolicy()) as host:
        assert torch.get_num_threads() == 1 and host.threads == 1
        assert host.pinned_cpu is None and os.sched_getaffinity(0) == aff  # the work runs here: not pinned
    assert torch.get_num_threads() == before


def test_on_a_gpu_host_the_timing_thread_is_pinned_and_released():
    aff = os.sched_getaffinity(0)
    with pinned_host(torch.device("cuda"), TimingPolicy()) as host:  # pinning needs no GPU
        assert host.pinned_cpu == max(aff) and os.sched_getaffinity(0) == {max(aff)}
        assert host.threads is None
    assert os.sched_getaffinity(0) == aff
    with pinned_host(torch.device("cuda"), TimingPolicy(pin_thread=False)) as host:
        assert host.pinned_cpu is None and os.sched_getaffinity(0) == aff


def _sleeper(ms, clock=time.perf_counter):
    def fn(x):
        t = clock()
        while (clock() - t) * 1e3 < ms:
            pass
        return x

    return fn


def test_a_cpu_sample_holds_enough_calls_to_resolve():
    """A 0.1 ms call is timed 20+ at a time (2 ms samples), not one by one under the scheduler's tick."""
    x = (torch.zeros(4),)
    samples, k = wall_per_call(_sleeper(0.1), x, TimingPolicy.quick())
    assert k >= 10 and len(samples) >= 3
    # ms per call: none under the spin, and the typical sample near it (a sample the scheduler took the core
    # from, on a loaded CI machine, may hold a descheduling: it is the median the harness reports)
    assert min(samples) > 0.09 and statistics.median(samples) < 1.0, samples
    # a CPU sample is timed on the process's CPU clock: the call spins for 0.1 ms of that clock (a spin on the
    # wall clock takes less CPU time whenever another process has the core)
    gs, gk, words = gpu_time(_sleeper(0.1, time.process_time), x, TimingPolicy.quick())
    assert gk >= 10 and "cpu" in words and all(0.09 < s < 1.0 for s in gs)


def test_a_check_can_time_a_case_with_the_calls_per_sample_of_a_measurement():
    """``calls`` fixes a sample's length (the steady-clock check re-times a case as its measurement did)."""
    calls = []

    def fn(x):
        calls.append(1)
        return x

    x = (torch.zeros(4),)
    policy = replace(TimingPolicy.quick(), min_samples=3, max_samples=3, warmup=1, warmup_ms=0.0, cpu_best_of=1)
    samples, k, _ = gpu_time(fn, x, policy, calls=7)
    assert k == 7 and len(samples) == 3
    calls.clear()
    gpu_time(fn, x, policy)
    assert len(calls) > 3 * 7  # sized from its own trial: thousands of calls of a no-op per 2 ms sample


def test_warm_up_lasts_its_calls_and_its_time():
    calls = []
    spin = _sleeper(0.05)

    def fn(x):
        calls.append(1)
        return spin(x)

    t = time.perf_counter()
    warm_up(fn, (torch.zeros(1),), TimingPolicy(warmup=3, warmup_ms=20.0))
    assert len(calls) > 3 and (time.perf_counter() - t) * 1e3 >= 20.0


@pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU fallback")
def test_clocks_on_a_cpu_read_nothing_and_warm_nothing():
    state = bring_to_steady(torch.device("cpu"))
    assert state.steady and state.after_mhz is None and state.seconds == 0.0
    assert sm_clock_mhz(torch.device("cpu")) is None
    assert "not readable" in state.describe()


def test_long_samples_are_followed_by_a_pause_and_short_ones_are_not():
    """Sustained long kernels drive a GPU into its power limit: after a sample that kept the device busy
    for longer than ``cooldown_after_ms`` the sampler idles ``cooldown`` times as long (the cap counts it)."""
    from autograder.bench.timing import sample_until_stable

    def run(busy_ms: float, cooldown: float) -> float:
        policy = TimingPolicy(min_samples=5, max_samples=5, cooldown=cooldown, cooldown_after_ms=0.5)
        t = time.perf_counter()
        samples = sample_until_stable(lambda: busy_ms, policy, busy_ms=lambda ms: ms)
        assert samples == [busy_ms] * 5
        return (time.perf_counter() - t) * 1e3

    assert run(20.0, 1.0) >= 5 * 20.0  # five pauses of 20 ms
    assert run(20.0, 0.0) < 20.0  # no pauses asked
    assert run(0.2, 1.0) < 20.0  # a short sample needs none


def test_after_a_long_sample_the_pause_has_a_floor_and_a_short_one_keeps_its_own():
    """A multiply of tens of ms runs into an H200's power limit even with a pause as long as itself: after a
    sample busy for more than ``cooldown_floor_after_ms`` the pause lasts at least ``cooldown_floor_ms``."""
    from autograder.bench.timing import _pause_ms, sample_until_stable

    p = TimingPolicy(cooldown=1.0, cooldown_floor_ms=250.0, cooldown_floor_after_ms=10.0)
    assert _pause_ms(46.0, p) == 250.0  # two 23 ms calls: the floor
    assert _pause_ms(400.0, p) == 400.0  # longer than the floor: as long as the sample
    assert _pause_ms(5.0, p) == 5.0  # under the floor's threshold: as long as the sample
    assert _pause_ms(46.0, replace(p, cooldown_floor_ms=0.0)) == 46.0
    assert _pause_ms(46.0, replace(p, cooldown=3.0)) == 250.0 and _pause_ms(100.0, replace(p, cooldown=3.0)) == 300.0
    policy = replace(p, min_samples=3, max_samples=3, cooldown_floor_ms=60.0)
    t = time.perf_counter()
    sample_until_stable(lambda: 12.0, policy, busy_ms=lambda ms: ms)
    assert (time.perf_counter() - t) * 1e3 >= 3 * 60.0


def test_a_cpu_sample_counts_the_process_cpu_time_not_time_away_from_the_core():
    """Time the process spends off the CPU (here sleeping; on a loaded machine, waiting for a core other
    processes hold) is not counted by the default CPU clock; the wall clock counts it."""

    def off_core(x):
        time.sleep(0.002)
        return x

    x = (torch.zeros(4),)
    cpu, _ = wall_per_call(off_core, x, TimingPolicy.quick())
    wall, _ = wall_per_call(off_core, x, replace(TimingPolicy.quick(), cpu_clock="wall"))
    assert max(cpu) < 0.5 and min(wall) > 1.9


def test_captures_are_sampled_one_after_another_each_to_its_own_stop_and_all_held():
    """``sample_layouts``: capture j is made only after capture j-1 has all its samples, every capture is held
    until the last is sampled (so the next one's buffers land elsewhere), each gets an equal share of the
    time cap, and the samples of all are kept: one capture at -19 % moves the median of five by nothing."""
    from autograder.bench.timing import sample_layouts
    from autograder.records import summarize

    events: list[str] = []
    alive: list[int] = []
    values = [1.33, 1.08, 1.35, 1.34, 1.36]  # ms per call of five captures (the second landed well)

    class Take:
        def __init__(self, j):
            self.j = j
            alive.append(j)

        def __call__(self):
            events.append(f"s{self.j}")
            assert alive == list(range(self.j + 1))  # the earlier captures are still held
            return values[self.j]

        def __del__(self):
            alive.remove(self.j)

    def capture(j):
        events.append(f"c{j}")
        return Take(j)

    policy = TimingPolicy(min_samples=4, max_samples=4, time_cap_s=10.0)
    samples = sample_layouts(capture, 5, policy)
    assert len(samples) == 20 and alive == []  # all let go at the end
    # one capture after another: c0 s0 s0 s0 s0 c1 s1 ...
    assert events == [e for j in range(5) for e in [f"c{j}"] + [f"s{j}"] * 4]
    assert summarize(samples).median == pytest.approx(1.34)
    one = sample_layouts(capture, 1, policy)
    assert one == [1.33] * 4

    # the time cap is shared: a capture that never settles stops after its share (0.05 s of 0.2), not after the
    # whole cap; a sample lasts at least 2 ms, so a capture holds at most 26 samples (101 with the whole cap)
    slow_policy = TimingPolicy(min_samples=3, max_samples=10_000, target_iqr_rel=0.0, time_cap_s=0.2)
    counts: list[int] = []

    def noisy(j):
        counts.append(0)

        def take():
            time.sleep(0.002)
            counts[-1] += 1
            return float(counts[-1] % 7)

        return take

    assert len(sample_layouts(noisy, 4, slow_policy)) == sum(counts)
    assert len(counts) == 4 and all(3 <= c <= 26 for c in counts)


def test_a_graph_of_a_kernel_of_a_few_us_holds_at_least_the_minimum_of_calls():
    """Graphs of ~1,000 calls of a 1.3 µs add replayed in two regimes on an H200, longer ones did not: a graph
    sized to more than ``graph_min_calls_from`` calls is lengthened to ``graph_min_calls``; shorter graphs
    (longer kernels) and the cap are left as they are."""
    from autograder.bench.timing import _calls_for

    p = TimingPolicy()
    assert _calls_for(0.0013, p) == 4096  # 1,539 calls sized: lengthened to the minimum
    assert _calls_for(0.0021, p) == 4096  # 953 calls sized: lengthened
    assert _calls_for(0.0035, p) == 4096  # 572 sized: lengthened
    assert _calls_for(0.0045, p) == 445  # 445 sized (under the threshold of 512): its own
    assert _calls_for(0.005, p) == 400  # a 5 µs kernel: its own 400
    assert _calls_for(0.0013, replace(p, graph_min_calls=1100)) == 1539  # already longer than a lower minimum
    assert _calls_for(5.0, p) == 2
    assert _calls_for(0.0021, replace(p, max_graph_calls=1000)) == 1000  # the cap still holds
    assert _calls_for(0.0021, TimingPolicy.quick()) == 16
    assert _calls_for(0.0021, p, graph=False) == 953  # a CPU sample: no graph, no minimum
