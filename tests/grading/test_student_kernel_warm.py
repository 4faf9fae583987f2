"""How many children of students' kernels a grading process starts ahead (grading.student_kernel.warm_start):
one per worker of a pool (they start side by side), as many as the cores allow for a worker alone (a Slurm
array task's one worker on its GPU node)."""

from __future__ import annotations

import multiprocessing
import os

from autograder.grading.student_kernel import set_pool_size, warm_start


def _ahead_in_a_worker(pool_size: int, cores: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    os.cpu_count = lambda: cores  # a GPU node's cores, in this forked worker only
    set_pool_size(pool_size)
    warm = warm_start()
    out.put(warm.ahead)
    warm.close()


def _ahead(pool_size: int, cores: int = 16) -> int:
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_ahead_in_a_worker, args=(pool_size, cores, q))
    p.start()
    got = q.get(timeout=60)
    p.join(timeout=60)
    return int(got)


def test_a_worker_alone_keeps_as_many_ahead_as_the_cores_allow_and_one_of_a_pool_keeps_one():
    assert _ahead(1, cores=16) == 5 and _ahead(1, cores=2) == 1  # one per three cores, 1 to 5
    assert _ahead(1, cores=6) == 2 and _ahead(1, cores=64) == 5
    assert _ahead(2) == 1 and _ahead(16) == 1
    assert _ahead(0) == 1  # not told: a worker of a pool of unknown size
