"""Writing records into nbgrader's gradebook exactly as ``nbgrader autograde`` would.

SaveAutoGrades' rules, mirrored: a test cell's auto_score is its points; an answered manual cell has no
auto score and needs manual grading; an unanswered one scores 0. An existing manual score is kept and
flags the cell for review, as nbgrader does. Every solution cell left as released reads "No response.";
an explanation cell carries the record's comment.

Two writers share those rules (:func:`targets`): :func:`write_gradebook`, the bulk writer the batch uses
(one query per table to load what exists, executemany inserts and updates of only what differs, one
transaction, nbgrader's own ORM models), and :func:`write_submission`, row by row through nbgrader's
:class:`Gradebook` API, kept as the reference the bulk writer is tested against.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import GradebookError
from ..records import SubmissionGrade

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

__all__ = [
    "GradebookEntry",
    "GradebookWrite",
    "dump_rows",
    "manual_marks",
    "read_rows",
    "require_assignment",
    "targets",
    "without_ids",
    "write_gradebook",
    "write_submission",
]

NO_RESPONSE = "No response."
# needs_manual_grade of an auto-scored cell follows its manual score: None here means "manual_score is not None"
GradeTarget = tuple[float | None, bool | None]


def targets(record: SubmissionGrade) -> tuple[dict[str, GradeTarget], dict[str, str | None]]:
    """(grade cell -> (auto_score, needs_manual_grade or None), comment cell -> auto_comment) for the cells
    the record decides; any other solution cell gets "No response." if unanswered, else no comment."""
    grades: dict[str, GradeTarget] = {gid: (points, None) for gid, points in record.cell_scores().items()}
    comments: dict[str, str | None] = {}
    for e in record.explanations:
        grades[e.grade_id] = (0.0, None) if e.grade_id in record.unanswered else (None, True)
        comments[e.grade_id] = e.comment
    return grades, comments


@dataclass(frozen=True)
class GradebookEntry:
    """What the gradebook gets of one record: small, so a merge of 10,000 need not hold full records."""

    student: str
    grades: Mapping[str, GradeTarget]
    comments: Mapping[str, str | None]
    unanswered: frozenset[str]

    @classmethod
    def of(cls, record: SubmissionGrade) -> GradebookEntry:
        grades, comments = targets(record)
        return cls(record.student, grades, comments, frozenset(record.unanswered))

    def comment(self, name: str) -> str | None:
        if name in self.comments:
            return self.comments[name]
        return NO_RESPONSE if name in self.unanswered else None


def _new_id() -> str:
    """What nbgrader's ``new_uuid`` makes (``uuid4().hex``: 122 random bits, version 4, RFC 4122 variant),
    at a tenth of its cost, which adds up over the 140,000 rows of a fresh class of 10,000."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return b.hex()


def _needs_manual(target: GradeTarget, manual_score: float | None) -> bool:
    return target[1] if target[1] is not None else manual_score is not None


# --- row by row, through nbgrader's Gradebook API ------------------------------------------------------
def write_submission(gb: Gradebook, record: SubmissionGrade, notebook: str, timestamp: datetime | None = None) -> None:
    """Create or update the student's submission with the record's scores and comments, the way
    ``nbgrader autograde`` does it: one ORM round trip per row."""
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from nbgrader.api import MissingEntry

    gb.update_or_create_student(record.student)
    try:
        if timestamp is not None:
            gb.update_or_create_submission(record.assignment, record.student, timestamp=timestamp)  # type: ignore[arg-type]
        else:
            gb.update_or_create_submission(record.assignment, record.student)
    except MissingEntry as exc:
        raise GradebookError(
            f"assignment {record.assignment!r} is not in the gradebook: "
            f"run `nbgrader generate_assignment {record.assignment}` first"
        ) from exc
    entry = GradebookEntry.of(record)
    for gid, target in entry.grades.items():
        g = gb.find_grade(gid, notebook, record.assignment, record.student)
        g.auto_score = target[0]
        g.needs_manual_grade = _needs_manual(target, g.manual_score)
    for c in gb.find_submission_notebook(notebook, record.assignment, record.student).comments:
        c.auto_comment = entry.comment(c.name)
    gb.db.commit()


# --- in bulk -------------------------------------------------------------------------------------------
@dataclass
class GradebookWrite:
    """What one bulk write did (all zero on a rerun with nothing changed)."""

    inserted: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return any(self.inserted.values()) or any(self.updated.values())


@contextlib.contextmanager
def _writers_serialized(gb: Gradebook, db_url: str) -> Iterator[None]:
    """One bulk writer at a time per gradebook: each decides what to insert from what it read, so a second
    writer must read after the first committed. SQLite: a file lock beside the database file (the database
    lives on this machine's or the course's file system); PostgreSQL / MySQL: a lock held by the server
    for the transaction, so graders on several machines serialize too."""
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from filelock import FileLock
    from sqlalchemy import text
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    backend = url.get_backend_name()
    if backend == "sqlite":
        path = url.database
        lock = FileLock(f"{path}.lock") if path and path != ":memory:" else contextlib.nullcontext()
        with lock:
            yield
    elif backend == "postgresql":
        gb.db.execute(text("SELECT pg_advisory_xact_lock(7263514902)"))  # released at commit or rollback
        yield
    elif backend in ("mysql", "mariadb"):
        gb.db.execute(text("SELECT GET_LOCK('autograder_gradebook', 3600)"))
        try:
            yield
        finally:
            gb.db.execute(text("SELECT RELEASE_LOCK('autograder_gradebook')"))
    else:
        yield


def write_gradebook(
    db_url: str,
    course_id: str,
    assignment: str,
    notebook: str,
    records: Sequence[SubmissionGrade | GradebookEntry],
    timestamps: Mapping[str, datetime | None],
    progress: Callable[[str, int, int], None] | None = None,
) -> GradebookWrite:
    """Write every record into the gradebook at ``db_url`` in one transaction: the rows nbgrader's
    ``add_submission`` would create (a submission mirrors every notebook and cell of the assignment),
    holding the values SaveAutoGrades would write, inserting what is missing and updating only what
    differs. Idempotent: a rerun reads, finds nothing to change and writes nothing."""
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from nbgrader.api import Gradebook

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy warnings nbgrader's models trip; rows are unaffected
        with Gradebook(db_url, course_id) as gb, _writers_serialized(gb, db_url):
            try:
                entries = [r if isinstance(r, GradebookEntry) else GradebookEntry.of(r) for r in records]
                done = _write(gb, assignment, notebook, entries, timestamps)
                gb.db.commit()
            except BaseException:
                gb.db.rollback()
                raise
    if progress:
        progress("gradebook", len(records), len(records))
    return done


def require_assignment(db_url: str, assignment: str) -> None:
    """Fail before grading, not after: the gradebook must exist and know the assignment (an SQLite file
    that is not there is not created by this check)."""
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    hint = f"run `nbgrader generate_assignment {assignment}` in the course first (or grade with --no-gradebook)"
    if url.get_backend_name() == "sqlite" and url.database and not os.path.exists(url.database):
        raise GradebookError(f"no gradebook at {url.database}: {hint}")
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise GradebookError(f"assignment {assignment!r} is not in the gradebook: {hint}") from None


def _write(
    gb: Gradebook,
    assignment: str,
    notebook: str,
    records: Sequence[GradebookEntry],
    timestamps: Mapping[str, datetime | None],
) -> GradebookWrite:
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from nbgrader.api import (
        Assignment,
        Comment,
        Grade,
        Student,
        SubmittedAssignment,
        SubmittedNotebook,
    )
    from nbgrader.utils import parse_utc
    from sqlalchemy import bindparam, insert, select, update

    s = gb.db
    a = s.execute(select(Assignment).where(Assignment.name == assignment)).scalar_one_or_none()
    if a is None:
        raise GradebookError(
            f"assignment {assignment!r} is not in the gradebook: run `nbgrader generate_assignment {assignment}` first"
        )
    # the assignment's structure, as add_submission mirrors it: grade rows for grade and task cells,
    # comment rows for solution and task cells
    layout: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    for nb in a.notebooks:
        grade_cells = {c.name: c.id for c in [*nb.grade_cells, *nb.task_cells]}
        comment_cells = {c.name: c.id for c in [*nb.solution_cells, *nb.task_cells]}
        layout[nb.id] = (grade_cells, comment_cells)
    target_nb = next((nb.id for nb in a.notebooks if nb.name == notebook), None)
    if target_nb is None:
        raise GradebookError(f"notebook {notebook!r} of {assignment!r} is not in the gradebook: regenerate it")

    SA, SN = SubmittedAssignment, SubmittedNotebook
    conn = s.connection()  # plain rows, no ORM loading: this is most of a rerun's cost
    students = set(conn.execute(select(Student.id)).scalars())
    subs = {student: (sub_id, ts) for sub_id, student, ts in conn.execute(
        select(SA.id, SA.student_id, SA.timestamp).where(SA.assignment_id == a.id))}
    snbs = {
        (sub_id, nb_id): snb_id
        for snb_id, sub_id, nb_id in conn.execute(
            select(SN.id, SN.assignment_id, SN.notebook_id).join(SA, SA.id == SN.assignment_id).where(
                SA.assignment_id == a.id))
    }
    grades = {
        (row[1], row[2]): row
        for row in conn.execute(
            select(Grade.id, Grade.notebook_id, Grade.cell_id, Grade.auto_score, Grade.manual_score,
                   Grade.needs_manual_grade)
            .join(SN, SN.id == Grade.notebook_id).join(SA, SA.id == SN.assignment_id).where(SA.assignment_id == a.id)
        ).cursor.fetchall()  # the driver's tuples: SQLAlchemy rows cost more than the query (0/1 == False/True)
    }
    comments = {
        (row[1], row[2]): row
        for row in conn.execute(
            select(Comment.id, Comment.notebook_id, Comment.cell_id, Comment.auto_comment)
            .join(SN, SN.id == Comment.notebook_id).join(SA, SA.id == SN.assignment_id).where(SA.assignment_id == a.id)
        ).cursor.fetchall()
    }

    new: dict[str, list[dict[str, Any]]] = {"student": [], "submission": [], "notebook": [], "grade": [],
                                            "comment": []}
    changed: dict[str, list[dict[str, Any]]] = {"submission": [], "grade": [], "comment": []}
    for rec in records:
        if rec.student not in students:
            new["student"].append({"id": rec.student})
            students.add(rec.student)
        ts = parse_utc(timestamps.get(rec.student))  # type: ignore[arg-type]
        if rec.student in subs:
            sub_id, old_ts = subs[rec.student]
            if ts is not None and ts != old_ts:
                changed["submission"].append({"id": sub_id, "timestamp": ts})
        else:
            sub_id = _new_id()
            new["submission"].append({"id": sub_id, "assignment_id": a.id, "student_id": rec.student,
                                      "timestamp": ts, "extension": None})
            subs[rec.student] = (sub_id, ts)
        wanted_grades = rec.grades
        for nb_id, (grade_cells, comment_cells) in layout.items():
            snb_id = snbs.get((sub_id, nb_id))
            if snb_id is None:
                snb_id = _new_id()
                new["notebook"].append({"id": snb_id, "assignment_id": sub_id, "notebook_id": nb_id, "flagged": False,
                                        "late_submission_penalty": None})
            mine = nb_id == target_nb
            for name, cell_id in grade_cells.items():
                row = grades.get((snb_id, cell_id))
                target = wanted_grades.get(name) if mine else None
                manual = row[4] if row is not None else None
                if row is None:
                    auto, needs = (target[0], _needs_manual(target, None)) if target else (None, True)
                    new["grade"].append({"id": _new_id(), "notebook_id": snb_id, "cell_id": cell_id,
                                         "auto_score": auto, "manual_score": None, "extra_credit": None,
                                         "needs_manual_grade": needs})
                elif target is not None:
                    needs = _needs_manual(target, manual)
                    if row[3] != target[0] or row[5] != needs:
                        changed["grade"].append({"id": row[0], "auto_score": target[0], "needs_manual_grade": needs})
            for name, cell_id in comment_cells.items():
                row = comments.get((snb_id, cell_id))
                text = rec.comment(name) if mine else None
                if row is None:
                    new["comment"].append({"id": _new_id(), "notebook_id": snb_id, "cell_id": cell_id,
                                           "auto_comment": text, "manual_comment": None})
                elif mine and row[3] != text:
                    changed["comment"].append({"id": row[0], "auto_comment": text})
        unknown = set(wanted_grades) - set(layout[target_nb][0])
        if unknown:
            raise GradebookError(
                f"cells {sorted(unknown)} of {assignment}/{notebook} are not in the gradebook: "
                f"run `nbgrader generate_assignment {assignment}` again"
            )

    # executemany on nbgrader's tables (Core: the ORM's bulk path costs 30 µs a row, a fresh class of
    # 10,000 has 140,000 rows), in the session's transaction
    tables = {"student": Student, "submission": SA, "notebook": SN, "grade": Grade, "comment": Comment}
    for kind in ("student", "submission", "notebook", "grade", "comment"):  # parents before children
        if new[kind]:
            conn.execute(insert(tables[kind].__table__), new[kind])  # type: ignore[attr-defined]
    for kind, rows in changed.items():
        if rows:
            table = tables[kind].__table__  # type: ignore[attr-defined]
            columns = [c for c in rows[0] if c != "id"]
            stmt = update(table).where(table.c.id == bindparam("row_id")).values(
                {c: bindparam(f"new_{c}") for c in columns})
            conn.execute(stmt, [{"row_id": r["id"], **{f"new_{c}": r[c] for c in columns}} for r in rows])
    return GradebookWrite({k: len(v) for k, v in new.items()}, {k: len(v) for k, v in changed.items()})


# --- reading back ----------------------------------------------------------------------------------------
def dump_rows(db_url: str, assignment: str) -> dict[str, dict[tuple[Any, ...], tuple[Any, ...]]]:
    """Every row one assignment's submissions own, keyed by what identifies it across databases
    (student, notebook, cell), valued by every column, ids first: what two writers must agree on."""
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from nbgrader.api import (
        Assignment,
        BaseCell,
        Comment,
        Grade,
        Notebook,
        Student,
        SubmittedAssignment,
        SubmittedNotebook,
    )
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    SA, SN = SubmittedAssignment, SubmittedNotebook
    out: dict[str, dict[tuple[Any, ...], tuple[Any, ...]]] = {}
    engine = create_engine(db_url)  # not nbgrader's Gradebook: opening one may write (a course row)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Session(engine) as s:
            mine = SA.assignment_id == select(Assignment.id).where(Assignment.name == assignment).scalar_subquery()
            out["student"] = {
                (r.id,): (r.first_name, r.last_name, r.email, r.lms_user_id)
                for r in s.execute(select(Student.id, Student.first_name, Student.last_name, Student.email,
                                          Student.lms_user_id).join(SA, SA.student_id == Student.id).where(mine))
            }
            out["submission"] = {
                (r.student_id,): (r.id, r.timestamp, r.extension)
                for r in s.execute(select(SA.id, SA.student_id, SA.timestamp, SA.extension).where(mine))
            }
            out["notebook"] = {
                (r.student_id, r.name): (r.id, r.flagged, r.late_submission_penalty)
                for r in s.execute(select(SN.id, SA.student_id, Notebook.name, SN.flagged, SN.late_submission_penalty)
                                   .join(SA, SA.id == SN.assignment_id).join(Notebook, Notebook.id == SN.notebook_id)
                                   .where(mine))
            }
            out["grade"] = {
                (r.student_id, r.nb, r.cell): (r.id, r.auto_score, r.manual_score, r.extra_credit,
                                               r.needs_manual_grade)
                for r in s.execute(select(Grade.id, SA.student_id, Notebook.name.label("nb"),
                                          BaseCell.name.label("cell"), Grade.auto_score, Grade.manual_score,
                                          Grade.extra_credit, Grade.needs_manual_grade)
                                   .join(SN, SN.id == Grade.notebook_id).join(SA, SA.id == SN.assignment_id)
                                   .join(Notebook, Notebook.id == SN.notebook_id)
                                   .join(BaseCell, BaseCell.id == Grade.cell_id).where(mine))
            }
            out["comment"] = {
                (r.student_id, r.nb, r.cell): (r.id, r.auto_comment, r.manual_comment)
                for r in s.execute(select(Comment.id, SA.student_id, Notebook.name.label("nb"),
                                          BaseCell.name.label("cell"), Comment.auto_comment, Comment.manual_comment)
                                   .join(SN, SN.id == Comment.notebook_id).join(SA, SA.id == SN.assignment_id)
                                   .join(Notebook, Notebook.id == SN.notebook_id)
                                   .join(BaseCell, BaseCell.id == Comment.cell_id).where(mine))
            }
    engine.dispose()
    return out


def without_ids(dump: Mapping[str, Mapping[tuple[Any, ...], tuple[Any, ...]]]) -> dict[str, dict[Any, Any]]:
    """A :func:`dump_rows` with the generated row ids dropped, to compare two databases."""
    return {t: {k: (v if t == "student" else v[1:]) for k, v in rows.items()} for t, rows in dump.items()}


def read_rows(db_url: str, assignment: str, notebook: str) -> dict[tuple[str, ...], object]:
    """Every student's auto scores, manual-grading flags and auto comments for one notebook, keyed
    (student, cell) / (student, cell, "manual") / (student, cell, "comment"): what two grading runs must
    agree on."""
    dump = dump_rows(db_url, assignment)
    rows: dict[tuple[str, ...], object] = {}
    for (student, nb, cell), g in dump["grade"].items():
        if nb == notebook:
            rows[(student, cell)] = g[1]
            rows[(student, cell, "manual")] = g[4]
    for (student, nb, cell), c in dump["comment"].items():
        if nb == notebook:
            rows[(student, cell, "comment")] = c[1]
    return rows


def manual_marks(db_url: str, record: SubmissionGrade) -> dict[str, tuple[float | None, str | None]]:
    """What the instructor gave this record's cells in the gradebook at ``db_url``: grade id -> (manual
    score, manual comment). Empty when there is no gradebook yet (never creates one) or it is not one."""
    # start-up speed: nbgrader's ORM and SQLAlchemy only when a gradebook is touched
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    url = make_url(db_url)
    dump: dict[str, dict[tuple[Any, ...], tuple[Any, ...]]] = {}
    if url.get_backend_name() != "sqlite" or (url.database and Path(url.database).exists()):
        try:
            dump = dump_rows(db_url, record.assignment)
        except SQLAlchemyError:  # not a gradebook (yet): the record alone
            dump = {}
    notebook = record.notebook.removesuffix(".ipynb")
    manual: dict[str, tuple[float | None, str | None]] = {}
    for (student, nb, cell), row in dump.get("grade", {}).items():
        if student == record.student and nb == notebook:
            manual[cell] = (row[2], None)
    for (student, nb, cell), row in dump.get("comment", {}).items():
        if student == record.student and nb == notebook and row[2]:
            manual[cell] = (manual.get(cell, (None, None))[0], row[2])
    return manual
