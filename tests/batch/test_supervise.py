"""Work items under a deadline in worker processes: a worker stuck in a blocking open() or dead is replaced,
its item reported as such, and the other items go on; time an item waits for a device turn is not counted."""

from __future__ import annotations

import os
import time
from pathlib import Path

from autograder.batch.supervise import Overrun, pause_deadline, run_supervised
from autograder.kernels import on_turn_wait
from autograder.kernels.runner import DeviceTurn

_STATE: dict[str, str] = {}


def _init(folder: str) -> None:
    _STATE["folder"] = folder


def _work(item: str) -> str:
    if item == "fifo":  # a plain open() of a FIFO nobody writes: blocks in the kernel, no signal gets it out
        with open(os.path.join(_STATE["folder"], "pipe"), "rb") as fh:
            return fh.read().decode()
    if item == "exit":
        os._exit(3)
    if item == "raise":
        raise ValueError("bad item")
    return item.upper()


def _run(tmp_path: Path, items: list[str], workers: int, deadline: float) -> dict[int, object]:
    os.mkfifo(tmp_path / "pipe")
    got: dict[int, object] = {}
    run_supervised(items, _work, got.__setitem__, init=_init, init_args=(str(tmp_path),), workers=workers,
                   deadline=deadline)
    return got


def test_a_blocked_item_is_stopped_at_the_deadline_and_the_rest_go_on(tmp_path):
    items = ["a", "fifo", "b", "c", "fifo", "d"]
    start = time.monotonic()
    got = _run(tmp_path, items, workers=2, deadline=1.0)
    assert time.monotonic() - start < 8
    assert {k: v for k, v in got.items() if not isinstance(v, Overrun)} == {
        0: ("ok", "A"), 2: ("ok", "B"), 3: ("ok", "C"), 5: ("ok", "D")}
    for k in (1, 4):
        o = got[k]
        assert isinstance(o, Overrun) and o.kind == "timeout" and 1.0 <= o.seconds < 4


def test_a_dead_worker_and_an_exception_are_reported_per_item(tmp_path):
    got = _run(tmp_path, ["a", "exit", "raise", "b"], workers=1, deadline=30)
    assert got[0] == ("ok", "A") and got[3] == ("ok", "B")
    assert got[2] == ("error", "ValueError: bad item")
    died = got[1]
    assert isinstance(died, Overrun) and died.kind == "died" and died.exitcode == 3


def test_without_a_deadline_everything_finishes(tmp_path):
    got = _run(tmp_path, [str(i) for i in range(20)], workers=2, deadline=0)
    assert got == {i: ("ok", str(i)) for i in range(20)}


def _init_turns(folder: str) -> None:
    _STATE["folder"] = folder
    on_turn_wait(pause_deadline)  # as the fast batch's workers do


def _turn_work(item: str) -> tuple[str, float]:
    """Hold the device turn (a real flock) for a while; the waiter asks for it only once the holder has it."""
    marker = Path(_STATE["folder"], "held")
    turn = DeviceTurn(f"test-{Path(_STATE['folder']).name}")
    if item == "wait":
        while not marker.exists():
            time.sleep(0.01)
    waited = turn.take(timeout_s=60)
    try:
        if item == "hold":
            marker.touch()
        time.sleep(2.4 if item == "hold" else 2.0)
    finally:
        turn.give()
    return item, waited


def test_waiting_for_the_device_turn_does_not_count_against_an_item_s_deadline(tmp_path):
    """Students' kernels take the one GPU in turns: on the H200 a local pool of 16 workers stopped submissions
    at the 60 s deadline while they waited for the others' GPU work. The wait stops the clock; the work does
    not: the waiter's wall time (~4.4 s) is past the 4 s deadline, its own time (2 s) is not."""
    got: dict[int, object] = {}
    t0 = time.monotonic()
    run_supervised(["hold", "wait"], _turn_work, got.__setitem__, init=_init_turns, init_args=(str(tmp_path),),
                   workers=2, deadline=4.0)
    assert got[0] == ("ok", ("hold", got[0][1][1])) and got[0][1][1] < 0.5  # type: ignore[index]
    assert isinstance(got[1], tuple) and got[1][0] == "ok", got[1]
    waited = got[1][1][1]
    assert waited > 2.0 and waited + 2.0 > 4.0 and time.monotonic() - t0 > 4.0


def _hog(item: str) -> str:
    time.sleep(5.0)  # not waiting for anything: its clock runs
    return item


def test_an_item_that_does_not_wait_is_still_stopped_at_its_deadline(tmp_path):
    got: dict[int, object] = {}
    run_supervised(["a"], _hog, got.__setitem__, init=_init_turns, init_args=(str(tmp_path),), workers=1,
                   deadline=1.0)
    assert isinstance(got[0], Overrun) and got[0].kind == "timeout"
