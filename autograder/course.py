"""Where a course keeps its things, resolved from one root folder (the folder of nbgrader_config.py).

The gradebook is not among them: nbgrader_config.py's ``c.CourseDirectory.db_url`` names it
(autograder.config.CourseSettings reads it), which may be PostgreSQL on another machine."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .errors import AutograderError, LessonSpecError
from .spec import LessonSpec, load_spec

__all__ = ["STARTER_PARTS", "Course", "quickstart", "starter_course"]

#: what a new course starts with (what the wheel packages: setup.py)
STARTER_PARTS = ("nbgrader_config.py", "source", "references")


@dataclass(frozen=True)
class Course:
    root: Path

    @classmethod
    def at(cls, root: str | Path | None = None) -> Course:
        return cls(Path(root or ".").resolve())

    @property
    def references(self) -> Path:
        return self.root / "references"

    @property
    def records(self) -> Path:
        return self.root / "records"

    @property
    def submitted(self) -> Path:
        return self.root / "submitted"

    @classmethod
    def copy(
        cls, src: str | Path, dest: str | Path, parts: Iterable[str] = ("nbgrader_config.py", "source", "references")
    ) -> Course:
        """A new course at ``dest`` holding ``parts`` of the course at ``src`` (a scratch copy for demos,
        tests and benchmarks; nbgrader_config.py resolves every path relative to its own folder)."""
        root = Path(dest)
        root.mkdir(parents=True, exist_ok=True)
        for name in parts:
            p = Path(src) / name
            if p.is_dir():
                shutil.copytree(p, root / name)
            else:
                shutil.copy2(p, root / name)
        return cls.at(root)

    def generate_assignment(self, assignment: str) -> None:
        """`nbgrader generate_assignment ASSIGNMENT --force` here: writes release/ and the gradebook."""
        env = dict(os.environ)
        # nbgrader runs `alembic` for its database: it must be on PATH beside this interpreter
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        proc = subprocess.run(
            [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise AutograderError(f"nbgrader generate_assignment {assignment} failed:\n{proc.stderr[-2000:]}")

    def spec(self, assignment: str) -> LessonSpec:
        for folder in (self.root / "source" / assignment, self.root / "release" / assignment):
            if (folder / "lesson.toml").exists():
                return load_spec(folder)
        raise LessonSpecError(self._unknown(assignment))

    def lessons(self) -> list[str]:
        """Assignments of this course that are lessons (a folder with a lesson.toml under source/ or release/)."""
        return sorted({p.parent.name for d in ("source", "release") for p in (self.root / d).glob("*/lesson.toml")})

    def _unknown(self, assignment: str) -> str:
        known = self.lessons()
        if not (self.root / "nbgrader_config.py").exists():
            return (
                f"no lesson.toml for assignment {assignment!r}: {self.root} is not a course (no nbgrader_config.py); "
                "run from the course folder or pass -C COURSE"
            )
        close = difflib.get_close_matches(assignment, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return (
            f"no lesson.toml for assignment {assignment!r} under {self.root}/source or release "
            f"(lessons here: {', '.join(known) or 'none'}){hint}"
        )

    def notebook_path(self, student: str, assignment: str) -> Path:
        return self.submitted / student / assignment / self.spec(assignment).notebook


def starter_course() -> Path:
    """The starter course this package carries: ``autograder/_course/`` of an installed wheel, or the
    checkout itself for an editable install (the folder above the package, when it holds the course)."""
    packaged = Path(__file__).resolve().parent / "_course"
    for root in (packaged, packaged.parent.parent):
        if all((root / part).exists() for part in STARTER_PARTS):
            return root
    raise AutograderError(
        f"this installation of the package carries no starter course ({packaged} is missing): reinstall it "
        "from the wheel (pip install gpu-lessons-autograder)"
    )


def quickstart(dest: str | Path, force: bool = False) -> Course:
    """A new course at ``dest``: nbgrader_config.py, the starter lessons (source/) and their references,
    like `nbgrader quickstart`. Refuses a folder that already holds a course unless ``force``."""
    root = Path(dest).resolve()
    if root.exists() and any(root.iterdir()) and not force:
        raise AutograderError(f"{root} exists and is not empty: pick a new folder, or pass --force to add the "
                              "starter course to it (its nbgrader_config.py, source/ and references/ are replaced)")
    src = starter_course()
    root.mkdir(parents=True, exist_ok=True)
    for part in STARTER_PARTS:
        target = root / part
        if target.is_dir():
            shutil.rmtree(target)
    course = Course.copy(src, root, STARTER_PARTS)
    (root / ".gitignore").write_text(
        "# what grading writes: keep it out of the course's repository\n"
        + "".join(f"{line}\n" for line in _GENERATED),
        encoding="utf-8",
    )
    return course


_GENERATED = ("gradebook.db", "gradebook.db.lock", "/submitted/", "/autograded/", "/feedback/", "/records/",
              "/reports/", "/demo/", "*.ledger.json", ".autograder_context.json", "__pycache__/",
              "/.kernel_results/")
