"""Work items under a deadline in worker processes: a worker stuck in a blocking open() or dead is replaced,
its item reported as such, and the other items go on."""

from __future__ import annotations

import os
import time
from pathlib import Path

from autograder.batch.supervise import Overrun, run_supervised

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
