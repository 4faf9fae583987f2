"""The hostile-kernel suite: every family GPU leaderboards were beaten with, and the honest submissions,
each run through run_submission (a real child process in real bubblewrap) with its own verdict."""

from __future__ import annotations

import importlib.util

import pytest

from autograder.isolation import bwrap_available

from .conftest import DEVICE, grade_all, graded

#: source in tests/kernels/hostile/ -> (verdict, family)
EXPECTED: dict[str, tuple[str, str | None]] = {
    "correct_torch": ("ok", None),
    "slow_correct": ("ok", None),
    "wrong": ("wrong", "values"),
    "blank_missing": ("no_entry", "missing"),
    "blank_not_implemented": ("no_entry", "blank"),
    "timer_patched": ("gamed", "timer_patched"),
    "stats_patched": ("gamed", "timer_patched"),
    "cached_ptr": ("wrong", "cached_result"),
    "cached_version": ("wrong", "cached_result"),
    "lazy_output": ("gamed", "lazy_output"),
    "thread": ("gamed", "thread"),
    # its threads decide, not the error they lead to in the timed loop (on the H200 a kernel starting one per
    # call crashed or was caught as a thread from one copy to the next)
    "thread_exhausted": ("gamed", "thread"),
    "shape_special": ("wrong", "shape_special"),
    "reads_reference_gc": ("gamed", "reads_reference"),
    "reads_reference_module": ("gamed", "reads_reference"),
    "writes_reference": ("gamed", "reads_reference"),
    "precision": ("wrong", "precision"),
    "segfault": ("crashed", "segfault"),
    "huge_allocation": ("out_of_memory", "memory"),
    "fork_bomb": ("gamed", "fork_bomb"),
    "network": ("gamed", "network"),
    "course_file": ("gamed", "course_file"),
    "forged_message": ("gamed", "forged_message"),
    "deferred_past_timer": ("gamed", "clock_disagreement"),
    "meta_output": ("wrong", "output_format"),
}

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")


@pytest.fixture(scope="module", autouse=True)
def _the_class() -> None:
    """The whole suite graded up front by a pool of three, the slowest (the hang) first."""
    extra = ["other_stream"] if DEVICE == "cuda" else []
    grade_all(["infinite_loop", "correct_triton", *sorted(EXPECTED), *extra])


def _show(name: str) -> str:
    r = graded(name)
    return f"{name}: {r.verdict}/{r.family}: {r.reason}"


#: on CUDA a profile hook's first C return after the call may come before the end event is recorded: then
#: the work is inside the timed region and the honest verdict is ok
ALSO_ON_CUDA = {"deferred_past_timer": ("ok", None)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_family_gets_its_own_verdict(name: str) -> None:
    r = graded(name)
    print(f"{DEVICE} {_show(name)} ({r.seconds:.1f} s)")
    allowed = {EXPECTED[name]} | ({ALSO_ON_CUDA[name]} if DEVICE == "cuda" and name in ALSO_ON_CUDA else set())
    assert (r.verdict, r.family) in allowed, _show(name)
    assert r.reason and "\n" not in r.reason
    if r.verdict == "ok":
        assert r.cases and all(c.measurement is not None and c.max_error == 0.0 for c in r.cases)
        assert all(c.external_ms is not None for c in r.cases)
    else:
        assert not any(c.measurement for c in r.cases) or r.verdict == "gamed"  # no credit without a verdict ok


def test_correct_triton_kernel_runs_and_is_ok() -> None:
    if importlib.util.find_spec("triton") is None:
        pytest.fail("triton is not installed: the Triton path is part of the suite (pip install triton)")
    r = graded("correct_triton")
    assert (r.verdict, r.family) == ("ok", None), _show("correct_triton")
    assert r.phases["compile"] > 0 and r.cases[0].measurement is not None


def test_slow_but_correct_is_measured_slower() -> None:
    fast, slow = graded("correct_torch"), graded("slow_correct")
    assert fast.cases[0].measurement is not None and slow.cases[0].measurement is not None
    assert slow.cases[0].measurement.median_ms > 5 * fast.cases[0].measurement.median_ms


def test_infinite_loop_is_a_timeout_and_is_killed() -> None:
    r = graded("infinite_loop")
    assert (r.verdict, r.family) == ("timeout", "hang"), _show("infinite_loop")
    assert r.seconds < 25


def test_other_stream(cuda_only: None) -> None:
    r = graded("other_stream")
    assert (r.verdict, r.family) == ("gamed", "other_stream"), _show("other_stream")
