"""Packages the course's starter lessons into the wheel (everything else is in pyproject.toml).

`autograder quickstart COURSE` copies them out of the installed package: ``nbgrader_config.py``, ``source/``
(the lessons) and ``references/`` (their stored H200 references) land in ``autograder/_course/`` of the
built wheel. An editable install reads them from this checkout instead (autograder.course.starter_course).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
STARTER = ("nbgrader_config.py", "source", "references")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints", "*.candidate.json", ".*")


class BuildWithStarterCourse(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dest = Path(self.build_lib) / "autograder" / "_course"
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for name in STARTER:
            src = HERE / name
            if src.is_dir():
                shutil.copytree(src, dest / name, ignore=SKIP)
            elif src.is_file():
                shutil.copy2(src, dest / name)


setup(cmdclass={"build_py": BuildWithStarterCourse})
