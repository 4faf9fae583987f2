"""The gradebook nbgrader is configured with, when that is PostgreSQL: a real server (Debian's
`postgresql`), started and stopped by PID through scripts/postgres/, one database per gradebook.
`nbgrader autograde` and the fast batch must write the same rows into it, and two fast graders at once
the same rows as one. CI installs the package (.ci/run); elsewhere these tests are skipped without it."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.config import CourseSettings
from autograder.course import Course
from autograder.sample.generate import generate_class
from autograder.storage.gradebook_sync import dump_rows, without_ids
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow
A = "04_fusion"


@pytest.fixture(scope="module")
def postgres(repo):
    if not glob.glob("/usr/lib/postgresql/*/bin/postgres"):
        if os.environ.get("CI"):
            pytest.fail("CI must install PostgreSQL (see .ci/run)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    scratch = tempfile.mkdtemp(prefix="gpu-lessons-pg-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PG_SCRATCH": scratch, "PG_PORT": str(port)}
    up = subprocess.run(["bash", str(repo / "scripts/postgres/start.sh")], env=env, capture_output=True, text=True,
                        timeout=120)
    assert up.returncode == 0, up.stdout + up.stderr
    pid = int(Path(scratch, "data", "postmaster.pid").read_text().split()[0])
    yield up.stdout.strip()
    down = subprocess.run(["bash", str(repo / "scripts/postgres/stop.sh")], env=env, capture_output=True, text=True,
                          timeout=60)
    assert down.returncode == 0, down.stderr
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    shutil.rmtree(scratch, ignore_errors=True)


def _database(server: str, name: str, template: str | None = None) -> str:
    import psycopg  # SQLAlchemy's default driver for postgresql:// URLs

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return f"{server}/{name}"


def _configure(template: Path, dest: Path, db_url: str) -> Course:
    shutil.copytree(template, dest, ignore=shutil.ignore_patterns("gradebook.db*"))
    cfg = dest / "nbgrader_config.py"
    cfg.write_text(cfg.read_text() + f'\nc.CourseDirectory.db_url = "{db_url}"\n')
    assert CourseSettings.load(dest).db_url == db_url
    return Course.at(dest)


@pytest.fixture(scope="module")
def generated(postgres, course_template, tmp_path_factory):
    """A database holding what `nbgrader generate_assignment` writes (tables, assignment, cells): each
    test's gradebooks are copies of it (CREATE DATABASE ... TEMPLATE), not a generate_assignment each."""
    c = _configure(course_template, tmp_path_factory.mktemp("pg") / "course", _database(postgres, "generated"))
    c.generate_assignment(A)
    return "generated"


def _course(template: Path, dest: Path, db_url: str, n: int, seed: int) -> Course:
    """A course whose nbgrader_config.py points at db_url (a copy of the generated gradebook), with a class."""
    c = _configure(template, dest, db_url)
    generate_class(dest, c.spec(A), ReferenceStore(c.references).load(A, "nvidia-h200"),
                   dest / "release" / A / f"{A}.ipynb", n, seed=seed)
    return c


def _grade_cli(course: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade", A, "--course", str(course), "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_nbgrader_autograde_and_fast_batch_write_the_same_rows_into_postgres(postgres, generated, course_template,
                                                                             tmp_path):
    native = _course(course_template, tmp_path / "native", _database(postgres, "native", generated), 3, seed=21)
    fast = _course(course_template, tmp_path / "fast", _database(postgres, "fast", generated), 3, seed=21)
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", A], cwd=native.root, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = grade_class(fast, A, workers=1)
    assert not result.failed and len(result.graded) == 3
    a = dump_rows(CourseSettings.load(native.root).db_url, A)
    b = dump_rows(CourseSettings.load(fast.root).db_url, A)
    assert len(b["submission"]) == 3 and len(b["grade"]) > 3
    assert without_ids(b) == without_ids(a)
    assert not (fast.root / "gradebook.db").exists(), "the fast batch wrote beside the configured gradebook"
    again = grade_class(fast, A, workers=1)
    assert sorted(again.skipped) == sorted(result.graded)
    assert dump_rows(CourseSettings.load(fast.root).db_url, A) == b  # ids included: nothing rewritten


def test_two_fast_graders_at_once_on_postgres_equal_one(postgres, generated, course_template, tmp_path):
    one = _course(course_template, tmp_path / "one", _database(postgres, "one", generated), 30, seed=22)
    two = _course(course_template, tmp_path / "two", _database(postgres, "two", generated), 30, seed=22)
    p = _grade_cli(one.root)
    _out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err[-2000:]
    procs = [_grade_cli(two.root) for _ in range(2)]
    for p in procs:
        _out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    rows_one = dump_rows(CourseSettings.load(one.root).db_url, A)
    rows_two = dump_rows(CourseSettings.load(two.root).db_url, A)
    assert len(rows_two["submission"]) == 30
    assert without_ids(rows_two) == without_ids(rows_one)

    def records(c: Course):
        return {r.student: r.model_dump(exclude={"graded_at"}) for r in RecordStore(c.records).all(A)}

    assert records(two) == records(one)
