"""Choosing a submission's reference: only what the store's own folder lists, read safely; a device a
ledger claims is a value checked against that listing, never a path (issue 18)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from autograder.bench.store import ReferenceStore
from autograder.errors import ReferenceNotFoundError
from autograder.grading.policy import GradingPolicy
from autograder.grading.references import ReferenceSet, claim_problem

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def store(tmp_path) -> ReferenceStore:
    folder = tmp_path / "references" / "04_fusion"
    folder.mkdir(parents=True)
    shutil.copy(REPO / "references" / "04_fusion" / "nvidia-h200.json", folder / "nvidia-h200.json")
    return ReferenceStore(tmp_path / "references")


def _refs(store, **policy) -> ReferenceSet:
    return ReferenceSet(store, "04_fusion", GradingPolicy(**policy))


def _save_as(store, h200, key, name):
    run = h200.model_copy(update={"device": h200.device.model_copy(update={"key": key, "name": name})})
    return store.save(run)


def test_the_listing_is_the_stores_own_folder(store, h200):
    _save_as(store, h200, "tesla-t4", "Tesla T4")
    folder = store.root / "04_fusion"
    (folder / "tesla-t4.candidate.json").write_text("{}")
    (folder / "Bad Key.json").write_text("{}")
    (folder / "notes.txt").write_text("x")
    assert _refs(store).listed() == {"nvidia-h200", "tesla-t4"}


def test_a_path_claim_never_opens_a_file(store, tmp_path, h200):
    """The exploit: a key that walks out of the store to a reference the student wrote."""
    mine = tmp_path / "submitted" / "eve" / "04_fusion"
    mine.mkdir(parents=True)
    (mine / "myref.json").write_text(h200.model_dump_json())
    choice = _refs(store).choose("../../submitted/eve/04_fusion/myref", None)
    assert choice.reference.device.key == "nvidia-h200" and choice.flags == ("device_claim_invalid",)
    assert "path separator" in choice.note and "graded on the course's device, NVIDIA H200" in choice.note


def test_the_students_own_gpu_is_used_only_when_listed_and_its_name_matches(store, h200):
    _save_as(store, h200, "tesla-t4", "Tesla T4")
    refs = _refs(store)
    own = refs.choose("tesla-t4", "Tesla T4")
    assert own.reference.device.key == "tesla-t4" and not own.flags
    mismatch = refs.choose("tesla-t4", "NVIDIA H200")
    assert mismatch.reference.device.key == "nvidia-h200" and mismatch.flags == ("device_claim_mismatch",)
    assert "whose key is 'nvidia-h200'" in mismatch.note
    unknown = refs.choose("nvidia-b300", "NVIDIA B300")
    assert unknown.reference.device.key == "nvidia-h200" and unknown.flags == ("device_claim_unknown",)
    assert unknown.note.startswith("you measured on NVIDIA B300; the course grades on NVIDIA H200")
    assert refs.choose("cpu", "CPU (AMD EPYC)").flags == ()  # any CPU is 'cpu'
    assert _refs(store, use_student_gpu=False).choose("tesla-t4", "Tesla T4").reference.device.key == "nvidia-h200"
    assert refs.for_student("tesla-t4", "Tesla T4")[0].device.key == "tesla-t4"  # the (reference, note) form


@pytest.mark.parametrize("key", ["../x", "a/b", "nvidia-h200.candidate", "NVIDIA-H200", "", "x" * 65, "a--b",
                                 "-a", "a\x00", "nvidia h200", "nvidia-h200\n"])
def test_claims_that_cannot_be_a_device_key_are_invalid(key):
    assert claim_problem(key, None)[0] == "device_claim_invalid"


def test_a_fifo_as_the_device_of_record_fails_at_once_with_its_reason(store):
    folder = store.root / "04_fusion"
    (folder / "nvidia-h200.json").unlink()
    os.mkfifo(folder / "nvidia-h200.json")
    start = time.monotonic()
    with pytest.raises(ReferenceNotFoundError, match="is a named pipe"):
        _refs(store).course_reference()
    assert time.monotonic() - start < 2


def test_a_listed_fifo_or_link_or_foreign_reference_is_not_used(store, tmp_path, h200):
    folder = store.root / "04_fusion"
    os.mkfifo(folder / "tesla-t4.json")
    (tmp_path / "elsewhere.json").write_text(h200.model_copy(update={"device": h200.device.model_copy(
        update={"key": "tesla-v100", "name": "Tesla V100"})}).model_dump_json())
    (folder / "tesla-v100.json").symlink_to(tmp_path / "elsewhere.json")
    (folder / "tesla-p100.json").write_text(h200.model_dump_json())  # says it is the H200's
    refs = _refs(store)
    start = time.monotonic()
    for key, name, why in (("tesla-t4", "Tesla T4", "named pipe"), ("tesla-v100", "Tesla V100", "symbolic link"),
                           ("tesla-p100", "Tesla P100", "holds the reference of 04_fusion on 'nvidia-h200'")):
        choice = refs.choose(key, name)
        assert choice.reference.device.key == "nvidia-h200", key
        assert why in (refs.problem(key) or ""), (key, refs.problem(key))
    assert time.monotonic() - start < 2
