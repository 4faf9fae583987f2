"""The kernels tests' fixture lesson: tests/kernels/fixtures/workload.py, relu(x*2+1)*0.5.

``KERNELS_DEVICE=cuda`` switches every task to the GPU (benchmarks/gpu_kernels_check.sh); the default is
the CPU (Triton through its interpreter)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder.kernels import KernelResult, KernelTask, Limits, run_submission

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
HOSTILE = HERE / "hostile"
DEVICE = os.environ.get("KERNELS_DEVICE", "cpu")


def source_of(name: str) -> str:
    return (HOSTILE / f"{name}.py").read_text(encoding="utf-8").replace("__COURSE_DIR__", str(FIXTURES))


def make_task(source: str, *, wall_s: float = 60.0, device: str = DEVICE, **changes: object) -> KernelTask:
    cuda = device == "cuda"
    fields: dict[str, object] = dict(
        source=source, entry="fused_chain", workload=FIXTURES / "workload.py", reference="reference",
        make_inputs="make_inputs", cases=({"dtype": "fp32", "log2_n": 22 if cuda else 14},),
        check_cases=({"dtype": "fp32", "n": 1000}, {"dtype": "fp32", "n": 4097}), seed=20260,
        tolerances={"fp32": (1e-5, 1e-6), "fp16": (1e-3, 1e-3)}, device=device, limits=Limits(wall_s=wall_s),
    )
    fields.update(changes)
    return KernelTask(**fields)  # type: ignore[arg-type]


#: the suite's wall limits: the hang is killed after 12 s
WALL = {"infinite_loop": 12.0}
_results: dict[tuple[str, bool], KernelResult] = {}


def graded(name: str, isolate: bool = True) -> KernelResult:
    """One hostile-suite submission's result (each runs once per test session)."""
    key = (name, isolate)
    if key not in _results:
        _results[key] = run_submission(make_task(source_of(name), wall_s=WALL.get(name, 60.0)), isolate=isolate)
    return _results[key]


def grade_all(names: list[str], workers: int = 3) -> None:
    """Run the named submissions in a small pool (each still its own child, as a grading batch does)."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {n: pool.submit(run_submission, make_task(source_of(n), wall_s=WALL.get(n, 60.0)))
                   for n in names if (n, True) not in _results}
        for n, fut in futures.items():
            _results[(n, True)] = fut.result()


@pytest.fixture
def cuda_only() -> None:
    if DEVICE != "cuda":
        pytest.skip("CUDA-only family: run with KERNELS_DEVICE=cuda (benchmarks/gpu_kernels_check.sh)")
