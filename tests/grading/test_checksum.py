import json

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from autograder.grading.checksum import cell_checksum


def _nbgrader(cell):
    src = cell["source"]
    return compute_checksum(nbformat.from_dict({**cell, "source": "".join(src) if isinstance(src, list) else src}))


@pytest.mark.parametrize("folder", ["source", "release"])
def test_cell_checksum_is_nbgraders(repo, folder):
    cells = json.loads((repo / folder / "04_fusion" / "04_fusion.ipynb").read_text())["cells"]
    graded = [c for c in cells if "grade_id" in c.get("metadata", {}).get("nbgrader", {})]
    assert len(graded) >= 5
    for cell in graded:
        assert cell_checksum(cell) == _nbgrader(cell)
        changed = {**cell, "source": "x" + "".join(cell["source"])}
        assert cell_checksum(changed) == _nbgrader(changed) != cell_checksum(cell)
    for flags in ({"grade": True, "points": 2}, {"solution": True}, {"locked": True}, {}):
        cell = {"cell_type": "code", "source": ["a = 1\n", "b"], "metadata": {"nbgrader": {"grade_id": "g", **flags}}}
        assert cell_checksum(cell) == _nbgrader(cell)
    if folder == "release":  # released checksums are nbgrader's own: the pristine cells match them
        assert any(c["metadata"]["nbgrader"].get("checksum") == cell_checksum(c) for c in graded)
