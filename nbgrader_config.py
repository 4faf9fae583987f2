"""nbgrader configuration of the course: nbgrader's standard pipelines plus the project's exporter
(SubmissionExporter) and eight preprocessors: ReadLedger, WriteGradingContext, LimitedExecute,
ShowRecordedGrades and SaveGradingRecord (autograde), LessonClearSolutions (generate_assignment),
FeedbackPreRead (generate_feedback) and ShowPreRead (formgrader's HTML).

Everything is relative to this file's folder, so a copy of the course (tests, a grading node) works as is.
"""

from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    ClearMarkScheme,
    ClearOutput,
    ComputeChecksums,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    IncludeHeaderFooter,
    InstantiateTests,
    LimitOutput,
    LockCells,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
    SaveCells,
)

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file
root = Path(__file__).resolve().parent

c.CourseDirectory.root = str(root)
c.CourseDirectory.course_id = "gpu-lessons"
# timeout=60: a second writer waits instead of failing with "database is locked"
c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}?timeout=60"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback",
                            ".*.ledger.json", ".*.tmp", ".autograder_context.json"]

# Course grading rules (read by the preprocessors and by `autograder grade` alike, through one validated
# model: autograder/config/settings.py; a misspelled key is an error naming it). Unset ones keep their default.
c.LessonGrading.device_of_record = "nvidia-h200"
c.LessonGrading.use_student_gpu = True
c.LessonGrading.revised_after_measurement = "penalty"
c.LessonGrading.revised_penalty = 0.5
# A prediction committed after L.start_over() for a quantity measured before the restart, with a value other
# than the one committed before measuring it: its own verdict, costed like a revision by default.
c.LessonGrading.started_over_after_measurement = "penalty"
c.LessonGrading.started_over_penalty = 0.5
c.LessonGrading.untrusted_chain = "zero"
# The explanation pre-read in the student's feedback, below the instructor's comment (False: the instructor's
# comment only). Formgrader shows it to the instructor either way.
c.LessonGrading.preread_in_feedback = True

# Submitted notebooks are opened by the path-safe reader (no link followed, no FIFO opened, size checked
# before reading) instead of nbgrader's plain open(); for a lesson, nbgrader then gets the notebook in the
# released cell order, or the released notebook when the file cannot be graded from its content.
c.Autograde.exporter_class = "autograder.preprocessors.SubmissionExporter"

# ReadLedger grades the submission once (the record every later step shows); it must see the
# submission before ClearOutput wipes the student's outputs (and the ledger).
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
    "autograder.preprocessors.ShowRecordedGrades",
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    "autograder.preprocessors.SaveGradingRecord",
    AssignLatePenalties,
    CheckCellMetadata,
]
# Grading executes no benchmark (the reference is stored), but student cells may still import torch.
# The kernel runs in bubblewrap (autograder/preprocessors/sandbox.py: the Python environment, the package and
# its notebook's files, no network, no other file of the machine, an allow-listed environment) under limits;
# a notebook that hits one is graded on what it has, its record says why. notebook_timeout is the deadline of
# one submission's whole execution: cells after it are not run, and the class goes on.
c.LimitedExecute.timeout = 300
c.LimitedExecute.notebook_timeout = 900
c.LimitedExecute.memory_limit_mb = 8192
c.LimitedExecute.cpu_limit_s = 1800
c.LimitedExecute.file_limit_mb = 1024
# Per student, whatever the notebook does: everything it writes (/tmp and its folder are one tmpfs inside the
# sandbox, gone when the kernel ends), the output kept in the autograded notebook and the feedback (cut at
# the grader as it arrives; a kernel message over max_message_mb is dropped unread). Each overrun is a flag
# with its reason in the record, never a failed student.
c.LimitedExecute.scratch_mb = 512
c.LimitedExecute.output_limit_kb = 1024
c.LimitedExecute.max_message_mb = 32
# nbgrader's own line and traceback limits apply after that
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100
c.ClearMetadataPreprocessor.preserve_nb_metadata_mask = [("kernelspec",), ("language_info",), ("gpu_lessons",)]

# Code solution regions in a lesson are the argument slots of L.predict(...): the stub is itself valid
# arguments, so a released prediction cell runs and says "no prediction yet" until filled in. Plain
# nbgrader problem sets in the same course keep nbgrader's stub (LessonClearSolutions picks per assignment).
c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    "autograder.preprocessors.LessonClearSolutions",
    ClearOutput,
    CheckCellMetadata,
    ComputeChecksums,
    SaveCells,
    ClearHiddenTests,
    ClearMarkScheme,
    ComputeChecksums,
    CheckCellMetadata,
]
c.LessonClearSolutions.lesson_code_stub = {
    "python": 'None, because="",  # <- your prediction, and one sentence of reasoning'
}

# Feedback: nbgrader shows one comment per answer, the instructor's *instead of* the automatic one; for a
# lesson FeedbackPreRead shows both (the pre-read as c.LessonGrading.preread_in_feedback says).
c.GenerateFeedback.preprocessors = [GetGrades, "autograder.preprocessors.FeedbackPreRead", CSSHTMLHeaderPreprocessor]
# Formgrader shows the automatic comment only as the comment box's placeholder, gone once the instructor
# types: ShowPreRead shows it in full under the answer (formgrader's view only; the files are not changed).
c.HTMLExporter.preprocessors = ["autograder.preprocessors.ShowPreRead"]

# Students outside the course's Jupyter server (Colab, a laptop) upload the notebook to the LMS. Put the
# LMS's download archive (the .zip of every submission) in downloaded/ASSIGNMENT/archive/ and run
# `nbgrader zip_collect ASSIGNMENT`, then grade as usual. Canvas names each file
# <lastfirst>_[LATE_]<user id>_<submission id>_<name>.ipynb (a resubmission: <name>-1.ipynb); the Canvas
# user id becomes the nbgrader student id (to use the lastfirst name instead, move (?P<student_id>...) there).
c.FileNameCollectorPlugin.named_regexp = (
    r".*/[^/_]+_(?:LATE_)?(?P<student_id>\d+)_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$"
)
