"""The host setup timing runs under, and how many calls a CPU sample holds (autograder.bench.timing)."""

import os
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
    assert all(0.09 < s < 1.0 for s in samples)  # ms per call
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
