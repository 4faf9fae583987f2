"""Run a notebook in a real Jupyter kernel (nbclient) as a student would, optionally revising a prediction
after measuring it (the case the commitment chain exists to catch)."""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from .fill import fill_predictions

__all__ = ["copy_lesson_files", "run_as_student"]


def copy_lesson_files(release_folder: str | Path, dest: str | Path) -> Path:
    """What a student's folder holds besides the notebook (lesson.toml, workload.py, data files)."""
    out = Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    for p in Path(release_folder).iterdir():
        if p.is_file() and p.suffix != ".ipynb":
            shutil.copy2(p, out / p.name)
    return out


def run_as_student(
    nb: Any,
    folder: str | Path,
    timeout: int = 600,
    revise: dict[str, tuple[Any, str]] | None = None,
    kernel_name: str = "python3",
) -> Any:
    """Execute every cell in order in ``folder``; then re-run the cells of ``revise`` with new values.

    Returns the executed notebook (outputs included), ready to be written and submitted.
    """
    nb = copy.deepcopy(nb)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name=kernel_name, allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            client.execute_cell(cell, i)
        if revise:
            for q, answer in revise.items():
                for i, cell in enumerate(nb.cells):
                    if cell.cell_type == "code" and f'"{q}"' in cell.source and "predict" in cell.source:
                        src = cell.source
                        tmp = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(_reset_slot(src, q))])
                        fill_predictions(tmp, {q: answer})
                        cell.source = tmp.cells[0].source
                        client.execute_cell(cell, i)
    return nb


def _reset_slot(src: str, q: str) -> str:
    """Turn an already-filled ``"q",\n    VALUE, because=..., `` slot back into the stub form."""
    pat = re.compile(r'("' + re.escape(q) + r'",\s*\n\s*)(.*?), because=(".*?"|\'.*?\'),')
    return pat.sub(lambda m: m.group(1) + 'None, because="",  # <- your prediction', src, count=1)
