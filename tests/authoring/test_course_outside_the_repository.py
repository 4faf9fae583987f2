"""A course outside this repository: build the wheel, install it into a fresh venv, `autograder quickstart`
a course folder, and grade a lesson there end to end with nbgrader and autograder — nothing of the checkout
on the path. (The fresh venv borrows this venv's installed dependencies through a .pth file instead of
downloading torch again; the package itself comes only from the wheel.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
PARTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "nbgrader_config.py", "autograder", "source",
         "references")


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert r.returncode == 0, (cmd, r.stdout[-3000:], r.stderr[-3000:])
    return r


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[Path, str]:
    src = tmp_path_factory.mktemp("src")
    for part in PARTS:
        p = REPO / part
        if p.is_dir():
            shutil.copytree(p, src / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_course"))
        else:
            shutil.copy2(p, src / part)
    out = tmp_path_factory.mktemp("wheel")
    from importlib.metadata import version

    # this venv's setuptools when it can build the project (no download), else pip's isolated build
    isolation = ["--no-build-isolation"] if int(version("setuptools").split(".")[0]) >= 77 else []
    r = _run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", *isolation, "-w", str(out), str(src)], cwd=out)
    (whl,) = out.glob("gpu_lessons_autograder-*.whl")
    return whl, r.stdout + r.stderr


def test_the_wheel_builds_without_deprecation_warnings_and_carries_the_starter_course(wheel):
    import zipfile

    whl, log = wheel
    assert "deprecated" not in log.lower(), [ln for ln in log.splitlines() if "deprecat" in ln.lower()]
    names = set(zipfile.ZipFile(whl).namelist())
    lessons = sorted(p.parent.name for p in (REPO / "source").glob("*/lesson.toml"))
    assert "autograder/_course/nbgrader_config.py" in names
    for lesson in lessons:
        assert f"autograder/_course/source/{lesson}/lesson.toml" in names
        assert f"autograder/_course/source/{lesson}/workload.py" in names


def test_a_course_made_from_the_wheel_is_graded_end_to_end(wheel, tmp_path):
    whl, _ = wheel
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    (site / "_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(whl)], cwd=tmp_path)
    # nbgrader runs `alembic` by name: the borrowed dependencies' scripts come after the fresh venv's
    env = {**os.environ, "COLUMNS": "200",
           "PATH": f"{venv / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    where = _run([str(py), "-c", "import autograder; print(autograder.__file__)"], cwd=tmp_path, env=env).stdout
    assert where.strip().startswith(str(venv)), where  # the wheel's package, not this checkout

    autograder = str(venv / "bin" / "autograder")
    out = _run([autograder, "quickstart", "my-course"], cwd=tmp_path, env=env).stdout
    course = tmp_path / "my-course"
    assert "course created" in out and (course / "nbgrader_config.py").is_file()
    assert (course / "source/04_fusion/lesson.toml").is_file() and (course / "references/04_fusion").is_dir()
    refused = subprocess.run([autograder, "quickstart", "my-course"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, check=False)
    assert refused.returncode == 2 and "not empty" in refused.stdout + refused.stderr

    _run([str(py), "-m", "nbgrader", "generate_assignment", "04_fusion"], cwd=course, env=env)
    assert (course / "release/04_fusion/04_fusion.ipynb").is_file()
    _run([autograder, "lint", "04_fusion"], cwd=course, env=env)
    _run([autograder, "sample", "04_fusion", "--students", "3"], cwd=course, env=env)
    students = sorted(p.name for p in (course / "submitted").iterdir())
    _run([str(py), "-m", "nbgrader", "autograde", "04_fusion", "--student", students[0]], cwd=course, env=env)
    assert (course / "autograded" / students[0] / "04_fusion" / "04_fusion.ipynb").is_file()
    graded = _run([autograder, "grade", "04_fusion", "--workers", "1"], cwd=course, env=env).stdout
    # the student nbgrader graded has its record already (SaveGradingRecord): kept as it is
    assert "graded 2, unchanged 1" in graded and "nbgrader autograde 04_fusion` skips them" in graded
    records = [json.loads(p.read_text()) for p in (course / "records/04_fusion").glob("*.json")]
    assert len(records) == 3 and all(r["device_of_record"] == "nvidia-h200" for r in records)
    assert any(r["total"] > 0 for r in records)
    report = _run([autograder, "report", "04_fusion"], cwd=course, env=env).stdout
    assert "grades.csv" in report and (course / "reports/04_fusion/grades.csv").is_file()


def _borrow(dists: list[str], into: Path) -> None:
    """Links the installed modules of ``dists`` and of everything they require into ``into``."""
    import re
    from importlib.metadata import PackageNotFoundError, distribution

    purelib = Path(sysconfig.get_paths()["purelib"])
    seen: set[str] = set()
    todo = list(dists)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            continue
        for f in dist.files or []:
            top = f.parts[0]
            if top != ".." and not (into / top).exists() and (purelib / top).exists():
                (into / top).symlink_to(purelib / top)
        todo += [m.group(0) for r in dist.requires or [] if "extra ==" not in r
                 for m in [re.match(r"[A-Za-z0-9_.-]+", r)] if m]


def test_the_first_cell_s_install_line_is_all_a_student_with_torch_needs(wheel, tmp_path):
    """The released notebook's first cell names the package without its dependencies, plus pydantic and
    markdown-it-py: in a Python that has only torch (and what torch needs) and those two, the installed
    wheel runs the lesson."""
    import tomllib

    import nbformat

    whl, _ = wheel
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pydantic = next(d for d in project["dependencies"] if d.startswith("pydantic"))
    markdown = next(d for d in project["dependencies"] if d.startswith("markdown-it-py"))
    line = f'pip install --no-deps {project["name"]} && pip install "{pydantic}" "{markdown}"'
    for lesson in sorted(p.parent.name for p in (REPO / "source").glob("*/lesson.toml")):
        first = nbformat.read(REPO / "release" / lesson / f"{lesson}.ipynb", as_version=4).cells[0]
        assert line in first.source, lesson

    venv = tmp_path / "student"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    borrowed = tmp_path / "borrowed"
    borrowed.mkdir()
    _borrow(["torch", "pydantic", "markdown-it-py"], borrowed)
    (site / "_has.pth").write_text(f"{borrowed}\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(whl)], cwd=tmp_path)
    work = tmp_path / "colab"
    shutil.copytree(REPO / "release" / "04_fusion", work)
    code = (
        "from autograder.lesson import Lesson\n"
        "L = Lesson.load()\n"
        "for q in L.spec.quantities:\n"
        "    L.predict(q.id, 'same' if q.kind == 'direction' else 2.0, because='a guess')\n"
        "L.measure('float16', 12)\n"
        "L.status()\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = _run([str(py), "-c", code], cwd=work, env=env).stdout
    assert "4/4 predictions committed and valid" in out, out
    assert "wall_per_call" in out and "gpu_time" in out  # measured both ways
