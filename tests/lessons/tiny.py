"""A tiny synthetic lesson, written by the tests (not by the framework's scaffold), so that the framework
is exercised by a lesson none of its code was written for: copies instead of kernels, no compiler."""

from __future__ import annotations

from pathlib import Path

import nbformat

WORKLOAD = '''
from autograder.workload import Work, Workload, fresh_function

class Copies(Workload):
    variants = ("double_copy", "copy")
    params = ("dtype", "log2_n")

    def inputs(self, params, device):
        import torch
        return (torch.randn(1 << params["log2_n"], device=device, dtype=getattr(torch, params["dtype"])),)

    def build(self, variant, params):
        src = {"copy": "def f(x):\\n    return x.clone()\\n", "double_copy": "def f(x):\\n    return x.clone().clone()\\n"}
        return fresh_function(src[variant], "f")

    def work(self, variant, params):
        s = {"float16": 2, "float32": 4}[params["dtype"]] << params["log2_n"]
        k = 2 if variant == "double_copy" else 1
        return Work(bytes_read=k * s, bytes_written=k * s, launches=k)

workload = Copies()
'''

LESSON = '''
id = "99_tiny"
title = "Copies"
notebook = "99_tiny.ipynb"

[sweep.cuda]
dtype = ["float32"]
log2_n = [20, 24]

[sweep.cpu]
dtype = ["float32", "float16"]
log2_n = [16, 20]

[[quantities]]
id = "copies@fp32"
title = "Time of two copies over one"
label = "two copies over one"
kind = "ratio"
case = { dtype = "float32", log2_n = 20 }
compare = ["double_copy", "copy"]
tolerance = { full_factor = 1.5, zero_factor = 4.0 }

[[quantities]]
id = "launches"
title = "Kernels of two copies"
kind = "count"
case = { dtype = "float32", log2_n = 20 }
variant = "double_copy"

[[quantities]]
id = "fp32_vs_fp16"
title = "Is the copies ratio in fp32 higher, lower or the same as in fp16?"
kind = "direction"
case = { dtype = "float32", log2_n = 20 }
compare = ["double_copy", "copy"]
baseline = { dtype = "float16" }
tolerance = { dead_band = 0.5 }

[grade_ids]
"copies@fp32" = "g_ratio"
"launches" = "g_launches"
"fp32_vs_fp16" = "g_direction"

[[explanations]]
grade_id = "explain"
points = 1.0
case = { dtype = "float32", log2_n = 20 }
'''


def _meta(gid, solution=False, points=None):
    m = {"grade": points is not None, "grade_id": gid, "locked": not solution, "schema_version": 3,
         "solution": solution, "task": False}
    if points is not None:
        m["points"] = points
    return {"nbgrader": m}


def write_tiny_lesson(source_root: Path) -> Path:
    folder = source_root / "99_tiny"
    folder.mkdir(parents=True)
    (folder / "workload.py").write_text(WORKLOAD, encoding="utf-8")
    (folder / "lesson.toml").write_text(LESSON, encoding="utf-8")
    cells = [
        nbformat.v4.new_code_cell("from autograder.lesson import Lesson\nL = Lesson.load()", metadata=_meta("setup")),
        nbformat.v4.new_code_cell(
            'L.predict(\n    "copies@fp32",\n    ### BEGIN SOLUTION\n    2.0, because="twice the bytes",\n    ### END SOLUTION\n)\n'
            'L.predict(\n    "launches",\n    ### BEGIN SOLUTION\n    2, because="two clones",\n    ### END SOLUTION\n)\n'
            'L.predict(\n    "fp32_vs_fp16",\n    ### BEGIN SOLUTION\n    "same", because="both memory-bound",\n    ### END SOLUTION\n)',
            metadata=_meta("predict", solution=True),
        ),
        nbformat.v4.new_code_cell('L.measure("float32", 20)\nL.measure("float16", 20)', metadata=_meta("measure")),
        nbformat.v4.new_code_cell('L.grade("copies@fp32")', metadata=_meta("g_ratio", points=2.0)),
        nbformat.v4.new_code_cell('L.grade("launches")', metadata=_meta("g_launches", points=2.0)),
        nbformat.v4.new_code_cell('L.grade("fp32_vs_fp16")', metadata=_meta("g_direction", points=2.0)),
        nbformat.v4.new_markdown_cell("Two copies move 8 MB, one moves 4 MB.", metadata=_meta("explain", True, 1.0)),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    nbformat.write(nb, str(folder / "99_tiny.ipynb"))
    return folder
