"""Course configuration as a traitlets Configurable, so ``nbgrader_config.py`` configures every path.

nbgrader's preprocessors and the ``autograder`` CLI both build a :class:`LessonGrading` from the same
config file; its :meth:`policy` is the pydantic GradingPolicy that the pure graders take.
"""

from __future__ import annotations

import os
from pathlib import Path

from traitlets import Bool, Enum, Float, Unicode
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from .bench.store import ReferenceStore
from .course import Course
from .grading.policy import GradingPolicy

__all__ = ["LessonGrading", "load_course_config"]


class LessonGrading(Configurable):
    course_root = Unicode("", help="Course root; default: the current directory.").tag(config=True)
    device_of_record = Unicode("nvidia-h200", help="Reference device key predictions are graded on.").tag(config=True)
    use_student_gpu = Bool(True, help="Grade on the student's own GPU model when a reference exists.").tag(config=True)
    revised_after_measurement = Enum(
        ["flag", "penalty", "zero"],
        default_value="penalty",
        help="What a prediction changed after its measurement costs.",
    ).tag(config=True)
    revised_penalty = Float(0.5, help="Fraction of credit kept under the 'penalty' policy.").tag(config=True)
    untrusted_chain = Enum(
        ["zero", "flag"], default_value="zero", help="What a broken/forged commitment chain costs its predictions."
    ).tag(config=True)

    def course(self) -> Course:
        return Course.at(self.course_root or os.getcwd())

    def store(self) -> ReferenceStore:
        return ReferenceStore(self.course().references)

    def policy(self) -> GradingPolicy:
        return GradingPolicy.model_validate(
            {
                "device_of_record": self.device_of_record,
                "use_student_gpu": self.use_student_gpu,
                "revised_after_measurement": self.revised_after_measurement,
                "revised_penalty": self.revised_penalty,
                "untrusted_chain": self.untrusted_chain,
            }
        )


def load_course_config(root: str | Path) -> Config:
    """The course's nbgrader_config.py as a traitlets Config (empty if the file is absent)."""
    p = Path(root).resolve() / "nbgrader_config.py"
    if not p.exists():
        return Config()
    return PyFileConfigLoader(p.name, path=str(p.parent)).load_config()
