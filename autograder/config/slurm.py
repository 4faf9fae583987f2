"""Where `autograder grade --executor slurm` sends its jobs, as a plain record (no submitit import)."""

from __future__ import annotations

from pydantic import Field

from ..records._base import Record

__all__ = ["SlurmSettings"]


class SlurmSettings(Record):
    partition: str | None = None
    account: str | None = None
    bench_gres: str = Field(default="gpu:1", description="--gres of the reference job")
    bench_partition: str | None = Field(default=None, description="partition of the reference job (GPU nodes)")
    grade_gres: str | None = Field(default=None, description="--gres of grading shards (none: CPU only)")
    shard_size: int = Field(
        default=50, ge=1, description="fewest submissions per array task (a task's start-up costs seconds)"
    )
    max_array_tasks: int = Field(
        default=100, ge=1, description="most array tasks per class (the cluster's MaxArraySize / per-user limits)"
    )
    cpus_per_task: int = Field(default=1, ge=1)
    mem_gb: float = Field(default=4, gt=0)
    timeout_min: int = Field(default=60, ge=1)
    folder: str = Field(default="", description="submitit logs; default COURSE/.slurm")
    poll_s: float = Field(default=0.5, gt=0)
    extra: dict[str, str] = Field(default_factory=dict, description="more sbatch options, e.g. qos")

