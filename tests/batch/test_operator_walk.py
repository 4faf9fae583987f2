"""A new operator's first class with `autograder grade` (the local executor), through the real CLI in a
subprocess and nbgrader's real gradebook: what they see for each step and for each mistake a newcomer
makes (grading before the release exists, a wrong assignment name, no submissions yet, an unwritable
records/ folder, a notebook that is not JSON, a folder holding renamed copies), the rerun that changes
nothing, one changed submission, and a run stopped halfway then resumed."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.config import CourseSettings
from autograder.storage.gradebook_sync import read_rows

pytestmark = pytest.mark.slow


def _cli(course: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _records(course: Path) -> set[str]:
    return {p.stem for p in (course / "records" / "04_fusion").glob("*.json")}


def _gradebook_students(course: Path) -> set[str]:
    return {row[0] for row in read_rows(CourseSettings.load(course).db_url, "04_fusion", "04_fusion")}


def test_mistakes_before_the_first_class(tmp_path, course_template):
    new = tmp_path / "new"
    r = _cli(tmp_path, "quickstart", str(new))
    assert r.returncode == 0, r.stderr
    r = _cli(new, "grade", "04_fusion")  # before `nbgrader generate_assignment`
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "run `nbgrader generate_assignment 04_fusion` in the course first" in r.stderr
    r = _cli(new, "sample", "04_fusion", "--students", "3")  # no release to fill in yet
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "no released notebook" in r.stderr and "nbgrader generate_assignment 04_fusion" in r.stderr
    course = tmp_path / "course"
    shutil.copytree(course_template, course)
    r = _cli(course, "grade", "04_fuson")
    assert r.returncode == 2 and "did you mean 04_fusion?" in r.stderr, r.stderr
    r = _cli(course, "grade", "04_fusion")  # released, nothing collected yet: not "nothing changed"
    assert r.returncode == 2 and "no submissions of 04_fusion under" in r.stderr, r.stdout + r.stderr
    assert "autograder sample 04_fusion" in r.stderr and "nothing changed" not in r.stdout


def _unwritable(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI with records/ read-only for it: a read-only bind mount for root (whom permissions do not stop),
    else the folder's permissions."""
    records = course / "records"
    records.mkdir(exist_ok=True)
    if os.geteuid() != 0:
        records.chmod(0o500)
        try:
            return _cli(course, *args)
        finally:
            records.chmod(0o700)
    if shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: no way to make records/ unwritable")
    cmd = " ".join([f"mount --bind {records} {records} && mount -o remount,bind,ro {records} &&",
                    sys.executable, "-m", "autograder", *args])
    return subprocess.run(["unshare", "-m", "bash", "-c", cmd], cwd=course, capture_output=True, text=True,
                          timeout=120)


def test_a_class_graded_rerun_changed_and_resumed(tmp_path, course_template):
    course = tmp_path / "course"
    shutil.copytree(course_template, course)
    r = _cli(course, "sample", "04_fusion", "--students", "40")
    assert r.returncode == 0 and "40 submissions written" in r.stdout, r.stderr
    sub = course / "submitted"
    (sub / "zz_notjson" / "04_fusion").mkdir(parents=True)
    (sub / "zz_notjson" / "04_fusion" / "04_fusion.ipynb").write_text("this is not json {")
    (sub / "zz_renamed" / "04_fusion").mkdir(parents=True)
    some = sorted(sub.glob("*/04_fusion/04_fusion.ipynb"))[:2]
    shutil.copy(some[0], sub / "zz_renamed" / "04_fusion" / "04_fusion (1).ipynb")
    shutil.copy(some[1], sub / "zz_renamed" / "04_fusion" / "Untitled.ipynb")

    r = _unwritable(course, "grade", "04_fusion")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert "cannot write the records under" in r.stderr and "failed" not in r.stdout
    assert not _records(course)

    # stopped halfway (SIGTERM, as a closed terminal or a batch system sends): what is written is kept
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", "04_fusion", "--workers", "1"], cwd=course,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while not _records(course) and proc.poll() is None and time.monotonic() - t0 < 90:
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    kept = _records(course)
    assert proc.returncode == 130, out + err
    assert "interrupted: every record written so far is kept" in err and "Run the same command again" in err
    assert 0 < len(kept) < 42, kept

    r = _cli(course, "grade", "04_fusion")  # resumed
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"graded {42 - len(kept)}, unchanged {len(kept)}, failed 0" in r.stdout, r.stdout
    assert "not read: zz_notjson: the notebook file is not valid JSON" in r.stdout
    assert ("not read: zz_renamed: submitted/zz_renamed/04_fusion/04_fusion.ipynb does not exist; the folder "
            "holds 04_fusion (1).ipynb, Untitled.ipynb: rename the one to grade to 04_fusion.ipynb") in r.stdout
    assert len(_records(course)) == 42 and _gradebook_students(course) == _records(course)

    r = _cli(course, "grade", "04_fusion")  # nothing changed (the folder without its notebook included)
    assert r.returncode == 0 and "graded 0, unchanged 42, failed 0" in r.stdout, r.stdout
    assert "nothing changed" in r.stdout and "not read" not in r.stdout

    changed = some[0]
    nb = json.loads(changed.read_text())
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "one more thought"})
    changed.write_text(json.dumps(nb))
    r = _cli(course, "grade", "04_fusion")
    assert r.returncode == 0 and "graded 1, unchanged 41, failed 0" in r.stdout, r.stdout

    r = _cli(course, "report", "04_fusion")
    assert r.returncode == 0 and "submissions" in r.stdout and "42" in r.stdout, r.stdout + r.stderr
    assert (course / "reports" / "04_fusion" / "grades.csv").is_file()


@pytest.mark.parametrize("columns", [80, 120])
def test_grade_help_reads_cleanly(tmp_path, columns):
    """What `autograder grade --help` shows: each paragraph wrapped at the terminal's width (no line broken
    early, as the docstring's own line breaks left, and no stub of one word), no option's text cut off."""
    env = {**os.environ, "COLUMNS": str(columns)}
    r = subprocess.run([str(Path(sys.executable).parent / "autograder"), "grade", "--help"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout, r.stdout  # an option's help cut off at the column's edge
    lines = r.stdout.splitlines()
    prose = [ln.strip() for ln in lines[: next(i for i, ln in enumerate(lines) if ln.startswith("╭"))]]
    paragraphs = [p.strip().splitlines() for p in "\n".join(prose).split("\n\n") if p.strip()]
    assert paragraphs[0] == ["Usage: autograder grade [OPTIONS] {assignment}"]
    assert len(paragraphs) == 3 and "without starting a kernel" in " ".join(paragraphs[1])
    for para in paragraphs[1:]:
        for line, following in itertools.pairwise(para):
            # greedy wrapping: the next line's first word did not fit on this one
            assert len(line) + 1 + len(following.split()[0]) > columns - 2, (line, following)
