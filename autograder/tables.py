"""Tables that stay readable in an 80-column terminal.

rich shrinks a table that does not fit and cuts what no longer fits with "…" — a quantity's id, a number,
the middle of a reason. Here every column is at least as wide as its longest word, the space left goes to
the columns with the most to wrap, and cells wrap at spaces; a table whose longest words cannot stand side
by side is printed stacked instead (one block per row, "column: value"). Nothing is ever cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Column", "TextTable", "column_widths", "print_table"]


@dataclass(frozen=True)
class Column:
    header: str
    justify: Literal["left", "right"] = "left"


@dataclass
class TextTable:
    """What a table says, before it is laid out for a terminal."""

    columns: list[Column]
    rows: list[list[str]] = field(default_factory=list)
    title: str | None = None
    caption: str | None = None
    #: grid: borders around every cell; rule: a line under the header only; plain: aligned columns only
    style: Literal["grid", "rule", "plain"] = "grid"
    show_header: bool = True

    def add_row(self, *cells: str) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(self.columns)} columns")
        self.rows.append([str(c) for c in cells])


def _longest_word(text: str) -> int:
    # start-up speed: rich only when a table is printed
    from rich.cells import cell_len

    return max((cell_len(w) for w in text.split()), default=0)


def _longest_line(text: str) -> int:
    # start-up speed: rich only when a table is printed
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.splitlines()), default=0)


def _rich_table(table: TextTable, widths: Sequence[int]) -> Any:
    # start-up speed: rich only when a table is printed
    from rich import box
    from rich.table import Table
    from rich.text import Text

    edged = table.style == "grid"
    t = Table(
        title=table.title,
        caption=table.caption,
        box={"grid": box.HEAVY_HEAD, "rule": box.SIMPLE_HEAD, "plain": None}[table.style],
        show_header=table.show_header,
        pad_edge=edged,
        show_edge=edged,
    )
    for c, w in zip(table.columns, widths, strict=True):
        t.add_column(c.header, justify=c.justify, width=w, overflow="fold")
    for row in table.rows:
        t.add_row(*(Text(cell) for cell in row))
    return t


def _overhead(table: TextTable) -> int:
    """Columns of borders and padding around the cells (measured: it depends on the style)."""
    # start-up speed: rich only when a table is printed
    import io

    from rich.cells import cell_len
    from rich.console import Console

    n = len(table.columns)
    probe = TextTable(table.columns, [["x"] * n], style=table.style, show_header=False)
    out = io.StringIO()
    Console(file=out, width=10_000, color_system=None).print(_rich_table(probe, [1] * n))
    return max(cell_len(line.rstrip("\n")) for line in out.getvalue().splitlines()) - n


def column_widths(table: TextTable, width: int) -> list[int] | None:
    """Each column's width for a terminal ``width`` columns wide, or None when the table cannot fit
    without breaking a word (then it is printed stacked).

    Every column gets its longest word; the space left goes first to the cells (so that as few values as
    possible wrap, the columns that need least first), then to the headers."""
    heads = [c.header if table.show_header else "" for c in table.columns]
    data = [[row[i] for row in table.rows] for i in range(len(table.columns))]
    least = [max(1, _longest_word(h), *(_longest_word(x) for x in col)) for h, col in zip(heads, data, strict=True)]
    cells = [max([lo, *(_longest_line(x) for x in col)]) for lo, col in zip(least, data, strict=True)]
    full = [max(c, _longest_line(h)) for c, h in zip(cells, heads, strict=True)]
    room = width - _overhead(table)
    if sum(least) > room:
        return None
    widths = list(least)
    for goal in (cells, full):
        for i in sorted(range(len(widths)), key=lambda i: goal[i] - widths[i]):
            widths[i] += max(0, min(goal[i] - widths[i], room - sum(widths)))
    return widths


def print_table(console: Console, table: TextTable) -> None:
    """Print ``table`` at the console's width: side by side when every word fits, else stacked."""
    widths = column_widths(table, console.width)
    if widths is None:
        _print_stacked(console, table)
    else:
        console.print(_rich_table(table, widths))


def _print_stacked(console: Console, table: TextTable) -> None:
    # start-up speed: rich only when a table is printed
    from rich.text import Text

    if table.title:
        console.print(Text(table.title, style="italic"))
    heads = [c.header.replace("\n", " ") for c in table.columns]
    for row in table.rows:
        first = f"{heads[0]}: {row[0]}" if heads[0] and table.show_header else row[0]
        console.print(Text(first, style="bold"))
        for head, cell in zip(heads[1:], row[1:], strict=True):
            console.print(Text(f"  {head}: {cell}" if head else f"  {cell}"))
    if table.caption:
        console.print(Text(table.caption, style="dim"))
