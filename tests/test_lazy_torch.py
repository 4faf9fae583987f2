"""What nbgrader loads (the course's nbgrader_config.py, the grading kernel's ``Lesson.load()`` under
``nbgrader autograde`` and ``nbgrader validate``) and the fast batch's CLI import no torch: none of them
measures (a reference or a record is read from JSON), and each of these processes would pay torch's import
(seconds of CPU) for nothing. A lesson that runs a student's kernel imports it where the kernel is run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NO_TORCH = "import sys\n{body}\nassert 'torch' not in sys.modules, 'torch imported'\nprint('ok')\n"


def _run(body: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_TORCH.format(body=body)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})


def test_nbgrader_config_and_the_batch_cli_import_no_torch():
    body = ("from traitlets.config.loader import PyFileConfigLoader\n"
            "PyFileConfigLoader('nbgrader_config.py', path='.').load_config()\n"
            "import autograder.preprocessors, autograder.cli.grade_cmd, autograder.batch.fast, autograder.grading")
    r = _run(body, REPO)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


@pytest.mark.parametrize("execution", ["autograde", "validate"])
def test_the_lesson_api_graded_or_validated_imports_no_torch(execution):
    r = _run("from autograder.lesson import Lesson\nL = Lesson.load()\nprint(type(L.mode).__name__)",
             REPO / "release" / "04_fusion", NBGRADER_EXECUTION=execution)
    assert r.returncode == 0 and r.stdout.split()[-1] == "ok", r.stderr
    assert {"autograde": "GradingMode", "validate": "ValidateMode"}[execution] in r.stdout


def test_a_student_kernel_still_imports_torch(tmp_path):
    """The student's own kernel measures: it loads torch (the test above would pass for a broken session).
    In a copy of the release: the student's mode writes its ledger beside the notebook."""
    shutil.copytree(REPO / "release" / "04_fusion", tmp_path / "04_fusion")
    r = subprocess.run([sys.executable, "-c", "import sys\nfrom autograder.lesson import Lesson\n"
                        "L = Lesson.load()\nprint(type(L.mode).__name__, 'torch' in sys.modules)"],
                       cwd=tmp_path / "04_fusion", capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.split()[-2:] == ["StudentMode", "True"], r.stderr


def test_grading_real_submissions_imports_no_torch(course):
    """The fast batch's worker grading sampled submissions (each ledger names the device it measured on, whose
    claim is checked: autograder.grading.references.claim_problem) imports no torch; nor does ReadLedger, which
    grades the same way inside `nbgrader autograde`."""
    from autograder.bench.store import ReferenceStore
    from autograder.course import Course
    from autograder.sample.generate import generate_class

    c = Course.at(course)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    students = generate_class(course, spec, ref, course / "release" / "04_fusion" / spec.notebook, 3, seed=3)
    body = ("from pathlib import Path\nfrom autograder.batch import fast\n"
            "from autograder.grading.policy import GradingPolicy\n"
            "fast._init_worker('.', '04_fusion', GradingPolicy().model_dump_json())\n"
            "items = [(p.parents[1].name, str(p)) for p in sorted(Path('submitted').glob('*/04_fusion/*.ipynb'))]\n"
            "outcomes, _ = fast._grade_items(items, True)\n"
            "print(sorted(o[0] for o in outcomes if o[1] == 'graded' and o[2] is None))")
    r = _run(body, course)
    assert r.returncode == 0 and r.stdout.split("\n")[-2] == "ok", r.stderr
    assert r.stdout.splitlines()[0] == str(sorted(students))
    from autograder.records import SubmissionGrade

    record = SubmissionGrade.model_validate_json((course / "records" / "04_fusion" / f"{students[0]}.json").read_text())
    assert record.predictions and all(p.reason for p in record.predictions)  # graded from the ledger
