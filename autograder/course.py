"""Where a course keeps its things, resolved from one root folder (the folder of nbgrader_config.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import LessonSpecError
from .spec import LessonSpec, load_spec

__all__ = ["Course"]


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

    @property
    def gradebook_url(self) -> str:
        return f"sqlite:///{self.root / 'gradebook.db'}?timeout=60"

    def spec(self, assignment: str) -> LessonSpec:
        for folder in (self.root / "source" / assignment, self.root / "release" / assignment):
            if (folder / "lesson.toml").exists():
                return load_spec(folder)
        raise LessonSpecError(f"no lesson.toml for assignment {assignment!r} under {self.root}/source or release")

    def notebook_path(self, student: str, assignment: str) -> Path:
        return self.submitted / student / assignment / self.spec(assignment).notebook
