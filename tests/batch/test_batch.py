import time
from pathlib import Path

import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.errors import ReferenceNotFoundError
from autograder.grading.policy import GradingPolicy
from autograder.sample.generate import generate_class
from autograder.storage.gradebook_sync import read_rows
from autograder.storage.records_store import RecordStore


def _setup(course_path, n=24):
    c = Course.at(course_path)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    ids = generate_class(c.root, spec, ref, c.root / "release/04_fusion/04_fusion.ipynb", n, seed=3)
    return c, ids


def _auto_scores(course_path):
    return read_rows(f"sqlite:///{course_path / 'gradebook.db'}", "04_fusion", "04_fusion")


def test_batch_grades_a_class_and_writes_the_gradebook(course):
    c, ids = _setup(course)
    result = grade_class(c, "04_fusion", GradingPolicy(), workers=2)
    assert sorted(result.graded) == sorted(ids) and not result.failed
    records = RecordStore(c.records).all("04_fusion")
    assert len(records) == len(ids)
    rows = _auto_scores(course)
    assert len({k[0] for k in rows}) == len(ids)
    for rec in records:
        for p in rec.predictions:
            assert rows[(rec.student, p.grade_id)] == pytest.approx(p.points)
        for e in rec.explanations:
            assert rows[(rec.student, e.grade_id, "manual")] == (e.grade_id not in rec.unanswered)
            assert rows[(rec.student, e.grade_id, "comment")] == e.comment
    blank = [r for r in records if "blank" in r.student]
    assert all(r.total == 0 for r in blank)
    forger = [r for r in records if "forger" in r.student]
    assert all(r.chain.status == "forged" and r.total == 0 for r in forger)


def test_rerun_skips_graded_and_regrades_changed_notebooks(course):
    c, ids = _setup(course, n=6)
    grade_class(c, "04_fusion", GradingPolicy(), workers=1)
    before = _auto_scores(course)
    again = grade_class(c, "04_fusion", GradingPolicy(), workers=1)
    assert sorted(again.skipped) == sorted(ids) and not again.graded
    assert _auto_scores(course) == before  # idempotent: no duplicate rows
    nb = c.submitted / ids[0] / "04_fusion" / "04_fusion.ipynb"
    nb.write_bytes(nb.read_bytes().replace(b'"cells"', b'"cells" ', 1))
    third = grade_class(c, "04_fusion", GradingPolicy(), workers=1)
    assert third.graded == [ids[0]]


def test_missing_reference_is_a_clear_error(course):
    c, _ = _setup(course, n=2)
    with pytest.raises(ReferenceNotFoundError, match="run `autograder bench 04_fusion`"):
        grade_class(c, "04_fusion", GradingPolicy(device_of_record="tesla-t4"))


def test_student_gpu_reference_is_used_when_it_exists(course, h200):
    c, ids = _setup(course, n=3)
    t4 = h200.model_copy(update={"device": h200.device.model_copy(update={"key": "tesla-t4", "name": "Tesla T4"})})
    ReferenceStore(c.references).save(t4)
    # the synthetic students measured on the H200: they are graded on it, and the record says so
    grade_class(c, "04_fusion", GradingPolicy(device_of_record="tesla-t4"), workers=1)
    rec = RecordStore(c.records).load("04_fusion", ids[0])
    assert rec.device_of_record == "nvidia-h200"
    assert "graded against your own GPU model, NVIDIA H200" in rec.predictions[0].reason


def test_no_gradebook_fails_before_grading_anything(repo, tmp_path):
    from autograder.errors import GradebookError

    c = Course.copy(repo, tmp_path / "course")  # never released: no gradebook.db
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    generate_class(c.root, spec, ref, repo / "release/04_fusion/04_fusion.ipynb", 2, seed=1)
    with pytest.raises(GradebookError, match="nbgrader generate_assignment 04_fusion"):
        grade_class(c, "04_fusion", GradingPolicy(), workers=1)
    assert not (c.root / "gradebook.db").exists() and not c.records.exists()


def test_a_student_setup_that_differs_from_the_reference_is_named_in_the_reason(spec, h200):
    from datetime import datetime, timezone

    from autograder.bench.store import ReferenceStore
    from autograder.grading.grade import grade_submission
    from autograder.grading.reader import read_notebook_node
    from autograder.grading.references import ReferenceSet
    from autograder.ledger import append, genesis
    from autograder.lesson._output import ledger_bundle

    t = datetime(2026, 11, 30, tzinfo=timezone.utc)
    chain = [genesis("04_fusion", "n" * 32, t)]
    chain.append(append(chain, "prediction", "gpu_speedup@fp16,2^24", 3.9, t, "4x less traffic"))
    meta = {"device_key": "nvidia-h200", "device_name": "NVIDIA H200", "torch": "2.9.1+cu128", "method": "gpu_time"}
    chain.append(append(chain, "measurement", "gpu_speedup@fp16,2^24", 3.8, t, meta=meta))
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "a1", "metadata": {}, "source": "", "execution_count": 1,
         "outputs": [{"output_type": "display_data", "metadata": {}, "data": ledger_bundle("04_fusion", chain, "x")}]}
    ]}
    reading = read_notebook_node(nb, spec)
    assert reading.student_meta["torch"] == "2.9.1+cu128"
    refs = ReferenceSet(ReferenceStore(Path(__file__).resolve().parents[2] / "references"), "04_fusion", GradingPolicy())
    record = grade_submission(reading, spec, refs, GradingPolicy(), "s")
    reason = record.predictions[0].reason
    assert "your setup differs from the reference's: torch 2.9 (reference: 2.11)" in reason


@pytest.mark.slow  # a 300,000-entry ledger
def test_a_submission_over_the_deadline_gets_a_record_saying_so_and_the_batch_goes_on(course):
    """A 300,000-entry ledger takes seconds to read; under a 1 s deadline its worker is killed, the student
    gets a record (every reason says why, in the gradebook too), the class is graded, a rerun does not
    grade it again, and a rerun with --force and no deadline grades it."""
    import json

    from tests.grading.test_bad_inputs import _bytes, _long_ledger

    c, ids = _setup(course, n=6)
    slow = c.submitted / "slow" / "04_fusion"
    slow.mkdir(parents=True)
    first = json.loads((c.submitted / ids[0] / "04_fusion" / "04_fusion.ipynb").read_text(encoding="utf-8"))
    (slow / "04_fusion.ipynb").write_bytes(_bytes(_long_ledger(first)))
    start = time.monotonic()
    result = grade_class(c, "04_fusion", GradingPolicy(submission_deadline_s=1.0), workers=2)
    assert time.monotonic() - start < 60
    assert not result.failed and sorted(result.graded) == sorted([*ids, "slow"])
    store = RecordStore(c.records)
    rec = store.load("04_fusion", "slow")
    assert rec.flags[0] == "grading_timeout" and rec.total == 0 and "unreadable" not in rec.flags
    assert all("took longer than the course's 1 s per submission" in p.reason for p in rec.predictions)
    assert all(e.comment.startswith("Not graded: grading this notebook took longer") for e in rec.explanations)
    assert (c.root / "autograded" / "slow" / "04_fusion" / "04_fusion.ipynb").is_file()
    rows = _auto_scores(course)
    assert rows[("slow", rec.explanations[0].grade_id, "comment")] == rec.explanations[0].comment
    clean = {s: store.load("04_fusion", s).total for s in ids}

    again = grade_class(c, "04_fusion", GradingPolicy(submission_deadline_s=1.0), workers=2)
    assert "slow" in again.skipped and not again.graded  # resumable: nothing graded twice

    forced = grade_class(c, "04_fusion", GradingPolicy(submission_deadline_s=0), students=["slow"], force=True)
    assert forced.graded == ["slow"]
    rec = store.load("04_fusion", "slow")
    assert "grading_timeout" not in rec.flags and "ledger_too_long" in rec.flags
    assert {s: store.load("04_fusion", s).total for s in ids} == clean
