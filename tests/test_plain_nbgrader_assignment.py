"""A plain nbgrader problem set (quickstart's ps1) in a course that uses this project's config: it must be
released and graded exactly as nbgrader's stock config does (same release, same gradebook rows)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.config import CourseSettings
from autograder.course import Course
from autograder.storage.gradebook_sync import read_rows

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


def _nbgrader(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _submit(root: Path, student: str, notebooks: Path) -> None:
    folder = root / "submitted" / student / "ps1"
    folder.mkdir(parents=True)
    for nb in notebooks.glob("*.ipynb"):
        shutil.copy2(nb, folder / nb.name)


def _cells(path: Path) -> list[tuple[str, str]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("quickstart")
    _nbgrader(scratch, "quickstart", "somecourse")
    stock = scratch / "somecourse"
    ours = Course.copy(REPO, tmp_path_factory.mktemp("ours") / "course").root
    shutil.copytree(stock / "source" / "ps1", ours / "source" / "ps1")
    shutil.copy2(stock / "source" / "header.ipynb", ours / "source" / "header.ipynb")
    with open(ours / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write('\nc.IncludeHeaderFooter.header = "source/header.ipynb"\n')
    for root in (stock, ours):
        _nbgrader(root, "generate_assignment", "ps1", "--force")
        _submit(root, "solver", root / "source" / "ps1")  # the instructor's solution: every test passes
        _submit(root, "blank", root / "release" / "ps1")  # handed in as released
    logs = {root: _nbgrader(root, "autograde", "ps1").stderr for root in (stock, ours)}
    return stock, ours, logs


def test_release_is_the_same(both):
    stock, ours, _ = both
    names = sorted(p.name for p in (stock / "release" / "ps1").glob("*.ipynb"))
    assert names == ["problem1.ipynb", "problem2.ipynb"]
    sources = []
    for name in names:
        ours_cells = _cells(ours / "release" / "ps1" / name)
        assert ours_cells == _cells(stock / "release" / "ps1" / name)
        sources += [src for _, src in ours_cells]
    assert not any("your prediction" in src for src in sources)
    assert any("raise NotImplementedError()" in src for src in sources)


def test_scores_are_the_same(both):
    stock, ours, logs = both
    assert "no lesson.toml" not in logs[ours]
    for notebook in ("problem1", "problem2"):
        a = read_rows(f"sqlite:///{stock / 'gradebook.db'}", "ps1", notebook)
        b = read_rows(CourseSettings.load(Course.at(ours).root).db_url, "ps1", notebook)
        assert a and a == b, notebook
    solved = read_rows(CourseSettings.load(Course.at(ours).root).db_url, "ps1", "problem1")
    assert any(v and v > 0 for k, v in solved.items() if k[0] == "solver" and len(k) == 2)
