"""Students outside the course's Jupyter server upload their notebooks to Canvas; the instructor puts
Canvas's download archive in downloaded/ASSIGNMENT/archive/, runs `nbgrader zip_collect` (the course's
FileNameCollector regexp reads Canvas's file names) and grades as usual: every ledger arrives intact and
every student gets the grade their notebook earns when collected through nbgrader's own exchange."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.sample.generate import generate_class
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow
A = "04_fusion"
# Canvas: <lastfirst>_[LATE_]<user id>_<submission id>_<file name>, "-1" after a resubmitted file's name
CANVAS = {"ada": "lovelaceada_1001_5550001_04_fusion.ipynb", "bob": "smithbob_LATE_1002_5550002_04_fusion.ipynb",
          "cy": "nguyency_1003_5550003_04_fusion-1.ipynb"}
IDS = {"ada": "1001", "bob": "1002", "cy": "1003"}


def _nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    r = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=600, check=False)
    assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-2000:])
    return r


def test_a_canvas_download_archive_is_collected_and_graded_with_its_ledgers_intact(course_template, tmp_path):
    # two copies of the generated course (tests/conftest.py: make_course), one per way of collecting
    direct = Course.at(shutil.copytree(course_template, tmp_path / "direct"))
    spec = direct.spec(A)
    ref = ReferenceStore(direct.references).load(A, "nvidia-h200")
    generate_class(direct.root, spec, ref, direct.root / "release" / A / spec.notebook, 3, seed=3,
                   names=sorted(IDS))
    assert not grade_class(direct, A, workers=1).failed

    lms = Course.at(shutil.copytree(course_template, tmp_path / "lms"))
    archive = lms.root / "downloaded" / A / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as z:  # what Canvas's "Download Submissions" gives
        for name, canvas_name in CANVAS.items():
            z.write(direct.notebook_path(name, A), canvas_name)
    out = _nbgrader("zip_collect", A, cwd=lms.root)
    assert "3 files collected" in out.stdout + out.stderr
    for name, sid in IDS.items():
        got = lms.notebook_path(sid, A)
        assert got.read_bytes() == direct.notebook_path(name, A).read_bytes()  # the ledger, byte for byte

    result = grade_class(lms, A, workers=1)
    assert sorted(result.graded) == sorted(IDS.values()) and not result.failed
    before, after = RecordStore(direct.records), RecordStore(lms.records)
    for name, sid in IDS.items():
        want, got = before.load(A, name), after.load(A, sid)
        assert want is not None and got is not None
        assert got.chain.status == want.chain.status
        assert got.total == want.total and [p.fraction for p in got.predictions] == [
            p.fraction for p in want.predictions
        ]
    statuses = [r.chain.status for r in after.all(A)]
    assert statuses.count("ok") >= 2, statuses  # the sample class's honest students: their chains verify
