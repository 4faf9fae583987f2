"""docs/authoring.md's laptop walk, run as written (its first code block under "Try it on a laptop"), on this
CPU-only machine: from `autograder quickstart` to a class graded on both paths and reported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _walk() -> list[str]:
    text = (REPO / "docs/authoring.md").read_text(encoding="utf-8")
    section = text.split("## Try it on a laptop", 1)[1]
    block: list[str] = []
    for line in section.splitlines()[1:]:
        if line.startswith("    "):
            block.append(line[4:].split("  #", 1)[0].rstrip())
        elif block and line.strip():
            break
    return block


def test_the_walk_is_the_one_documented():
    walk = _walk()
    assert walk[0] == "autograder quickstart my-course && cd my-course"
    assert any(c.startswith("autograder grade 07_transpose --device cpu") for c in walk)
    assert walk[-1].startswith("autograder report 07_transpose --device cpu")


def test_the_laptop_walk_works_as_written(tmp_path):
    script = "set -euo pipefail\n" + "\n".join(_walk()) + "\n"
    env = {**os.environ, "COLUMNS": "200", "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    r = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=900,
                       check=False)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert "warning: no reference for 'nvidia-h200' yet" in out and "07_transpose: OK" in out
    assert "Traceback" not in out
    course = tmp_path / "my-course"
    records = [json.loads(p.read_text()) for p in (course / "records/07_transpose").glob("*.json")]
    assert len(records) == 4 and {r["device_of_record"] for r in records} == {"cpu"}
    assert (course / "reports/07_transpose/grades.csv").is_file()
