"""Shared fixtures: the real lesson spec, the committed H200 reference, real course folders."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

import nbgrader
import pytest
from filelock import FileLock

from autograder.course import Course

REPO = Path(__file__).resolve().parents[1]
# Compiled inductor kernels are cached between tests (and kernels started by them): each case still
# compiles fresh through dynamo; only the C++ build of identical generated code is reused.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))
BIN = str(Path(sys.executable).parent)
os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def spec():
    from autograder.spec import load_spec

    return load_spec(REPO / "source" / "04_fusion")


@pytest.fixture(scope="session")
def h200():
    from autograder.bench.store import ReferenceStore

    return ReferenceStore(REPO / "references").load("04_fusion", "nvidia-h200")


@pytest.fixture(scope="session")
def fastest_call_spec(tmp_path_factory):
    """Lesson 04 as it asked its per-call question until 2026-12-04: float32 2^28, of each variant's fastest
    call (``statistic = "min"``); the stored 2026-12-01c processes were measured for that question."""
    import shutil

    from autograder.spec import load_spec

    dest = tmp_path_factory.mktemp("fastest") / "04_fusion"
    shutil.copytree(REPO / "source" / "04_fusion", dest)
    toml = dest / "lesson.toml"
    text = toml.read_text(encoding="utf-8").replace("wall_speedup@fp32,2^30", "wall_speedup@fp32,2^28")
    old = 'case = { dtype = "float32", log2_n = 30 }'
    assert old in text
    toml.write_text(text.replace(old, 'case = { dtype = "float32", log2_n = 28 }\nstatistic = "min"'), encoding="utf-8")
    return load_spec(dest)


@pytest.fixture(scope="session")
def release_nb_path() -> Path:
    return REPO / "release" / "04_fusion" / "04_fusion.ipynb"


def make_course(dest: Path) -> Path:
    """A fresh course: config, source, references, and a gradebook made by nbgrader generate_assignment."""
    Course.copy(REPO, dest).generate_assignment("04_fusion")
    return dest


def _template_key() -> str:
    """A hash of everything ``make_course`` reads (the course files it copies; the code generate_assignment
    runs of this package: LessonClearSolutions and the settings it reads; nbgrader's version): a built course
    is reused only while all are unchanged."""
    h = hashlib.sha256(nbgrader.__version__.encode())
    pkg = REPO / "autograder"
    files = [REPO / "nbgrader_config.py", pkg / "preprocessors" / "clear_solutions.py", pkg / "errors.py"]
    for folder in (REPO / "source", REPO / "references", pkg / "config"):
        files += [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for f in sorted(files):
        h.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _built_course() -> Path:
    """``make_course`` once per content (``.cache/course-template/KEY``, shared by the xdist workers and later
    runs; nbgrader generate_assignment costs tens of seconds on a busy machine)."""
    cache = REPO / ".cache" / "course-template"
    cache.mkdir(parents=True, exist_ok=True)
    built = cache / _template_key()
    with FileLock(str(cache / ".lock")):
        if not built.is_dir():
            tmp = cache / f".{built.name}.{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            make_course(tmp)
            tmp.rename(built)
    return built


@pytest.fixture(scope="session")
def course_template(tmp_path_factory) -> Path:
    """A fresh course (as :func:`make_course`) for this session: a copy of the one built for this content."""
    dest = tmp_path_factory.mktemp("course_template") / "course"
    shutil.copytree(_built_course(), dest, symlinks=True)
    return dest


@pytest.fixture()
def course(course_template, tmp_path) -> Path:
    dest = tmp_path / "course"
    shutil.copytree(course_template, dest)
    return dest


#: slow tests in files other sessions own, marked here rather than in their files (each runs a real kernel,
#: nbgrader or a hostile text under a time bound for ten seconds or more: see `--durations`); the fast
#: target `bash scripts/test.sh -m "not slow"` leaves them out, the full suite runs them
SLOW_ELSEWHERE = (
    "tests/lesson/test_start_over.py::",
    "tests/lesson/test_session.py::test_a_shown_half_is_sealed_and_a_later_change_is_a_revision",
    "tests/lesson/test_session.py::test_measure_on_cpu_records_both_methods",
    "tests/lesson/test_session.py::test_nbgrader_validate_never_touches_the_ledger",
    "tests/lesson/test_session.py::test_measuring_before_predicting_reveals_nothing_and_costs_nothing",
    "tests/lesson/test_session.py::test_a_lesson_declares_what_else_reveals_a_quantity",
    "tests/grading/test_explanation_false_credits.py::test_a_hostile_answer_is_read_in_bounded_time",
)


#: the files that keep an xdist worker busy for a minute or more (`--durations=100` of the full suite on the
#: shared 2-core machine, each file's tests summed, largest first; the operator walks, another branch's, last):
#: scripts/test.sh hands each file to one worker (`--dist loadfile`) in collection order
#: (`--no-loadscope-reorder`), so these start first and the short files fill the gaps at the end, instead of one
#: long file running alone while the other workers have finished (tests/storage/test_autograded.py and
#: test_postgres.py, tests/lesson/test_session.py and the pre-reader's hostile texts, missing here before, started
#: in the last third). The terminal summary says when each worker finished.
LONG_FILES = (
    "tests/lessons/test_every_lesson.py",
    "tests/storage/test_autograded.py",
    "tests/e2e/test_end_to_end.py",
    "tests/preprocessors/test_limited_execute.py",  # mostly waits (deadlines): early, beside the busy ones
    "tests/authoring/test_device_option.py",
    "tests/bench/test_reference_cpu.py",
    "tests/storage/test_postgres.py",
    "tests/lessons/test_a_lesson_of_a_new_kind.py",
    "tests/lesson/test_session.py",
    "tests/authoring/test_course_outside_the_repository.py",
    "tests/e2e/test_both_paths_agree.py",
    "tests/authoring/test_new_lesson.py",
    "tests/grading/test_explanation_false_credits.py",
    "tests/authoring/test_laptop_walk.py",
    "tests/lesson/test_reveal_lint.py",
    "tests/batch/test_crash_and_concurrency.py",
    "tests/lessons/test_06_fused_kernel.py",
    "tests/browser/test_course_journey.py",
    "tests/test_plain_nbgrader_assignment.py",
    "tests/preprocessors/test_sandbox.py",
    "tests/test_cli_80_columns.py",
    "tests/browser/test_walk_instructor.py",
    "tests/grading/test_bad_inputs.py",
    "tests/test_release_sync.py",
    "tests/reports/test_course_report.py",
    "tests/test_lazy_torch.py",
    "tests/scaleout/test_slurm.py",
    "tests/kernels/test_warm.py",
    "tests/browser/test_walk_student.py",
    "tests/kernels/test_hostile.py",
    "tests/lesson/test_start_over.py",
    "tests/scaleout/test_operator_walk.py",
    "tests/batch/test_operator_walk.py",
)


def _file_rank(item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return LONG_FILES.index(path) if path in LONG_FILES else len(LONG_FILES)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SLOW_ELSEWHERE):
            item.add_marker(pytest.mark.slow)
    items.sort(key=_file_rank)  # stable: every file keeps its own tests' order, the other files theirs


#: when each xdist worker ran which file (seen by the controller as the reports arrive): the terminal summary
#: says when each worker finished, so that a long file running alone at the end shows (scripts/test.sh)
_STARTED = time.monotonic()
_SPANS: dict[tuple[str, str], list[float]] = {}


def pytest_runtest_logreport(report) -> None:
    node = getattr(report, "node", None)  # set on the controller for a worker's report
    if node is None:
        return
    now = time.monotonic() - _STARTED
    span = _SPANS.setdefault((node.gateway.id, report.nodeid.split("::", 1)[0]), [now, now])
    span[1] = now


def pytest_terminal_summary(terminalreporter) -> None:
    if not _SPANS:
        return
    tr = terminalreporter
    tr.section("xdist workers (seconds since the session started)")
    runs = []  # (wall, file, worker, start): a file starts when the worker's previous one ended
    for worker in sorted({w for w, _ in _SPANS}):
        ends = sorted((e, f) for (w, f), (_, e) in _SPANS.items() if w == worker)
        runs += [(e - s, f, worker, s) for (s, _), (e, f) in zip([(0.0, ""), *ends], ends, strict=False)]
        tr.write_line(f"{worker}: {len(ends)} files, finished at {ends[-1][0]:.0f} s; last: {ends[-1][1]}")
    for wall, f, worker, start in sorted(runs, reverse=True)[:15]:
        tr.write_line(f"  {wall:6.0f} s  {f} ({worker}, {start:.0f}-{start + wall:.0f} s)")
