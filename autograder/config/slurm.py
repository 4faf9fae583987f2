"""Where `autograder grade --executor slurm` sends its jobs (``c.SlurmGrading.*``), as a plain record (no
submitit import). An empty string for an optional setting means the same as leaving it out."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from ..records._base import Record

__all__ = ["SlurmSettings"]


class SlurmSettings(Record):
    partition: str | None = Field(default=None, description="partition of the grading shards and the merge job")
    account: str | None = Field(default=None, description="Slurm account (--account)")
    bench_gres: str = Field(default="gpu:1", description="--gres of the reference job, e.g. gpu:h200:1")
    bench_partition: str | None = Field(default=None, description="partition of the reference job (the GPU nodes)")
    grade_gres: str | None = Field(default=None, description="--gres of grading shards (none: CPU only)")
    shard_size: int = Field(
        default=50, ge=1, description="fewest submissions per array task (a task's start-up costs seconds)"
    )
    max_array_tasks: int = Field(
        default=100, ge=1, description="most array tasks per class (the cluster's MaxArraySize / per-user "
        "limits); larger classes get larger shards",
    )
    cpus_per_task: int = Field(default=1, ge=1, description="CPUs per task")
    mem_gb: float = Field(default=4, gt=0, description="memory per task (GB)")
    timeout_min: int = Field(default=60, ge=1, description="time limit per job (minutes)")
    folder: str = Field(default="", description="submitit's log folder; empty: COURSE/.slurm/%j")
    poll_s: float = Field(default=0.5, gt=0, description="seconds between two looks at the jobs' state")
    extra: dict[str, str] = Field(default_factory=dict, description="more sbatch options, e.g. {'qos': 'teaching'}")

    @field_validator("partition", "account", "bench_partition", "grade_gres", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("extra", mode="before")
    @classmethod
    def _options_as_text(cls, value: Any) -> Any:
        """sbatch options are text on its command line: ``{'nice': 10}`` is ``--nice=10``."""
        if isinstance(value, dict):
            return {str(k): v if isinstance(v, str) else str(v) for k, v in value.items()}
        return value
