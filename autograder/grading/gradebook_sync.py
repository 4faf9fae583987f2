"""Writing records into nbgrader's gradebook exactly as ``nbgrader autograde`` would.

SaveAutoGrades' rules, mirrored: a test cell's auto_score is its points; an answered manual cell has no
auto score and needs manual grading; an unanswered one scores 0. An existing manual score is kept and
flags the cell for review, as nbgrader does.
"""

from __future__ import annotations

from datetime import datetime

from nbgrader.api import Gradebook, MissingEntry

from ..errors import GradebookError
from ..records import SubmissionGrade

__all__ = ["read_rows", "write_comments", "write_submission"]


def write_comments(gb: Gradebook, record: SubmissionGrade, notebook: str) -> None:
    for e in record.explanations:
        try:
            c = gb.find_comment(e.grade_id, notebook, record.assignment, record.student)
        except MissingEntry:
            continue
        c.auto_comment = e.comment
    gb.db.commit()


def write_submission(gb: Gradebook, record: SubmissionGrade, notebook: str, timestamp: datetime | None = None) -> None:
    """Create or update the student's submission with the record's scores and comments."""
    gb.update_or_create_student(record.student)
    try:
        gb.find_submission(record.assignment, record.student)
    except MissingEntry:
        try:
            gb.add_submission(record.assignment, record.student, timestamp=timestamp)
        except MissingEntry as exc:
            raise GradebookError(
                f"assignment {record.assignment!r} is not in the gradebook: "
                f"run `nbgrader generate_assignment {record.assignment}` first"
            ) from exc
    scores = record.cell_scores()
    for gid, points in scores.items():
        g = gb.find_grade(gid, notebook, record.assignment, record.student)
        g.auto_score = points
        g.needs_manual_grade = g.manual_score is not None
    # SaveAutoGrades: every solution cell left as released reads "No response.", the others no comment
    for c in gb.find_submission_notebook(notebook, record.assignment, record.student).comments:
        c.auto_comment = "No response." if c.name in record.unanswered else None
    for e in record.explanations:
        g = gb.find_grade(e.grade_id, notebook, record.assignment, record.student)
        if e.grade_id in record.unanswered:
            g.auto_score = 0.0
            g.needs_manual_grade = g.manual_score is not None
        else:
            g.auto_score = None
            g.needs_manual_grade = True
    write_comments(gb, record, notebook)


def read_rows(db_url: str, assignment: str, notebook: str) -> dict[tuple[str, ...], object]:
    """Every student's auto scores, manual-grading flags and auto comments for one notebook, keyed
    (student, cell) / (student, cell, "manual") / (student, cell, "comment"): what two grading runs must
    agree on."""
    rows: dict[tuple[str, ...], object] = {}
    with Gradebook(db_url) as gb:
        for s in gb.students:
            try:
                nb = gb.find_submission_notebook(notebook, assignment, s.id)
            except MissingEntry:
                continue
            for g in nb.grades:
                rows[(s.id, g.name)] = g.auto_score
                rows[(s.id, g.name, "manual")] = g.needs_manual_grade
            for c in nb.comments:
                rows[(s.id, c.name, "comment")] = c.auto_comment
    return rows
