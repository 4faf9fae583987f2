"""Where an answer's markdown has prose, tables and code: the installed markdown parser (markdown-it-py, the
CommonMark parser with GFM tables) finds the blocks, this module turns them into character ranges and cells.

A table's cell, or a column of pasted output in a code block (``eager   71.1   3777``), is about its column's
header, its row's first cell and the table's corner, not about the sentence around it; a header that names a
unit ("time (µs)", "GB/s", "gpu_us", "kernels") gives that unit to the bare numbers below it.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from .rules import rule

__all__ = ["Block", "Cell", "blocks", "cells"]


@dataclass(frozen=True)
class Block:
    kind: str  # "table", "code" or "quote" (a quoted prompt: its numbers are the question's, not the answer's)
    start: int
    end: int


@dataclass(frozen=True)
class Cell:
    """A table cell (or a column of a code block's line): where it is, and the header cells that say what
    its numbers are about (the column's header, the row's first cell, the table's corner)."""

    start: int
    end: int
    heads: tuple[tuple[int, int], ...]
    column_head: tuple[int, int] | None = None


_COLUMNS = rule(
    "format.code_columns",
    "the columns of a line of pasted output: separated by two or more spaces, a tab or a bar",
    r"[ ]{2,}|\t|\s*\|\s*",
    ("eager     71.1     3777", "eager\t71.1", "eager | 71.1"),
    ("eager 71.1",),
)


_PROMPT_LINE = rule(
    "format.code_prompt_line",
    "an interpreter's or a shell's prompt line in pasted output ('>>> L.sweep(\"float16\")', 'In [3]: ...', '$ python "
    "bench.py'): the command, not the table's header or a row",
    r"^\s*(?:>>>|\.\.\.\s|In \[\d*\]:|\$ )",
    ('>>> L.sweep("float16")', 'In [3]: L.sweep()', '$ python bench.py', '... print(x)'),
    ("log2_n   eager wall", "| 2^12 | 1.03x |", "...", "$12"),
)
_HEADER_NUMBER = rule(
    "format.code_header_number",
    "a number standing on its own in a code block's first line: that line is data, not a header ('log2_n', "
    "'eager_us', 'gpu_x', '2^k' are header words)",
    r"(?<![\w.^])\d+(?:[.,]\d+)?(?![\w^])",
    ("12      76.1 us", "eager 71.1 3777", "n = 4096"),
    ("log2_n  eager_wall  gpu_x", "2^k  eager_us", "size  fp16  bf16"),
)

_CAPTION_LINE = rule(
    "format.code_caption_line",
    "a code block's first line that is one column of words with no number of its own ('float16 sweep (eager vs "
    "compiled)', 'Results:'), above a line of columns as many as the first row's: a caption; the table's header is the "
    "line under it",
    r"^(?!.*(?:[ ]{2,}|\t|\|))(?!.*(?<![\w.^])\d+(?:[.,]\d+)?(?![\w^])).*[^\W\d_].*$",
    ("float16 sweep (eager vs compiled)", "Results:", "fp16 sweep on the H200"),
    ("log2_n   eager wall", "eager 71.1 3777", "12      76.1 us", "n = 4096", "eager | 71.1"),
)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # blocks only: the inline rules (emphasis, links) say nothing about where tables and code are
    return MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"], ignoreInvalid=True)


_MAYBE_BLOCK = re.compile(r"\||```|~~~|^(?: {4}|\t|\s{0,3}>)", re.M)


def blocks(text: str) -> list[Block]:
    """The tables, code blocks (fenced or indented) and block quotes of ``text``, as character ranges."""
    if not _MAYBE_BLOCK.search(text):
        return []  # plain prose (most answers): nothing to parse
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    out = []
    for tok in _parser().parse(text):
        if tok.map is None or tok.type not in ("table_open", "fence", "code_block", "blockquote_open"):
            continue
        if tok.type == "blockquote_open" and tok.level != 0:
            continue
        first, last = tok.map
        start = line_starts[first]
        end = line_starts[last] if last < len(line_starts) else len(text)
        kind = {"table_open": "table", "blockquote_open": "quote"}.get(tok.type, "code")
        out.append(Block(kind, start, end))
    return out


def _lines(text: str, b: Block) -> list[tuple[int, str]]:
    at, out = b.start, []
    for line in text[b.start:b.end].splitlines(keepends=True):
        out.append((at, line.rstrip("\n")))
        at += len(line)
    return out


def _pipe_cells(start: int, body: str) -> list[tuple[int, int]]:
    bounds = [start + i for i, ch in enumerate(body) if ch == "|"]
    if not body.lstrip().startswith("|"):
        bounds = [start - 1, *bounds]
    if not body.rstrip().endswith("|"):
        bounds.append(start + len(body))
    return [(a + 1, b) for a, b in itertools.pairwise(bounds)]


def _column_cells(start: int, body: str) -> list[tuple[int, int]]:
    out, at = [], 0
    for m in _COLUMNS.finditer(body):
        if m.start() > at:
            out.append((start + at, start + m.start()))
        at = m.end()
    if at < len(body):
        out.append((start + at, start + len(body)))
    return out


def _grid(rows: list[list[tuple[int, int]]], text: str = "") -> list[Cell]:
    """Cells with their headers: the column's, the row's first cell, the corner, and the row's other label
    cells (no digit in them: "| eager | gpu_time | 71.1 |" says the 71.1 is a GPU time)."""
    header, out = rows[0], []
    for cells_ in rows[1:]:
        if len(cells_) < 2 <= len(header):
            continue  # a line of prose among the rows ("traffic model: eager 4 launches, ..."): its own sentence
        labels = [c for c in cells_[1:] if text and not any(ch.isdigit() for ch in text[c[0]:c[1]])]
        for i, (a, b) in enumerate(cells_):
            col = header[i] if i < len(header) else None
            heads = [c for c in (col, cells_[0] if i else None, header[0]) if c]
            heads += [c for c in labels if c != (a, b) and c not in heads]
            out.append(Cell(a, b, tuple(heads), col))
    return out


def cells(text: str, found: list[Block] | None = None) -> list[Cell]:
    """Every cell of the tables (lines starting with a bar, and the parser's tables) and of code blocks that
    read as tables (a header line without digits over lines of columns), in text order."""
    out: list[Cell] = []
    # bar tables line by line (also a table the parser does not take: one without its |---| line)
    header: list[tuple[int, int]] | None = None
    at = 0
    rows: list[list[tuple[int, int]]] = []
    for line in text.splitlines(keepends=True):
        start, body = at, line.rstrip("\n")
        at += len(line)
        if not body.lstrip().startswith("|"):
            if len(rows) > 1:
                out += _grid(rows, text)
            header, rows = None, []
            continue
        if re.fullmatch(r"[\s|:-]+", body):
            continue  # the |---|---| line
        rows.append(_pipe_cells(start, body))
        header = header or rows[0]
    if len(rows) > 1:
        out += _grid(rows, text)
    taken = {c.start for c in out}
    for b in found if found is not None else blocks(text):
        if b.kind == "quote":
            continue
        lines = [(s, body) for s, body in _lines(text, b) if body.strip() and not re.fullmatch(r"[\s|:-]+", body)]
        if b.kind == "table":
            grid = [_pipe_cells(s, body) for s, body in lines]
        else:
            lines = [(s, body) for s, body in lines if not body.lstrip().startswith(("```", "~~~"))
                     and not _PROMPT_LINE.match(body)]
            if (len(lines) > 2 and _CAPTION_LINE.match(lines[0][1])
                    and 2 <= len(_column_cells(*lines[1])) == len(_column_cells(*lines[2]))
                    and not _HEADER_NUMBER.search(lines[1][1])):
                lines = lines[1:]  # "float16 sweep (eager vs compiled)" over "log2_n   gpu eager ...": a caption
            if not lines or _HEADER_NUMBER.search(lines[0][1]):
                continue  # no header line: the numbers carry their own units
            grid = [_column_cells(s, body) for s, body in lines]
            if len(grid[0]) < 2:
                continue
        if len(grid) > 1:
            out += [c for c in _grid(grid, text) if c.start not in taken]
    return sorted(out, key=lambda c: c.start)
