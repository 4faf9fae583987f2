"""The course report: every lesson's scores per student, auto and manual, as the gradebook holds them."""

from __future__ import annotations

import csv

import pytest
from typer.testing import CliRunner

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.cli import app
from autograder.course import Course
from autograder.sample.generate import generate_class


@pytest.mark.slow  # nbgrader on three lessons
def test_course_csv_carries_manual_scores_and_course_totals(repo, tmp_path):
    c = Course.copy(repo, tmp_path / "course")
    names = ["ada", "bob", "cy"]
    lessons = ["03_roofline", "04_fusion"]
    for i, name in enumerate(lessons):
        c.generate_assignment(name)
        spec = c.spec(name)
        ref = ReferenceStore(c.references).load(name, "nvidia-h200")
        generate_class(c.root, spec, ref, c.root / "release" / name / spec.notebook, 3, seed=i, names=names)
        assert not grade_class(c, name, workers=1).failed
    from nbgrader.api import Gradebook

    from autograder.config import CourseSettings

    db_url = CourseSettings.load(c.root).db_url
    with Gradebook(db_url) as gb:  # the instructor grades one explanation in formgrader
        g = gb.find_grade("explain_headline", "04_fusion", "04_fusion", "ada")
        g.manual_score = 2.5
        gb.db.commit()
    canvas = c.root / "canvas.csv"
    r = CliRunner().invoke(app, ["report", "--course", str(c.root), "--canvas", str(canvas)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    rows = {row["student"]: row for row in csv.DictReader((c.root / "reports/course.csv").open())}
    assert sorted(rows) == names
    ada = rows["ada"]
    assert float(ada["04_fusion manual"]) == 2.5
    assert float(ada["04_fusion total"]) == round(float(ada["04_fusion auto"]) + 2.5, 2)
    total = sum(float(ada[f"{a} total"]) for a in lessons)
    assert float(ada["course total"]) == round(total, 2)
    assert float(ada["course max"]) == 14 + 14
    assert int(rows["bob"]["cells awaiting manual grading"]) >= 0
    assert "course: 3 students, 2 lessons" in " ".join(r.output.split())
    lines = list(csv.reader(canvas.open()))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *lessons]
    assert lines[1][0] == "Points Possible" and lines[1][5:] == ["14", "14"]
    by = {row[3]: row for row in lines[2:]}
    assert float(by["ada"][6]) == float(ada["04_fusion total"]) and len(by) == 3
