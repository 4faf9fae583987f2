"""Add the "outside the course's Jupyter server" paragraph to the first (markdown) cell of lesson notebooks:
the one install line that keeps a Colab or laptop student's torch, and how to hand the notebook in through
the LMS. Idempotent; only that cell changes (nbformat keeps cell ids). Then regenerate release/.

    python scripts/colab_first_cell.py source/*/*.ipynb
"""

from __future__ import annotations

import sys

import nbformat

MARK = "**Outside the course's Jupyter server**"
TEXT = (
    "\n\n" + MARK + " (Colab, your laptop): keep this lesson's `lesson.toml` and `workload.py` (from the\n"
    "same release folder as this notebook) beside it, and install the course's package once, keeping the torch\n"
    "you have (in a notebook cell, start the line with `!`; your instructor may give a wheel file or URL to use\n"
    "in place of the name):\n\n"
    "    pip install --no-deps gpu-lessons-autograder && pip install \"pydantic>=2.6,<3\" \"markdown-it-py>=3\"\n\n"
    "When you are done, save and download the notebook (`.ipynb`) and upload it to the course's LMS as it is:\n"
    "your ledger travels in its outputs."
)


def main(paths: list[str]) -> None:
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        first = nb.cells[0]
        if first.cell_type != "markdown":
            raise SystemExit(f"{path}: the first cell is not markdown; add the paragraph by hand")
        if MARK not in first.source:
            first.source = first.source.rstrip("\n") + TEXT
            nbformat.write(nb, path)
            print(f"{path}: first cell updated")


if __name__ == "__main__":
    main(sys.argv[1:])
