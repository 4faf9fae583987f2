"""`autograder lint` finds every measurement shown before its quantity is predicted: statically (cell order)
and by Run All on the blank release in a real Jupyter kernel. Every lesson under source/ (a course may add
lessons: they are found, not listed), the tiny lesson the tests write, and lessons broken on purpose."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring.lint import lint_lesson
from autograder.authoring.reveals import executed_reveals, reveal_order
from autograder.course import Course
from autograder.spec import load_spec
from tests.lessons.tiny import write_tiny_lesson

REPO = Path(__file__).resolve().parents[2]
LESSONS = [*sorted(p.parent.name for p in (REPO / "source").glob("*/lesson.toml")), "99_tiny"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lessons(tmp_path_factory) -> Path:
    """A course holding every lesson of source/ and the tiny one."""
    root = tmp_path_factory.mktemp("reveal") / "course"
    Course.copy(REPO, root, parts=("nbgrader_config.py", "source"))
    write_tiny_lesson(root / "source")
    return root


def _cells(folder: Path) -> list[dict]:
    spec = load_spec(folder)
    return json.loads((folder / spec.notebook).read_text(encoding="utf-8"))["cells"]


def _broken_copy(lessons: Path, tmp_path: Path, name: str) -> Path:
    root = tmp_path / "course"
    Course.copy(lessons, root, parts=("nbgrader_config.py",))
    shutil.copytree(lessons / "source" / name, root / "source" / name)
    return root / "source" / name


def _grade_id(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_reveals_nothing_before_it_is_predicted(lessons, name):
    folder = lessons / "source" / name
    assert reveal_order(load_spec(folder), _cells(folder)) == []
    findings = executed_reveals(folder)
    assert findings == [], [str(f) for f in findings]


def test_a_measure_cell_moved_above_its_prediction_fails_lint(lessons, tmp_path):
    folder = _broken_copy(lessons, tmp_path, "04_fusion")
    path = folder / "04_fusion.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    measure = next(i for i, c in enumerate(nb.cells) if _grade_id(c) == "measure_headline")
    predict = next(i for i, c in enumerate(nb.cells) if _grade_id(c) == "predict_headline")
    nb.cells.insert(predict, nb.cells.pop(measure))
    nbformat.write(nb, str(path))
    findings = [str(f) for f in lint_lesson(folder, REPO / "references", "nvidia-h200")]
    assert findings == [
        "error: cell measure_headline: L.measure('float16', 24) reveals gpu_speedup@fp16,2^24, "
        "fp32_vs_fp16@2^24 before it is predicted: move "
        'L.predict("gpu_speedup@fp16,2^24", ...), L.predict("fp32_vs_fp16@2^24", ...) above it'
    ]


def test_an_unpredicted_direction_quantity_fails_lint_and_the_cli_says_what_to_do(lessons, tmp_path):
    """A quantity added to lesson.toml whose prediction cell sits below the measurements of its baseline
    (as the fp32-vs-fp16 direction of 04 once did)."""
    from typer.testing import CliRunner

    from autograder.cli import app

    folder = _broken_copy(lessons, tmp_path, "99_tiny")
    toml = folder / "lesson.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(
            "[grade_ids]",
            '[[quantities]]\nid = "fp32_vs_fp16@2^16"\ntitle = "At 2^16"\nkind = "direction"\n'
            'case = { dtype = "float32", log2_n = 16 }\ncompare = ["double_copy", "copy"]\n'
            'baseline = { dtype = "float16" }\n\n[grade_ids]\n"fp32_vs_fp16@2^16" = "g_small"',
        ),
        encoding="utf-8",
    )
    path = folder / "99_tiny.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    nb.cells.insert(2, nbformat.v4.new_code_cell('L.measure("float16", 16)', metadata={"nbgrader": {
        "grade": False, "grade_id": "measure_small", "locked": True, "schema_version": 3, "solution": False,
        "task": False}}))
    nb.cells.append(nbformat.v4.new_code_cell(
        'L.predict(\n    "fp32_vs_fp16@2^16",\n    ### BEGIN SOLUTION\n    "same", because="both copies",\n'
        '    ### END SOLUTION\n)\nL.measure("float32", 16)',
        metadata={"nbgrader": {"grade": False, "grade_id": "predict_small", "locked": False, "schema_version": 3,
                               "solution": True, "task": False}}))
    nb.cells.append(nbformat.v4.new_code_cell('L.grade("fp32_vs_fp16@2^16")', metadata={"nbgrader": {
        "grade": True, "grade_id": "g_small", "locked": True, "points": 2.0, "schema_version": 3,
        "solution": False, "task": False}}))
    nbformat.write(nb, str(path))
    line = (
        "cell measure_small: L.measure('float16', 16) reveals fp32_vs_fp16@2^16 before it is predicted: "
        'move L.predict("fp32_vs_fp16@2^16", ...) above it'
    )
    assert [str(f) for f in reveal_order(load_spec(folder), _cells(folder))] == [f"error: {line}"]
    r = CliRunner().invoke(app, ["lint", "99_tiny", "--course", str(folder.parent.parent)])
    assert r.exit_code == 1 and f"99_tiny: error: {line}" in r.output.replace("\n", " ").replace("  ", " ")
    # the prediction moved above the measurement: clean, statically and when Run All executes it
    nb.cells.insert(2, nb.cells.pop(len(nb.cells) - 2))
    nbformat.write(nb, str(path))
    assert reveal_order(load_spec(folder), _cells(folder)) == []
    assert executed_reveals(folder) == []


def test_run_all_catches_a_lesson_whose_measurements_bypass_the_refusal(lessons, tmp_path):
    """Statically in order, but a cell makes the Lesson show measurements without asking (as a lesson whose
    own measuring code prints timings would): Run All on the blank release names what it displayed and
    sealed before anything was predicted."""
    folder = _broken_copy(lessons, tmp_path, "99_tiny")
    path = folder / "99_tiny.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[0].source += "\nL.mode.may_reveal = lambda cases: True  # shows whatever is asked"
    nbformat.write(nb, str(path))
    assert reveal_order(load_spec(folder), _cells(folder)) == []
    findings = [str(f) for f in executed_reveals(folder)]
    assert (
        "error: cell measure: Run All on the blank release displayed measurements that reveal copies@fp32, "
        "launches, fp32_vs_fp16 with no prediction committed: remove what makes L.measure / L.sweep show them "
        "unasked"
    ) in findings
    assert (
        "error: Run All on the blank release sealed a measurement of copies@fp32 before any prediction of it: "
        "measure only through L.measure / L.sweep, after its L.predict cell"
    ) in findings
    assert any("ran a measurement that reveals unpredicted quantities without refusing it" in f for f in findings)
