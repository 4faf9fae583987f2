"""WarmStart: each submission still gets a fresh child in a fresh sandbox, the next one started ahead.

A child started ahead serves exactly one submission; a hang or a crash of one leaves the next untouched; a
child started ahead that is never used is killed, with everything it started (checked with psutil)."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

import psutil
import pytest

from autograder.isolation import bwrap_available
from autograder.kernels import WarmStart
from autograder.kernels.runner import Shape, spawn

from .conftest import make_task, source_of

#: a kernel that is wrong whenever its process or its /tmp saw a submission before it
NOSY = """import os
import tempfile

import torch

_mark = os.path.join(tempfile.gettempdir(), "a-submission-was-here")
_seen = getattr(torch, "_a_submission_was_here", False) or os.path.exists(_mark)
torch._a_submission_was_here = True
open(_mark, "w").close()


def fused_chain(x):
    out = torch.relu(x * 2 + 1) * 0.5
    return out + 1.0 if _seen else out
"""


def _family(pid: int) -> list[psutil.Process]:
    """The process and everything it started (bubblewrap's sandbox included)."""
    try:
        p = psutil.Process(pid)
        return [p, *p.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _gone(procs: list[psutil.Process], timeout: float = 30.0) -> bool:
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    return not [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def _up(warm: WarmStart, timeout: float = 120.0) -> None:
    """Wait until the child started ahead has imported torch (its ``up`` is on the pipe, left unread)."""
    waiting = warm.waiting
    assert waiting is not None and waiting.proc is not None
    assert select.select([waiting.msg_r], [], [], timeout)[0], "the child started ahead never came up"


@pytest.mark.parametrize("isolate", [False, pytest.param(True, marks=pytest.mark.skipif(
    not bwrap_available(), reason="bubblewrap is not installed"))])
def test_a_child_started_ahead_serves_exactly_one_submission(isolate: bool) -> None:
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with WarmStart(isolate=isolate, ahead=1) as warm:
        first = warm.run(make_task(NOSY))
        assert first.verdict == "ok", first.reason
        ahead = warm.waiting
        assert ahead is not None and ahead.proc is not None and not ahead.used
        folder, pid = ahead.base, ahead.proc.pid
        _up(warm)
        time.sleep(0.5)
        second = warm.run(make_task(NOSY))
        # it was the child started ahead that served it: used, gone, its folder removed; another one waits
        assert second.verdict == "ok", second.reason  # a fresh process and /tmp: it saw no other submission
        assert ahead.used and ahead.proc.poll() is not None and not folder.exists()
        assert not ahead.fits(Shape.of(make_task(NOSY), isolate), 600.0)
        nxt = warm.waiting
        assert nxt is not None and nxt is not ahead and nxt.proc is not None and nxt.proc.pid != pid
        assert nxt.base != folder
        # its start was behind the first submission: the wall time counts from its task, not its spawn
        assert second.phases["idle"] > 0.4 and second.phases["child_start"] < second.phases["boot"]
        assert second.phases["child_start"] < first.phases["child_start"]
        third = warm.run(make_task(NOSY))
        assert third.verdict == "ok", third.reason
    assert _gone([p for p in psutil.Process().children(recursive=True) if p.pid not in before])


def test_a_hang_or_a_crash_does_not_touch_the_child_started_ahead() -> None:
    wall = 10.0  # the same limits for all (a child is started ahead for a task of the same shape)
    with WarmStart(isolate=bwrap_available(), ahead=1) as warm:
        # each submission's child is up before its task is sent: on a loaded machine a child's start (torch
        # imported in a sandbox) alone can take longer than the wall time, which counts from the task sent
        assert warm.prime(make_task(source_of("correct_torch"), wall_s=wall)) == 1
        _up(warm)
        first = warm.run(make_task(source_of("correct_torch"), wall_s=wall))
        assert first.verdict == "ok", first.reason
        assert first.phases["child_start"] < first.phases["boot"]  # the primed child served it
        _up(warm)
        hang = make_task(source_of("infinite_loop"), wall_s=wall)
        ahead = warm.waiting
        assert ahead is not None and ahead.proc is not None
        r = warm.run(hang)  # its own child: the one started ahead for it, killed at its deadline
        assert (r.verdict, r.family) == ("timeout", "hang"), r.reason
        assert ahead.used and ahead.proc.poll() is not None
        nxt = warm.waiting  # started while the hang ran, and left alone by its kill
        assert nxt is not None and nxt.proc is not None and nxt.proc.poll() is None
        _up(warm)
        crash = warm.run(make_task(source_of("segfault"), wall_s=wall))
        assert (crash.verdict, crash.family) == ("crashed", "segfault"), crash.reason
        assert nxt.used
        after = warm.waiting
        assert after is not None and after.proc is not None and after.proc.poll() is None
        _up(warm)
        ok = warm.run(make_task(source_of("correct_torch"), wall_s=wall))
        assert ok.verdict == "ok", ok.reason
        assert after.used and ok.phases["child_start"] < ok.phases["boot"]


def test_children_started_ahead_and_never_used_are_killed_with_all_they_started() -> None:
    warm = WarmStart(isolate=bwrap_available(), ahead=2)
    assert warm.run(make_task(source_of("correct_torch"))).verdict == "ok"
    queued = warm.queued
    assert len(queued) == 2 and all(s.proc is not None for s in queued)
    assert len({s.proc.pid for s in queued if s.proc}) == 2 and len({s.base for s in queued}) == 2
    _up(warm)
    family = [p for s in queued if s.proc for p in _family(s.proc.pid)]
    assert len(family) >= 2 and all(p.is_running() for p in family)
    warm.close()
    assert warm.waiting is None and all(s.proc and s.proc.poll() is not None for s in queued)
    assert not any(s.base.exists() for s in queued)
    assert _gone(family, timeout=10.0), [p.cmdline()[:2] for p in family if p.is_running()]
    warm.close()  # twice: nothing left to do


def test_a_child_started_ahead_for_another_shape_is_killed_and_a_fresh_one_serves() -> None:
    with WarmStart(isolate=False, ahead=1) as warm:
        assert warm.run(make_task(source_of("correct_torch"))).verdict == "ok"
        ahead = warm.waiting
        assert ahead is not None and ahead.proc is not None
        family = _family(ahead.proc.pid)
        r = warm.run(make_task(source_of("correct_torch"), wall_s=30.0))  # other limits: another shape
        assert r.verdict == "ok", r.reason
        assert ahead.proc.poll() is not None and _gone(family, timeout=10.0)
        assert "idle" in r.phases and r.phases["idle"] < 0.5  # a child started for it, not the one ahead


def test_a_child_with_no_task_leaves_by_itself() -> None:
    """Past its idle time, or when the pipe of its task closes (its parent has gone), a child started ahead
    exits on its own: nothing is left behind even if the grader never closes it."""
    shape = Shape.of(make_task(""), isolate=False)
    idle = spawn(shape, idle_s=1.0)
    orphan = spawn(shape)
    try:
        assert idle.proc is not None and orphan.proc is not None
        assert orphan.proc.stdin is not None
        orphan.proc.stdin.close()
        t0 = time.perf_counter()
        assert idle.proc.wait(timeout=120) == 0 and orphan.proc.wait(timeout=120) == 0
        assert time.perf_counter() - t0 < 120
    finally:
        idle.discard()
        orphan.discard()
    assert not Path(idle.base).exists() and not os.path.exists(orphan.base)


def test_a_task_longer_than_the_pipe_s_buffer_reaches_a_child_still_importing() -> None:
    """A cold child reads its task only once torch is imported: a long one is sent without blocking the
    parent, which watches the deadline meanwhile."""
    from autograder.kernels import run_submission

    long = source_of("correct_torch") + "\n" + "# padding\n" * 20000  # 200 KB
    r = run_submission(make_task(long), isolate=False)
    assert r.verdict == "ok", r.reason


def test_a_child_started_ahead_for_a_cuda_node_makes_its_cuda_context_while_it_waits_only_when_asked() -> None:
    """Limits.cuda_ahead (off by default: a context made while another submission is timed disturbs the
    grader's clock of that one): when asked, the CUDA context is made before the task comes (outside the
    device turn), so the submission's own cuda_init is short. On a CPU machine the flag still reaches the
    child, whose failed CUDA start is harmless: it serves its CPU task and says how long the try took."""
    from autograder.kernels import Limits
    from autograder.kernels.runner import _plan, _result

    task = make_task(source_of("correct_torch"))
    shape = Shape.of(task, bwrap_available())
    assert not shape.cuda_ahead and not Limits().cuda_ahead
    assert not Shape.of(make_task(source_of("correct_torch"), device="cuda"), True).cuda_ahead
    asked = Limits(cuda_ahead=True)
    assert Shape.of(make_task(source_of("correct_torch"), device="cuda", limits=asked), True).cuda_ahead
    assert not Shape.of(make_task(source_of("correct_torch"), device="cpu", limits=asked), True).cuda_ahead
    forced = Shape(**{**shape.__dict__, "cuda_ahead": True})
    started = spawn(forced)
    assert started.proc is not None and "cuda-ahead" in started.proc.args
    r = _result(task, started, _plan(task), time.perf_counter())
    assert r.verdict == "ok", r.reason
    assert "cuda_ahead" in r.phases and r.phases["cuda_ahead"] >= 0.0
    if task.device == "cuda":  # KERNELS_DEVICE=cuda: the context was there when the task came
        assert r.phases["cuda_init"] < r.phases["cuda_ahead"], r.phases
    plain = spawn(shape if task.device != "cuda" else Shape(**{**shape.__dict__, "cuda_ahead": False}))
    assert plain.proc is not None and "cuda-ahead" not in plain.proc.args
    r2 = _result(task, plain, _plan(task), time.perf_counter())
    assert r2.verdict == "ok" and "cuda_ahead" not in r2.phases
