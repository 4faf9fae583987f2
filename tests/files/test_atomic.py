"""The one atomic writer: whole files or none, text or bytes, with the permissions asked for."""

import stat

import pytest

from autograder.files.atomic import atomic_write


def test_text_and_bytes_land_whole_with_no_temp_file_left(tmp_path):
    p = tmp_path / "deep" / "er" / "f.json"
    atomic_write(p, "héllo")
    assert p.read_text(encoding="utf-8") == "héllo"
    atomic_write(p, b"\x00\x01", sync=False, mode=0o444)
    assert p.read_bytes() == b"\x00\x01" and stat.S_IMODE(p.stat().st_mode) == 0o444
    assert sorted(x.name for x in p.parent.iterdir()) == ["f.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path):
    p = tmp_path / "f.txt"
    atomic_write(p, "old")
    with pytest.raises(TypeError):
        atomic_write(p, 42)  # type: ignore[arg-type]
    assert p.read_text() == "old" and [x.name for x in tmp_path.iterdir()] == ["f.txt"]
