"""What an explanation cell's comment becomes where people read it: the student's feedback and formgrader.

nbgrader keeps two comments per answer cell: the *automatic* one (this project writes the explanation
pre-read there, on both grading paths) and the instructor's *manual* one. Stock nbgrader shows the manual
comment *instead of* the automatic one, in formgrader (the pre-read is only the grey placeholder of the
comment box, gone once the instructor types) and in the feedback (the pre-read is dropped). Here both are
kept: the feedback shows the instructor's comment, then the automatic one, a pre-read only when the course
wants students to see it (``c.LessonGrading.preread_in_feedback``); formgrader shows the automatic comment
in full beside the answer. Pure functions: the gradebook rows are never changed by reading them.
"""

from __future__ import annotations

import html

from ..preread import PREREAD
from .gradebook_sync import NO_RESPONSE

__all__ = ["feedback_comment", "formgrader_note", "is_preread"]


def is_preread(text: str | None) -> bool:
    return bool(text) and str(text).lstrip().startswith(PREREAD)


def _given(text: str | None) -> str | None:
    """A comment as written, or None when there is none (formgrader saves a cleared box as "")."""
    return text.strip() if text and text.strip() else None


def feedback_comment(manual: str | None, auto: str | None, include_preread: bool) -> str | None:
    """The comment the student's feedback shows for one answer cell: the instructor's comment first, then
    the automatic one (its own paragraph, after a rule) unless it is a pre-read the course keeps from
    students. None when there is nothing to show."""
    parts = [_given(manual)]
    shown_auto = _given(auto)
    if shown_auto is not None:  # the autograder's text quotes numbers from the student's answer: no raw HTML
        shown_auto = html.escape(shown_auto, quote=False)
    if shown_auto is not None and is_preread(shown_auto) and not include_preread:
        shown_auto = None
    if shown_auto is not None and parts[0] is not None and shown_auto == NO_RESPONSE:
        shown_auto = None  # the instructor has commented on the blank answer: "No response." adds nothing
    parts.append(shown_auto)
    given = [p for p in parts if p is not None]
    return "\n\n---\n\n".join(given) if given else None


def formgrader_note(grade_id: str, auto: str | None, include_preread: bool) -> str | None:
    """Markdown shown in formgrader under an answer: its automatic comment in full (nbgrader only shows it
    as the comment box's placeholder), and whether the student's feedback will include it. None when the
    cell has no automatic comment worth showing ("No response." is visible from the answer itself)."""
    text = _given(auto)
    if text is None or text == NO_RESPONSE:
        return None
    if is_preread(text):
        where = (
            "the student's feedback shows it below your comment"
            if include_preread
            else "not shown to the student (`c.LessonGrading.preread_in_feedback = False`)"
        )
    else:
        where = "the student's feedback shows it below your comment"
    body = html.escape(text, quote=False).replace("\n", "\n> ")
    return f"> **Autograder on `{grade_id}`** ({where}):\n>\n> {body}"
