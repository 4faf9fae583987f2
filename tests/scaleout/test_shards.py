"""How a class is cut into shards (no Slurm needed): as many as allowed, none smaller than the minimum."""

import pytest

from autograder.batch.fast import LocalRunner
from autograder.batch.shards import plan_shards
from autograder.config import CourseSettings
from autograder.config.slurm import SlurmSettings
from autograder.scaleout.slurm import SlurmRunner


@pytest.mark.parametrize(
    ("n", "max_shards", "min_size", "expected"),
    [(0, 100, 50, 0), (1, 100, 50, 1), (120, 100, 50, 3), (5_000, 100, 50, 100), (10_000, 100, 50, 100),
     (10_000, 1_000, 50, 200), (30, 100, 8, 4)],
)
def test_plan_shards(n, max_shards, min_size, expected):
    assert plan_shards(n, max_shards, min_size) == expected


def test_slurm_shard_size_grows_with_the_class_within_the_array_limit(course):
    from autograder.course import Course

    runner = SlurmRunner(SlurmSettings(shard_size=50, max_array_tasks=100), Course.at(course))
    sizes = {n: -(-n // runner.shard_count(n)) for n in (120, 1_000, 10_000, 100_000)}
    assert sizes == {120: 40, 1_000: 50, 10_000: 100, 100_000: 1_000}


def test_slurm_settings_come_from_the_course_config():
    from traitlets.config import Config

    cfg = Config()
    cfg.SlurmGrading.max_array_tasks = 7
    cfg.SlurmGrading.shard_size = 3
    s = CourseSettings.from_config(cfg).slurm
    assert (s.max_array_tasks, s.shard_size) == (7, 3)


def test_local_runner_gives_each_worker_several_shards():
    r = LocalRunner(workers=2)
    assert r.shard_count(10_000) == 16 and r.shard_count(20) == 2 and r.shard_count(0) == 0
