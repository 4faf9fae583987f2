"""A class graded by the fast batch (`autograder grade` writes autograded/ for formgrader), then by
`nbgrader autograde --force`: a native run that fails -- for everyone (the sandbox cannot start Python) or
for one student -- never deletes or changes a notebook the fast batch wrote. nbgrader deletes a student's
autograded folder before regrading it and again when the run fails; the course's exporter keeps each folder
first and puts back every one whose run did not finish."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.preprocessors.sandbox import bwrap_available
from autograder.sample.generate import PERSONAS, make_submission
from autograder.storage.autograded import AUTOGRADED_BY

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")]

BOOM = '''from nbgrader.preprocessors import NbGraderPreprocessor


class Boom(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        if resources["nbgrader"]["student"] == "doomed":
            raise RuntimeError("a failure injected by the test")
        return nb, resources
'''


def _fast_graded(tmp_path: Path, course_template: Path, extra_config: str) -> tuple[Course, dict[str, bytes]]:
    root = tmp_path / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    for i, student in enumerate(["good", "doomed"]):
        nb = make_submission(release, spec, ref, PERSONAS[1], seed=80 + i,
                             start=datetime(2026, 11, 28, tzinfo=timezone.utc))
        folder = c.submitted / student / "04_fusion"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "04_fusion.ipynb"))
        (folder / "timestamp.txt").write_text("2026-11-29 10:00:00.000000 UTC", encoding="utf-8")
    grade_class(c, "04_fusion", GradingPolicy(), workers=1)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write("\n" + extra_config + "\n")
    return c, _files(root)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "autograded").rglob("*")) if p.is_file()}


def _autograde(c: Course) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "04_fusion", "--force",
                           "--LimitedExecute.timeout=60"],
                          cwd=c.root, capture_output=True, text=True, timeout=900)


def test_a_sandbox_that_cannot_start_refuses_the_run_in_one_line(tmp_path, course_template):
    c, before = _fast_graded(tmp_path, course_template, 'c.LimitedExecute.sandbox_paths = ["/no-such-dataset"]')
    assert any(AUTOGRADED_BY in v.decode() for v in before.values())  # the fast batch's notebooks
    proc = _autograde(c)
    assert proc.returncode == 1
    said = [ln for ln in proc.stderr.splitlines() if "could not start in the sandbox" in ln]
    assert len(said) == 1, proc.stderr[-3000:]
    assert "bwrap: Can't find source path /no-such-dataset: No such file or directory" in said[0]
    assert "nothing was graded or changed" in said[0]
    assert "Traceback" not in proc.stderr
    assert _files(c.root) == before


def test_a_student_whose_native_run_fails_keeps_the_fast_batchs_notebook(tmp_path, course_template):
    c, before = _fast_graded(tmp_path, course_template,
                             'c.Autograde.autograde_preprocessors.append("boom.Boom")')
    (c.root / "boom.py").write_text(BOOM, encoding="utf-8")
    proc = _autograde(c)
    assert proc.returncode == 1  # nbgrader reports the failed student
    assert "a failure injected by the test" in proc.stderr
    after = _files(c.root)
    doomed = {k: v for k, v in before.items() if k.startswith("autograded/doomed/")}
    assert doomed and {k: after.get(k) for k in doomed} == doomed  # byte for byte, timestamp.txt too
    assert any("doomed/04_fusion: the native run did not finish; its earlier autograded notebook" in ln
               for ln in proc.stderr.splitlines())
    good = after["autograded/good/04_fusion/04_fusion.ipynb"].decode()
    assert AUTOGRADED_BY not in good  # the student whose run succeeded has nbgrader's own notebook now
    assert not (c.root / ".autograded-kept").exists() or not any((c.root / ".autograded-kept").iterdir())
