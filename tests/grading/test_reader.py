import json
from datetime import datetime, timezone

import nbformat
import pytest

from autograder.grading.reader import read_notebook_bytes
from autograder.records import LEDGER_MIME
from autograder.sample.generate import PERSONAS, make_submission

START = datetime(2026, 11, 28, tzinfo=timezone.utc)


@pytest.fixture()
def careful(release_nb_path, spec, h200):
    nb = nbformat.read(str(release_nb_path), as_version=4)
    return make_submission(nb, spec, h200, PERSONAS[0], seed=7, start=START)


def _bytes(nb):
    return nbformat.writes(nb).encode()


def test_a_clean_submission_reads_fully(careful, spec):
    r = read_notebook_bytes(_bytes(careful), spec)
    assert r.verdict.status == "ok" and not r.errors and not r.tampered_cells and not r.missing_cells
    assert set(r.explanations) == {"explain_headline", "explain_sweep"}
    assert r.student_device == "nvidia-h200"
    assert r.sha256 and len(r.sha256) == 64


@pytest.mark.parametrize(
    "data, needle",
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"not json at all", "not valid JSON"),
        (b"\xff\xfe\x00junk", "not UTF-8"),
        (b"[1, 2, 3]", "not a Jupyter notebook"),
        (b'{"cells": 5}', "not a Jupyter notebook"),
    ],
)
def test_unreadable_files_get_a_reason(spec, data, needle):
    r = read_notebook_bytes(data, spec)
    assert any(needle in e for e in r.errors)


def test_old_nbformat_is_reported(careful, spec):
    raw = json.loads(_bytes(careful))
    raw["nbformat"] = 3
    r = read_notebook_bytes(json.dumps(raw).encode(), spec)
    assert any("too old" in e for e in r.errors)


def test_edited_locked_cell_is_noticed(careful, spec):
    for c in careful.cells:
        if c.metadata.get("nbgrader", {}).get("grade_id") == "grade_gpu_speedup":
            c.source = "4.0  # full marks please"
    assert read_notebook_bytes(_bytes(careful), spec).tampered_cells == ["grade_gpu_speedup"]


def test_deleted_test_cell_is_noticed(careful, spec):
    careful.cells = [
        c for c in careful.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "grade_fp32_direction"
    ]
    assert read_notebook_bytes(_bytes(careful), spec).missing_cells == ["grade_fp32_direction"]


def test_prediction_edited_but_never_run(careful, spec):
    for c in careful.cells:
        if '"gpu_speedup@fp16,2^24"' in c.source and ".predict(" in c.source:
            c.source = c.source.replace(
                '"gpu_speedup@fp16,2^24",\n    ', '"gpu_speedup@fp16,2^24",\n    9.5, because="x",  # ', 1
            )
    r = read_notebook_bytes(_bytes(careful), spec)
    assert r.source_values["gpu_speedup@fp16,2^24"] == "9.5"


def test_ledger_of_another_lesson_is_ignored(careful, spec):
    for c in careful.cells:
        for o in c.get("outputs", []):
            if LEDGER_MIME in o.get("data", {}):
                o["data"][LEDGER_MIME]["lesson"] = "05_other"
    r = read_notebook_bytes(_bytes(careful), spec)
    assert r.verdict.status == "missing"
