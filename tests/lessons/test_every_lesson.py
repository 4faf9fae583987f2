"""Every lesson under source/, plus a tiny synthetic one written here, through the whole framework on this
machine's CPU: lint, reference benchmark, sample class, and both grading paths agreeing row for row."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring import lint_lesson
from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.kinds import kind_of
from autograder.sample.generate import generate_class
from autograder.storage.gradebook_sync import read_rows

from .tiny import write_tiny_lesson

REPO = Path(__file__).resolve().parents[2]
LESSONS = [*sorted(p.parent.name for p in (REPO / "source").glob("*/lesson.toml")), "99_tiny"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lessons_course(tmp_path_factory) -> Course:
    """A course holding every lesson, graded against references measured here (device of record: cpu)."""
    root = tmp_path_factory.mktemp("lessons") / "course"
    c = Course.copy(REPO, root, parts=("nbgrader_config.py", "source"))
    write_tiny_lesson(root / "source")
    with (root / "nbgrader_config.py").open("a", encoding="utf-8") as fh:
        fh.write('\nc.LessonGrading.device_of_record = "cpu"\n')
    return c


class _CpuReferences(dict):  # type: ignore[type-arg]
    """Each lesson's CPU reference, measured (and stored in the course) the first time a test asks for it:
    `-k LESSON` measures that lesson only."""

    def __init__(self, course: Course) -> None:
        super().__init__()
        self.course = course

    def __missing__(self, name: str):
        from autograder.bench.runner import run_reference
        from autograder.bench.timing import TimingPolicy

        spec = self.course.spec(name)
        # only the quantities' own cases (CI time), unless a quantity scans the sweep
        sizes = None if any(kind_of(q).name == "crossover" for q in spec.quantities) else []
        run = run_reference(spec, "cpu", TimingPolicy.quick(), sizes=sizes)
        ReferenceStore(self.course.references).save(run)
        self[name] = run
        return run


@pytest.fixture(scope="module")
def cpu_references(lessons_course):
    return _CpuReferences(lessons_course)


@pytest.mark.parametrize("name", LESSONS)
def test_lint_finds_nothing(lessons_course, cpu_references, name):
    cpu_references[name]  # measured first: lint checks the reference of the device of record (cpu here)
    findings = lint_lesson(lessons_course.root / "source" / name, lessons_course.references, "cpu")
    assert findings == [], [str(f) for f in findings]


@pytest.mark.parametrize("name", LESSONS)
def test_cpu_reference_derives_every_quantity(lessons_course, cpu_references, name):
    spec = lessons_course.spec(name)
    run = cpu_references[name]
    # a quantity about a kernel the student writes ([student_variant]) is measured at grading, not by bench
    assert set(run.quantities) == {q.id for q in spec.quantities if not spec.about_student(q)}
    for q in (q for q in spec.quantities if not spec.about_student(q)):
        _, problem = kind_of(q).check(q, run.quantities[q.id].value)
        assert problem is None, (q.id, problem)  # a student could have predicted exactly this


@pytest.mark.parametrize("name", LESSONS)
def test_sample_class_agrees_on_both_grading_paths(lessons_course, cpu_references, tmp_path, name):
    cpu_references[name]  # stored in the course before it is copied
    native = Course.copy(lessons_course.root, tmp_path / "native", parts=("nbgrader_config.py", "source", "references"))
    native.generate_assignment(name)
    spec = native.spec(name)
    release = native.root / "release" / name / spec.notebook
    ids = generate_class(native.root, spec, cpu_references[name], release, 3, seed=7)
    fast = tmp_path / "fast"
    shutil.copytree(native.root, fast)
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", name], cwd=native.root, capture_output=True, text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    if (native.root / ".kernel_results").is_dir():  # a kernel the students wrote is measured once (its time
        # varies from run to run): both paths grade that measurement, as a course's re-grade does
        shutil.copytree(native.root / ".kernel_results", fast / ".kernel_results")
    result = grade_class(Course.at(fast), name, GradingPolicy(device_of_record="cpu"), workers=1)
    assert sorted(result.graded) == sorted(ids) and not result.failed
    notebook = Path(spec.notebook).stem
    want = read_rows(f"sqlite:///{native.root / 'gradebook.db'}", name, notebook)
    got = read_rows(f"sqlite:///{fast / 'gradebook.db'}", name, notebook)
    assert got == want
    scores = [v for k, v in got.items() if len(k) == 2 and isinstance(v, float)]
    assert any(v > 0 for v in scores), "nobody in the sample class earned a point"


def _solution_predictions(nb_path: Path) -> dict[str, object]:
    import ast
    import json

    out: dict[str, object] = {}
    for cell in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] != "code" or ".predict(" not in src:
            continue
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "predict" and len(node.args) >= 2:
                out[ast.literal_eval(node.args[0])] = ast.literal_eval(node.args[1])
    return out


@pytest.mark.parametrize("name", [n for n in LESSONS if n != "99_tiny"])
def test_instructor_solutions_earn_full_credit_on_the_h200(name):
    """The solution cells were written from the H200 probe: graded against the committed H200 reference,
    every one earns full credit and every explanation's numbers match the work model or the reference."""
    from datetime import datetime, timezone

    from autograder.grading.scoring import grade_prediction
    from autograder.preread import grade_explanation
    from autograder.records import Prediction

    course = Course.at(REPO)
    spec = course.spec(name)
    if "nvidia-h200" not in ReferenceStore(course.references).devices(name):
        pytest.skip(f"{name}: no H200 reference committed (references/{name}/nvidia-h200.json): run "
                    f"`autograder bench {name}` on the course GPU; the CPU-reference tests above still run")
    ref = ReferenceStore(course.references).load(name, "nvidia-h200")
    solutions = _solution_predictions(REPO / "source" / name / spec.notebook)
    assert set(solutions) == {q.id for q in spec.quantities}
    # predictions about the student's own kernel are graded against the grader's run of it
    # (tests/lessons/test_06_fused_kernel.py), not against the reference
    for q in (q for q in spec.quantities if not spec.about_student(q)):
        value, problem = kind_of(q).check(q, solutions[q.id])
        assert problem is None
        p = Prediction(quantity=q.id, value=value, because="solution", at=datetime.now(timezone.utc), seq=1)
        g = grade_prediction(q, spec.grade_ids[q.id], p, ref.quantities[q.id], ref.device.name, GradingPolicy())
        assert g.fraction == 1.0, g.reason
    import nbformat

    from autograder.sample.generate import solution_texts

    texts = solution_texts(nbformat.read(str(REPO / "source" / name / spec.notebook), as_version=4), spec)
    for e in spec.explanations:
        g = grade_explanation(texts[e.grade_id], spec, e, ref)
        assert g.matched >= 3 and not g.flags, g.comment
