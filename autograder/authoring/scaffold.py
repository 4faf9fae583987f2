"""``autograder new NAME``: a lesson folder that works end to end before the instructor changes a line.

The scaffold is a small but real lesson (an elementwise pair, eager vs compiled) so that bench, release,
sample and grade all run on it; the instructor then replaces the workload, the quantities and the prose.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import AutograderError

__all__ = ["scaffold_lesson"]

WORKLOAD = '''"""{name}: TODO one line on what this lesson compares.

The framework measures, grades and pre-reads explanations through this module (autograder.workload):
``variants`` to compare, ``inputs`` of a case, ``build`` (a fresh callable per case) and ``work`` (the
model: bytes, FLOPs, launches).  Import torch inside the methods, not at module level.
"""

from __future__ import annotations

from autograder.workload import Work, Workload, compile_fresh, fresh_function

SOURCE = "def pair(x):\\n    return (x * 3.0).sin()\\n"  # two elementwise ops: two kernels eagerly
ELEMENT = {{"float16": 2, "bfloat16": 2, "float32": 4}}


class Pair(Workload):
    variants = ("eager", "compiled")
    params = ("dtype", "log2_n")
    size_param = "log2_n"

    def inputs(self, params, device):
        import torch

        return (torch.randn(1 << int(params["log2_n"]), device=device, dtype=getattr(torch, str(params["dtype"]))),)

    def build(self, variant, params):
        import torch

        if variant == "eager":
            return fresh_function(SOURCE, "pair", {{"torch": torch}})
        return compile_fresh(SOURCE, "pair", {{"torch": torch}})

    def work(self, variant, params):
        n_s = (1 << int(params["log2_n"])) * ELEMENT[str(params["dtype"])]
        passes = 2 if variant == "eager" else 1
        n = 1 << int(params["log2_n"])
        return Work(bytes_read=passes * n_s, bytes_written=passes * n_s, launches=passes, flops=2 * n)


workload = Pair()
'''

LESSON = """# {name}: what this lesson measures and students predict (see docs/authoring.md).
id = "{name}"
title = "TODO: the lesson's title"
notebook = "{name}.ipynb"

[sweep.cuda]
dtype = ["float32"]
log2_n = [12, 16, 20, 24, 26]

[sweep.cpu]
dtype = ["float32"]
log2_n = [12, 16, 20]

[[quantities]]
id = "speedup@fp32,2^20"
title = "Speedup of the compiled pair over the eager one in GPU time, float32, 2^20 elements"
label = "compiled speedup"
kind = "ratio"
method = "gpu_time"
case = {{ dtype = "float32", log2_n = 20 }}
compare = ["eager", "compiled"]
points = 2.0
tolerance = {{ full_factor = 1.3, zero_factor = 3.0 }}

[grade_ids]
"speedup@fp32,2^20" = "grade_speedup"

[[explanations]]
grade_id = "explain_speedup"
points = 3.0
case = {{ dtype = "float32", log2_n = 20 }}
"""


def _notebook(name: str) -> str:
    # start-up speed: nbformat only when a lesson is scaffolded
    import nbformat

    def meta(gid: str, solution: bool = False, points: float | None = None) -> dict[str, object]:
        m: dict[str, object] = {
            "grade": points is not None, "grade_id": gid, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False,
        }
        if points is not None:
            m["points"] = points
        return {"nbgrader": m}

    cells = [
        nbformat.v4.new_markdown_cell(
            f"# {name}\n\nTODO: the question this lesson asks, in the seed's style: predict first, then measure, "
            "then explain in bytes, FLOPs and launches.\n\n**Starting over.** Before you submit you may start again: "
            "run `L.start_over()` in a new cell, delete that cell, and run the notebook from the top; a prediction "
            "for a quantity you had already measured is then graded as *committed after starting over*."
        ),
        nbformat.v4.new_code_cell("from autograder.lesson import Lesson\n\nL = Lesson.load()", metadata=meta("setup")),
        nbformat.v4.new_markdown_cell(
            "> **Predict first**: the speedup of the compiled version over the eager one at `2^20` float32 "
            "elements, in GPU time, on the course's grading GPU."
        ),
        nbformat.v4.new_code_cell(
            'L.predict(\n    "speedup@fp32,2^20",\n    ### BEGIN SOLUTION\n    2.0, because="eager moves 4·N·s bytes '
            'in 2 kernels, fused 2·N·s in 1",\n    ### END SOLUTION\n)',
            metadata=meta("predict_speedup", solution=True),
        ),
        nbformat.v4.new_code_cell('L.measure("float32", 20)', metadata=meta("measure")),
        nbformat.v4.new_code_cell('L.grade("speedup@fp32,2^20")', metadata=meta("grade_speedup", points=2.0)),
        nbformat.v4.new_markdown_cell("**Explain the number in bytes and launches, not adjectives.**"),
        nbformat.v4.new_markdown_cell(
            "Eager runs 2 kernels and moves 4·N·s = 16.8 MB; the compiled kernel moves 8.4 MB in 1 launch: "
            "a 2x cut in traffic.",
            metadata=meta("explain_speedup", solution=True, points=3.0),
        ),
        nbformat.v4.new_code_cell("L.status()", metadata=meta("status")),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nbformat.writes(nb)


def scaffold_lesson(source_root: str | Path, name: str) -> Path:
    """Create ``source_root/name/`` with lesson.toml, workload.py and the notebook; refuse to overwrite."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise AutograderError(f"lesson name {name!r}: use letters, digits, '_', '-' or '.' (e.g. 06_attention)")
    folder = Path(source_root) / name
    if folder.exists():
        raise AutograderError(f"{folder} already exists: pick another name or edit that lesson")
    folder.mkdir(parents=True)
    (folder / "workload.py").write_text(WORKLOAD.format(name=name), encoding="utf-8")
    (folder / "lesson.toml").write_text(LESSON.format(name=name), encoding="utf-8")
    (folder / f"{name}.ipynb").write_text(_notebook(name), encoding="utf-8")
    return folder
