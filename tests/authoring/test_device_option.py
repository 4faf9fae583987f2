"""--device: a lesson tried against the CPU's reference and then the course GPU's, without editing
nbgrader_config.py; each command says in one line what is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import Course

pytestmark = pytest.mark.slow
A = "04_fusion"


def _cli(*args: str, cwd: Path, code: int = 0) -> str:
    env = {**os.environ, "COLUMNS": "200", "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    r = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=900, check=False)
    assert r.returncode == code, (args, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stdout + r.stderr
    return " ".join((r.stdout + r.stderr).split())


def _devices(root: Path) -> set[str]:
    return {json.loads(p.read_text())["device_of_record"] for p in (root / "records" / A).glob("*.json")}


def test_grade_and_report_take_the_device_whose_reference_they_use(course):
    root = Course.at(course).root  # a copy of the generated course (tests/conftest.py: make_course)
    _cli("sample", A, "--students", "3", cwd=root)
    out = _cli("grade", A, "--device", "cpu", cwd=root, code=2)
    assert f"no cpu reference for {A} (stored: nvidia-h200): run `autograder bench {A} --device cpu` first" in out
    _cli("bench", A, "--device", "cpu", "--processes", "1", "--quick", cwd=root)
    assert "graded 3" in _cli("grade", A, "--device", "cpu", "--workers", "1", cwd=root)
    assert _devices(root) == {"cpu"}
    assert "OK" in _cli("lint", A, "--device", "cpu", cwd=root)
    assert "CSV:" in _cli("report", A, "--device", "cpu", cwd=root)
    out = _cli("report", A, "--device", "nvidia-h200", cwd=root, code=1)
    assert f"no records of {A} graded against nvidia-h200 (they were graded against cpu)" in out
    for back in (["--device", "nvidia-h200"], []):  # onto the course GPU: named, or the device of record
        out = _cli("grade", A, *back, "--workers", "1", cwd=root)
        assert "graded against cpu: regrading every submission against the nvidia-h200 reference" in out
        assert "graded 3" in out and _devices(root) == {"nvidia-h200"}
        assert "unchanged 3" in _cli("grade", A, "--workers", "1", cwd=root)  # and stays so
        _cli("grade", A, "--device", "cpu", "--workers", "1", cwd=root)
        assert _devices(root) == {"cpu"}
