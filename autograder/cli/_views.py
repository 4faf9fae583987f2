"""What the CLI shows of records and gradebook scores, as tables that stay readable in 80 columns
(:mod:`autograder.tables`): shared by `grade`, `report`, `check` and `demo`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.text import Text

from ..tables import Column, TextTable, print_table

if TYPE_CHECKING:
    from rich.console import Console

    from ..grading.checklist import CheckRow
    from ..records import SubmissionGrade
    from ..reports.course_report import CourseScores

__all__ = ["checklist_table", "course_table", "print_lines", "print_student", "summary_table"]


def summary_table(records: list[SubmissionGrade]) -> TextTable:
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..reports.report import summary_rows

    t = TextTable([Column("what"), Column("class")], title="class summary", show_header=False)
    for k, v in summary_rows(records):
        t.add_row(k, v)
    return t


def print_student(
    console: Console, r: SubmissionGrade, manual: Mapping[str, tuple[float | None, str | None]] | None = None
) -> None:
    """One student's scores, rounded as the gradebook shows them, every reason and pre-read in full, and
    what the instructor gave by hand (``manual``: cell -> (manual score, manual comment), from the gradebook)."""
    manual = manual or {}
    console.print(
        Text.assemble((r.student, "bold"), f": {r.total:.2f}/{r.max_total:g} (auto {r.total:.2f}; explanations manual)")
    )
    t = TextTable([Column("points", "right"), Column("why")], style="plain", show_header=False)
    for err in r.errors:
        t.add_row("not graded", f"not graded: {err}")
    for p in r.predictions:
        t.add_row(f"{p.points:.2f}/{p.max_points:g}", f"{p.quantity}: {p.reason}")
    for e in r.explanations:
        score, comment = manual.get(e.grade_id, (None, None))
        given = f"{score:.2f}/{e.max_points:g} from the instructor" if score is not None else "not graded by hand yet"
        points = f"{score:.2f}/{e.max_points:g}" if score is not None else f"—/{e.max_points:g}"
        t.add_row(points, f"{e.grade_id} ({given}): {e.comment}")
        if comment:
            t.add_row("", f"instructor's comment: {comment}")
    print_table(console, t)


def course_table(scores: CourseScores, students: list[str], title: str) -> TextTable:
    """Each student's total per lesson and for the course, as the gradebook holds them (two decimals)."""
    lessons = scores.assignments
    cols = [Column("student")]
    cols += [Column(f"{a}\n(of {scores.max_score.get(a, 0):g})", "right") for a in lessons]
    cols.append(Column(f"total\n(of {scores.course_max:g})", "right"))
    t = TextTable(cols, title=title)
    for s in students:
        t.add_row(s, *(f"{scores.total.get((s, a), 0):.2f}" for a in lessons), f"{scores.course_total(s):.2f}")
    return t


def checklist_table(rows: list[CheckRow]) -> TextTable:
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..grading.checklist import MARKS

    t = TextTable(
        [Column(""), Column("quantity"), Column("state"), Column("committed"), Column("note")], style="rule"
    )
    for r in rows:
        t.add_row(MARKS[r.state], r.quantity, r.state, r.value, r.note)
    return t


def print_lines(console: Console, lines: list[str], indent: str = "") -> None:
    """Plain lines, wrapped at spaces (never cut), as text: no markup or highlighting of student text."""
    for line in lines:
        console.print(Text(indent + line))
