"""Run work items in worker processes, each item under a deadline.

A worker that takes longer than the deadline over one item, or that dies on it, is killed and replaced; that
item's result is an :class:`Overrun` saying which and after how long, and the other items go on. A blocking
``open()``, a regular expression that backtracks for hours or a C extension stuck in a loop cannot be
interrupted from inside a process (a signal handler runs only between bytecodes); killing the process can.
Items are handed out one at a time, so a slow item holds up only its own worker.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Literal

__all__ = ["Overrun", "run_supervised"]


@dataclass(frozen=True)
class Overrun:
    """An item whose worker was stopped: ``timeout`` (killed at the deadline) or ``died`` (exited by itself,
    e.g. killed for memory), after ``seconds``; ``exitcode`` of the worker where it had one."""

    kind: Literal["timeout", "died"]
    seconds: float
    exitcode: int | None = None


Result = tuple[Literal["ok"], Any] | tuple[Literal["error"], str]


_conn: Connection | None = None  # in a worker process: its pipe to the supervisor


def pause_deadline(paused: bool) -> None:
    """Called from ``work(item)`` in a worker: stop (True) or restart (False) the item's deadline clock, for
    time the item spends waiting on a resource the other items hold (a GPU's turn). Nothing outside a worker."""
    if _conn is not None:
        _conn.send(("clock", paused))


def _worker(
    conn: Connection, init: Callable[..., None], init_args: tuple[Any, ...], work: Callable[[Any], Any]
) -> None:
    global _conn
    _conn = conn
    init(*init_args)
    conn.send(("ready", None))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        index, item = msg
        try:
            result: Result = ("ok", work(item))
        except Exception as exc:  # reported for this item; the worker goes on
            result = ("error", f"{type(exc).__name__}: {exc}")
        conn.send((index, result))


@dataclass
class _Slot:
    proc: BaseProcess
    conn: Connection
    ready: bool = False
    current: int | None = None
    started: float = 0.0
    paused_at: float | None = None  # the item's deadline clock stopped (pause_deadline) since then


def run_supervised(
    items: Sequence[Any],
    work: Callable[[Any], Any],
    on_result: Callable[[int, Result | Overrun], None],
    *,
    init: Callable[..., None],
    init_args: tuple[Any, ...] = (),
    workers: int = 1,
    deadline: float = 0.0,
) -> None:
    """Call ``work(item)`` for every item in ``workers`` processes (each started with ``init(*init_args)``)
    and ``on_result(index, result)`` in this process as each finishes: ``("ok", value)``, ``("error", why)``
    for an exception, or an :class:`Overrun`. ``deadline`` (seconds, 0: none) bounds each item."""
    ctx = multiprocessing.get_context()
    pending = deque(enumerate(items))
    slots: list[_Slot] = []

    def spawn() -> _Slot:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, init, init_args, work), daemon=True)
        proc.start()
        child.close()
        return _Slot(proc, parent)

    def feed(slot: _Slot) -> None:
        if not pending:
            slot.current = None
            try:
                slot.conn.send(None)
            except OSError:
                pass
            return
        index, item = pending.popleft()
        slot.current, slot.started, slot.paused_at = index, time.monotonic(), None
        try:
            slot.conn.send((index, item))
        except OSError:  # the worker is gone before it got the item: the item waits for another worker
            pending.appendleft((index, item))
            slot.current = None

    def stop(slot: _Slot, kind: Literal["timeout", "died"]) -> None:
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join()
        slot.conn.close()
        slots.remove(slot)
        if not slot.ready:
            raise RuntimeError(f"a grading worker failed to start (exit code {slot.proc.exitcode})")
        if slot.current is not None:
            on_result(slot.current, Overrun(kind, time.monotonic() - slot.started, slot.proc.exitcode))
        if pending:
            slots.append(spawn())

    if not items:
        return
    for _ in range(max(1, min(workers, len(items)))):
        slots.append(spawn())
    try:
        while slots:
            busy = [s for s in slots if s.current is not None and s.paused_at is None]
            timeout = None
            if deadline and busy:
                timeout = max(0.0, min(s.started + deadline for s in busy) - time.monotonic())
            ready = set(wait([s.conn for s in slots] + [s.proc.sentinel for s in slots], timeout))
            for slot in list(slots):
                if slot.conn in ready:
                    try:
                        tag, result = slot.conn.recv()
                    except (EOFError, OSError):
                        stop(slot, "died")
                        continue
                    if tag == "clock":  # the item's deadline stops or goes on (pause_deadline)
                        now = time.monotonic()
                        if result and slot.paused_at is None:
                            slot.paused_at = now
                        elif not result and slot.paused_at is not None:
                            slot.started += now - slot.paused_at
                            slot.paused_at = None
                        continue
                    if tag == "ready":
                        slot.ready = True
                    else:
                        on_result(tag, result)
                    feed(slot)
                    if slot.current is None and not pending:  # nothing left for it: let it exit
                        slot.proc.join()
                        slot.conn.close()
                        slots.remove(slot)
                elif slot.proc.sentinel in ready:
                    stop(slot, "died")
                elif (deadline and slot.current is not None and slot.paused_at is None
                      and time.monotonic() - slot.started >= deadline):
                    stop(slot, "timeout")
    finally:
        for slot in slots:
            slot.proc.kill()
            slot.proc.join()
