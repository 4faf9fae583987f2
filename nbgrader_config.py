"""nbgrader configuration of the course: the standard pipeline plus the project's three preprocessors.

Everything is relative to this file's folder, so a copy of the course (tests, a grading node) works as is.
"""

from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    IgnorePattern,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file
root = Path(__file__).resolve().parent

c.CourseDirectory.root = str(root)
c.CourseDirectory.course_id = "gpu-lessons"
# timeout=60: a second writer waits instead of failing with "database is locked"
c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}?timeout=60"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback",
                            ".*.ledger.json", ".*.tmp", ".autograder_context.json"]

# Course grading rules (read by the preprocessors and by `autograder grade` alike).
c.LessonGrading.course_root = str(root)
c.LessonGrading.device_of_record = "nvidia-h200"
c.LessonGrading.use_student_gpu = True
c.LessonGrading.revised_after_measurement = "penalty"
c.LessonGrading.revised_penalty = 0.5
c.LessonGrading.untrusted_chain = "zero"

# ReadLedger must see the submission before ClearOutput wipes the student's outputs (and the ledger).
c.Autograde.sanitize_preprocessors = [
    "autograder.preprocessors.ReadLedger",
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    "autograder.preprocessors.WriteGradingContext",
    "autograder.preprocessors.LimitedExecute",
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    "autograder.preprocessors.SaveGradingRecord",
    AssignLatePenalties,
    CheckCellMetadata,
]
# Grading executes no benchmark (the reference is stored), but student cells may still import torch.
# The kernel runs under limits; a notebook that hits one is graded on what it has, its record says why.
c.LimitedExecute.timeout = 300
c.LimitedExecute.notebook_timeout = 900
c.LimitedExecute.memory_limit_mb = 8192
c.LimitedExecute.cpu_limit_s = 1800
c.LimitedExecute.file_limit_mb = 1024
c.ClearMetadataPreprocessor.preserve_nb_metadata_mask = [("kernelspec",), ("language_info",), ("gpu_lessons",)]

# Code solution regions in this course are the argument slots of L.predict(...): the stub is itself
# valid arguments, so a released prediction cell runs and says "no prediction yet" until filled in.
c.ClearSolutions.code_stub = {"python": 'None, because="",  # <- your prediction, and one sentence of reasoning'}
