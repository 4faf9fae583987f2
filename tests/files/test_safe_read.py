"""The path-safe reader on real files of every kind: only a regular file inside the course is read."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from autograder.files.safe_read import open_in_folder, open_submission, refusal_of_folder


@pytest.fixture()
def course(tmp_path: Path) -> Path:
    folder = tmp_path / "course" / "submitted" / "ann" / "a1"
    folder.mkdir(parents=True)
    (folder / "nb.ipynb").write_bytes(b'{"cells": []}')
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.ipynb").write_bytes(b"secret")
    return tmp_path / "course"


def _nb(course: Path) -> Path:
    return course / "submitted" / "ann" / "a1" / "nb.ipynb"


def test_a_regular_file_is_read(course):
    got = open_submission(course, "ann", "a1", "nb.ipynb")
    assert got.ok and got.data == b'{"cells": []}' and got.refusal is None


def test_a_linked_notebook_is_not_followed(course):
    _nb(course).unlink()
    _nb(course).symlink_to(course.parent / "outside" / "secret.ipynb")
    got = open_submission(course, "ann", "a1", "nb.ipynb")
    assert got.data is None and "symbolic link" in got.refusal and "secret" not in got.refusal.replace("nb.ipynb", "")


@pytest.mark.parametrize("level", ["submitted", "student", "assignment"])
def test_a_linked_folder_on_the_path_is_not_followed(course, level):
    outside = course.parent / "outside"
    (outside / "ann" / "a1").mkdir(parents=True)
    (outside / "a1").mkdir()
    (outside / "ann" / "a1" / "nb.ipynb").write_bytes(b"secret")
    (outside / "a1" / "nb.ipynb").write_bytes(b"secret")
    target = {"submitted": course / "submitted", "student": course / "submitted" / "ann",
              "assignment": course / "submitted" / "ann" / "a1"}[level]
    os.rename(target, course.parent / f"moved_{level}")
    target.symlink_to({"submitted": outside, "student": outside / "ann", "assignment": outside / "a1"}[level])
    got = open_submission(course, "ann", "a1", "nb.ipynb")
    assert got.data is None and "symbolic link" in got.refusal
    assert refusal_of_folder(course, "ann", "a1") is not None


def test_a_fifo_is_refused_without_hanging(course):
    _nb(course).unlink()
    os.mkfifo(_nb(course))
    start = time.monotonic()
    got = open_submission(course, "ann", "a1", "nb.ipynb")
    assert time.monotonic() - start < 2 and got.data is None and "named pipe" in got.refusal


def test_a_folder_and_a_missing_file_are_refused(course):
    _nb(course).unlink()
    assert "does not exist" in open_submission(course, "ann", "a1", "nb.ipynb").refusal
    _nb(course).mkdir()
    assert "a folder" in open_submission(course, "ann", "a1", "nb.ipynb").refusal


def test_size_is_checked_before_reading(course):
    with open(_nb(course), "wb") as f:
        f.truncate(201 << 20)  # sparse: reading it whole would cost 201 MiB
    start = time.monotonic()
    got = open_submission(course, "ann", "a1", "nb.ipynb")
    assert time.monotonic() - start < 1 and got.data is None and "over the 200 MiB limit" in got.refusal
    small = open_submission(course, "ann", "a1", "nb.ipynb", limit=10)
    assert small.data is None and "limit" in small.refusal


def test_dot_dot_and_slashes_are_not_components(course):
    assert open_submission(course, "..", "a1", "nb.ipynb").data is None
    assert open_submission(course, "ann", "a1", "../a1/nb.ipynb").data is None
    assert open_submission(course, "ann/..", "a1", "nb.ipynb").data is None


def test_a_device_is_refused(course):
    _nb(course).unlink()
    _nb(course).symlink_to("/dev/zero")
    assert open_submission(course, "ann", "a1", "nb.ipynb").data is None


# --- open_in_folder: a file of one of the course's own folders (the reference store), same refusals ---------
def test_in_folder_a_regular_file_is_read(tmp_path):
    (tmp_path / "r.json").write_bytes(b"{}")
    assert open_in_folder(tmp_path, "r.json", 100).data == b"{}"


def test_in_folder_a_fifo_is_refused_without_hanging(tmp_path):
    os.mkfifo(tmp_path / "r.json")
    start = time.monotonic()
    got = open_in_folder(tmp_path, "r.json", 100, shown="references/a1/r.json")
    assert time.monotonic() - start < 2 and got.data is None
    assert got.refusal == "references/a1/r.json is a named pipe (FIFO), not a regular file, so it was not read"


def test_in_folder_links_folders_and_paths_are_refused(tmp_path):
    (tmp_path / "outside.json").write_bytes(b"secret")
    store = tmp_path / "store"
    store.mkdir()
    (store / "link.json").symlink_to(tmp_path / "outside.json")
    (store / "dir.json").mkdir()
    assert "symbolic link" in open_in_folder(store, "link.json", 100).refusal
    assert "a folder" in open_in_folder(store, "dir.json", 100).refusal
    for name in ("../outside.json", "..", "", "a\0b"):
        got = open_in_folder(store, name, 100)
        assert got.data is None and "not a plain file name" in got.refusal
    assert "does not exist" in open_in_folder(store, "none.json", 100).refusal
    assert "cannot be opened" in open_in_folder(tmp_path / "no-such-folder", "r.json", 100).refusal


def test_in_folder_size_is_checked_before_reading(tmp_path):
    with open(tmp_path / "big.json", "wb") as f:
        f.truncate(65 << 20)
    start = time.monotonic()
    got = open_in_folder(tmp_path, "big.json", 64 << 20)
    assert time.monotonic() - start < 1 and got.data is None and "over the 64 MiB limit" in got.refusal


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_in_folder_a_real_device_node_is_refused(tmp_path):
    os.mknod(tmp_path / "zero.json", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    got = open_in_folder(tmp_path, "zero.json", 100)
    assert got.data is None and "a character device" in got.refusal
