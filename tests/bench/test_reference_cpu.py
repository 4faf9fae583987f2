"""The reference benchmark's CPU path: the same harness CI can run, through the real CLI."""

import json
import subprocess
import sys

import pytest

from autograder.records import ReferenceRun
from autograder.workload import compile_fresh, fresh_function

pytestmark = pytest.mark.slow  # a real CPU reference: minutes of torch.compile


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory, repo):
    out = tmp_path_factory.mktemp("refs")
    png = out / "sweep.png"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "bench",
            "04_fusion",
            "--course",
            str(repo),
            "--device",
            "cpu",
            "--out",
            str(out),
            "--plot",
            str(png),
            "--processes",
            "2",
        ],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return ReferenceRun.model_validate_json((out / "04_fusion" / "cpu.json").read_text()), r.stdout, png


def test_cpu_reference_measures_every_case_both_ways(cpu_run, spec):
    run, _, _ = cpu_run
    assert run.device.kind == "cpu" and run.device.copy_gbps > 0
    got = {(m.case.key, m.method) for m in run.measurements}
    for c in spec.cases("cpu"):
        assert (c.key, "wall_per_call") in got and (c.key, "gpu_time") in got
    for m in run.measurements:
        assert len(m.samples_ms) == m.stats.n >= 3
        assert m.launches == (4 if m.case.variant == "eager" else 1) and m.launches_source == "model"
    assert set(run.quantities) == {q.id for q in spec.quantities}


def test_cpu_reference_merges_two_fresh_processes_and_checks_fairness(cpu_run):
    run, stdout, _ = cpu_run
    assert [s.label for s in run.sources] == ["process 1", "process 2"]
    assert run.fairness is not None and run.fairness.processes == 2 and run.fairness.items
    assert "fairness check (2 processes" in stdout and "within one process vs between processes" in stdout
    for v in run.quantities.values():
        assert v.processes == 2 and len(v.process_ratios) == 2 and v.between_spread is not None
    fp = run.device
    assert fp.cpu_model and fp.peaks["copy_gbps"] == fp.copy_gbps
    assert fp.peaks["matmul_tflops:float32"] > 0 and fp.peaks["matmul_tflops:bfloat16"] > 0


def test_cpu_reference_shows_fusion_winning_at_large_n(cpu_run):
    run, _, _ = cpu_run
    # memory-bound on a CPU too: a 4x traffic cut must show as a clear speedup in both methods
    assert run.quantities["gpu_speedup@fp16,2^24"].ratio > 1.8
    assert run.quantities["wall_speedup@fp32,2^30"].ratio > 1.8  # measured at 2^22 on a CPU (lesson.toml substitutes it)


def test_bench_prints_tables_and_writes_the_plot(cpu_run):
    _, stdout, png = cpu_run
    assert "quantities students predict" in stdout and "reference stored" in stdout
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_each_case_gets_a_fresh_code_object():
    import torch

    src = "def f(x):\n    return torch.relu(x * 2.0 + 1.0) * 0.5\n"
    a, b = fresh_function(src, "f", {"torch": torch}), fresh_function(src, "f", {"torch": torch})
    assert a.__code__ is not b.__code__
    x = torch.randn(1024)
    assert torch.allclose(compile_fresh(src, "f", {"torch": torch})(x), torch.relu(x * 2 + 1) * 0.5)


def test_reference_json_is_plain_data(cpu_run):
    run, _, _ = cpu_run
    data = json.loads(run.model_dump_json())
    assert data["device"]["key"] == "cpu" and data["measurements"]
