"""A whole course at once: each student's scores across every lesson, auto and manual, from the gradebook.

The gradebook is the source of truth for totals (an instructor's manual scores on explanations live only
there); the records add what the gradebook cannot hold (flags, chain verdicts).  Read-only.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CANVAS_HEADER", "CourseScores", "read_course_scores", "write_canvas_csv", "write_course_csv"]

#: the identity columns of Canvas's gradebook CSV (what its "Import" accepts; students match on SIS Login ID)
CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


@dataclass
class CourseScores:
    """student -> assignment -> (auto, manual, total, max); max per assignment; assignments in order."""

    assignments: list[str]
    max_score: dict[str, float] = field(default_factory=dict)
    auto: dict[tuple[str, str], float] = field(default_factory=dict)
    manual: dict[tuple[str, str], float] = field(default_factory=dict)
    total: dict[tuple[str, str], float] = field(default_factory=dict)
    needs_manual: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def students(self) -> list[str]:
        return sorted({s for s, _ in self.total})

    def course_total(self, student: str) -> float:
        return round(sum(self.total.get((student, a), 0.0) for a in self.assignments), 2)

    @property
    def course_max(self) -> float:
        return round(sum(self.max_score.values()), 2)


def read_course_scores(db_url: str, assignments: list[str]) -> CourseScores:
    """Scores of every submission of ``assignments`` as the gradebook holds them (nbgrader's own rule:
    a manual score, where given, replaces the auto score of that cell)."""
    # start-up speed: nbgrader's ORM (SQLAlchemy) only when a gradebook is read
    from nbgrader.api import Gradebook, MissingEntry

    out = CourseScores(assignments=list(assignments))
    with Gradebook(db_url) as gb:
        for a in assignments:
            try:
                assignment = gb.find_assignment(a)
            except MissingEntry:
                continue
            out.max_score[a] = float(assignment.max_score)
            for sub in assignment.submissions:
                key = (sub.student.id, a)
                auto = manual = total = 0.0
                pending = 0
                for nb in sub.notebooks:
                    for g in nb.grades:
                        auto += g.auto_score or 0.0
                        manual += g.manual_score or 0.0
                        total += g.score or 0.0
                        pending += bool(g.needs_manual_grade)
                out.auto[key], out.manual[key], out.total[key] = round(auto, 2), round(manual, 2), round(total, 2)
                out.needs_manual[key] = pending
    return out


def write_course_csv(scores: CourseScores, path: str | Path) -> Path:
    """One row per student: per lesson auto, manual and total (rounded as the gradebook shows them), then
    the course total; cells still waiting for a manual grade are counted so nobody exports too early."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        head = ["student"]
        for a in scores.assignments:
            head += [f"{a} auto", f"{a} manual", f"{a} total", f"{a} max"]
        w.writerow([*head, "course total", "course max", "cells awaiting manual grading"])
        for s in scores.students:
            row: list[object] = [s]
            for a in scores.assignments:
                k = (s, a)
                row += [
                    scores.auto.get(k, ""),
                    scores.manual.get(k, ""),
                    scores.total.get(k, 0.0),
                    scores.max_score.get(a, ""),
                ]
            pending = sum(scores.needs_manual.get((s, a), 0) for a in scores.assignments)
            w.writerow([*row, scores.course_total(s), scores.course_max, pending])
    return p


def write_canvas_csv(scores: CourseScores, path: str | Path) -> Path:
    """Canvas's gradebook import layout: the identity columns, one column per lesson holding its total as
    the gradebook shows it, and the "Points Possible" row Canvas reads maxima from.  nbgrader's student id
    goes into "SIS Login ID" (JupyterHub logins usually are the institution's logins)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([*CANVAS_HEADER, *scores.assignments])
        maxima = [f"{scores.max_score.get(a, 0):g}" for a in scores.assignments]
        w.writerow(["Points Possible", "", "", "", "", *maxima])
        for s in scores.students:
            w.writerow([s, "", "", s, "", *(f"{scores.total.get((s, a), 0.0):.2f}" for a in scores.assignments)])
    return p
