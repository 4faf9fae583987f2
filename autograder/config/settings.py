"""The course's settings: one validated pydantic model, read once from ``nbgrader_config.py``.

:class:`CourseSettings` is the one object: where the course lives and its gradebook (nbgrader's own
``c.CourseDirectory.root``, ``.db_url``, ``.course_id``), its grading rules (``c.LessonGrading.*``, a
:class:`~autograder.grading.policy.GradingPolicy`) and where Slurm jobs go (``c.SlurmGrading.*``, a
:class:`~autograder.config.slurm.SlurmSettings`). Every setting has its one default there. It is read through
one source, :class:`NbgraderConfigSource` (the pattern of pydantic-settings' sources: a callable returning
the dict the model validates), from the file or from the traitlets ``Config`` nbgrader hands a preprocessor.
Unknown keys are refused by the models (``extra="forbid"``): a typo is one line naming the key and the file.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from ..bench.store import ReferenceStore
from ..course import Course
from ..errors import ConfigError
from ..grading.policy import GradingPolicy
from .slurm import SlurmSettings

__all__ = [
    "CONFIG_FILE",
    "CourseSettings",
    "NbgraderConfigSource",
    "default_db_url",
    "load_course_config",
]

CONFIG_FILE = "nbgrader_config.py"

#: the sections of nbgrader_config.py that are this project's, and the model each one is validated as
SECTIONS: dict[str, type[BaseModel]] = {"LessonGrading": GradingPolicy, "SlurmGrading": SlurmSettings}

#: nbgrader's own section whose settings the course reads: model field -> CourseDirectory key
COURSE_DIRECTORY = {"root": "root", "db_url": "db_url", "course_id": "course_id"}

#: keys that moved: (section, old key) -> where the setting is written now
MOVED = {("LessonGrading", "course_root"): "c.CourseDirectory.root"}


def default_db_url(root: str | Path) -> str:
    """nbgrader's own default (CourseDirectory.db_url) when the config names none."""
    return f"sqlite:///{Path(root).resolve() / 'gradebook.db'}"


class CourseSettings(BaseModel):
    """One course's settings: where it lives, its gradebook, its grading rules, its cluster."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    root: Path = Field(default_factory=Path.cwd, description="course folder (c.CourseDirectory.root)")
    db_url: str = Field(default="", description="nbgrader's gradebook; empty: COURSE/gradebook.db as nbgrader")
    course_id: str = Field(default="", description="nbgrader's course id (c.CourseDirectory.course_id)")
    policy: GradingPolicy = Field(default_factory=GradingPolicy, alias="LessonGrading")
    slurm: SlurmSettings = Field(default_factory=SlurmSettings, alias="SlurmGrading")

    @model_validator(mode="after")
    def _resolved(self) -> CourseSettings:
        root = self.root.resolve()
        object.__setattr__(self, "root", root)
        if not self.db_url:
            object.__setattr__(self, "db_url", default_db_url(root))
        return self

    @property
    def course(self) -> Course:
        return Course.at(self.root)

    @property
    def preread_in_feedback(self) -> bool:
        return self.policy.preread_in_feedback

    def store(self) -> ReferenceStore:
        """The course's stored references."""
        return ReferenceStore(self.course.references)

    @classmethod
    def load(cls, root: str | Path | None = None) -> CourseSettings:
        """Read ``ROOT/nbgrader_config.py`` (the current directory by default)."""
        return cls.from_source(NbgraderConfigSource.file(root or os.getcwd()))

    @classmethod
    def from_config(cls, config: Config, root: str | Path | None = None) -> CourseSettings:
        """From a traitlets ``Config`` already loaded (a preprocessor's ``self.config``); ``root`` wins over
        its ``c.CourseDirectory.root``."""
        return cls.from_source(NbgraderConfigSource(config, root))

    @classmethod
    def from_source(cls, source: NbgraderConfigSource) -> CourseSettings:
        try:
            return cls.model_validate(source())
        except ValidationError as exc:
            raise ConfigError(source.explain(exc)) from None


class NbgraderConfigSource:
    """The settings source of :class:`CourseSettings` (in the pattern of pydantic-settings' sources: calling
    it returns the dict the model validates): this project's sections of nbgrader_config.py as they are
    written, and the three CourseDirectory settings the course reads. ``root`` (when given) is the course
    folder whatever the config says: the folder the file was read from."""

    def __init__(self, config: Config, root: str | Path | None = None, origin: str = CONFIG_FILE) -> None:
        self.config = config
        self.root = Path(root).resolve() if root is not None else None
        self.origin = origin

    @classmethod
    def file(cls, root: str | Path) -> NbgraderConfigSource:
        """``ROOT/nbgrader_config.py`` (no setting but the folder itself when the file is absent)."""
        folder = Path(root).resolve()
        return cls(load_course_config(folder), folder)

    def __call__(self) -> dict[str, Any]:
        self._refuse_moved_and_misspelled_sections()
        data: dict[str, Any] = {
            name: _plain(self.config[name]) for name in SECTIONS if name in self.config
        }
        course_dir = self.config.get("CourseDirectory", Config())
        for field, key in COURSE_DIRECTORY.items():
            if key in course_dir and course_dir[key] not in (None, ""):
                data[field] = str(course_dir[key])
        if self.root is not None:
            data["root"] = self.root
        return data

    def _refuse_moved_and_misspelled_sections(self) -> None:
        for (section, key), now in MOVED.items():
            if key in self.config.get(section, {}):
                raise ConfigError(f"{self.origin}: c.{section}.{key} is now {now}; write it there instead")
        for name in self.config:
            close = difflib.get_close_matches(name, list(SECTIONS), n=1, cutoff=0.85)
            if close and close[0] != name:
                raise ConfigError(f"{self.origin}: c.{name} is not a section; did you mean c.{close[0]}?")

    def explain(self, exc: ValidationError) -> str:
        """The first problem as one line naming the key as the file spells it."""
        first = exc.errors()[0]
        loc = [str(p) for p in first["loc"]]
        section, key = (loc[0], ".".join(loc[1:])) if loc[0] in SECTIONS else ("CourseDirectory", loc[0])
        if first["type"] == "extra_forbidden":
            known = _keys(SECTIONS[section])
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else f"; known: {', '.join(known)}"
            return f"{self.origin}: c.{section}.{key} is not a setting{hint}"
        return f"{self.origin}: c.{section}.{key} = {first.get('input')!r}: {first['msg']}"


def _keys(model: type[BaseModel]) -> list[str]:
    """The keys a section accepts, as nbgrader_config.py spells them."""
    names: list[str] = []
    for name, field in model.model_fields.items():
        choices = getattr(field.validation_alias, "choices", None)
        names.append(str(choices[-1]) if choices else name)
    return sorted(names)


def _plain(value: Any) -> Any:
    """A traitlets Config section as plain dicts and strings (what pydantic validates; a value given on the
    command line is a traitlets ``DeferredConfigString``)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return str(value)
    return value


def load_course_config(root: str | Path) -> Config:
    """The course's nbgrader_config.py as a traitlets Config (empty if the file is absent)."""
    p = Path(root).resolve() / CONFIG_FILE
    if not p.exists():
        return Config()
    return PyFileConfigLoader(p.name, path=str(p.parent)).load_config()
