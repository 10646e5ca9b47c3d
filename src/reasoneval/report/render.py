"""Render Tables to the terminal, JSON, Markdown and CSV (Rich imported by the terminal's renderer alone: the
files' formats do without it)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import number_format
from ..core.benchmark import Table
from ..core.safetext import shown
from ..core.table import number_of

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table as RichTable


def _cell(x: Any) -> str:
    return number_format.cell(x)


def _longest_word(x: str) -> int:
    return max((len(w) for w in x.split()), default=0)


def to_terminal(tables: list[Table], console: Console | None = None) -> None:
    """Rich tables whose cells wrap only between words: every column is at least as wide as its longest
    word; a table that cannot fit the console that way is printed at its natural width rather than cropped
    (a narrow terminal soft-wraps whole lines)."""
    from rich.cells import cell_len
    from rich.console import Console
    from rich.markup import escape
    from rich.measure import Measurement
    from rich.table import Table as RichTable

    for t in tables:
        # model names, extracted answers: stored outside text, its control codes shown as escapes
        cells = [[shown(_cell(x), keep_newlines=True) for x in r] for r in t.rows]
        # titles, headers, cells and notes are text, not Rich markup ("[official scoring]", "[[A]]")
        def table(fixed: bool, t: Table = t, cells: list[list[str]] = cells) -> RichTable:
            rt = RichTable(title=escape(shown(t.title, keep_newlines=True)), title_justify="left")
            for i, c in enumerate(t.columns):
                col = [c, *(r[i] for r in cells if i < len(r))]
                if fixed:  # each column exactly as wide as its widest cell: Rich need not measure the cells
                    rt.add_column(escape(shown(c)), width=max(cell_len(x) for x in col), overflow="fold")
                else:
                    rt.add_column(escape(shown(c)), min_width=max(_longest_word(x) for x in col), overflow="fold")
            for r in cells:
                rt.add_row(*(escape(x) for x in r))
            return rt

        con = console or Console()
        rt = table(fixed=True)
        natural = Measurement.get(con, con.options.update(max_width=1 << 16), rt).maximum
        if con.width < natural and (console is not None or con.is_terminal):
            rt = table(fixed=False)  # too wide for the terminal: let Rich wrap cells at spaces (or not crop, below)
        if console is None:
            if con.width < natural:
                # Rich collapses a table wider than the console by wrapping cells at spaces, but when it
                # cannot fit it crops the right-hand columns; never lose a column: widen to the natural width
                # then (always, into a file or pipe: nobody reads it at the terminal's width)
                con = _console_that_fits(con, rt) if con.is_terminal else Console(width=natural)
        con.print(rt)
        for n in t.notes:
            con.print(f"  [dim]{escape(n)}[/dim]")


_RIGHT_EDGES = frozenset("┓┃┫┩│┤┘┐┛")


def _console_that_fits(con: Console, rt: RichTable) -> Console:
    """``con`` if ``rt`` renders on it with every row ending at its right border, else a console as wide
    as the table's natural width (a narrow terminal then soft-wraps whole lines instead)."""
    from rich.console import Console
    from rich.measure import Measurement

    with con.capture() as cap:
        con.print(rt)
    rows = [ln.rstrip() for ln in cap.get().splitlines() if ln[:1] in "┏┃┡│└┗┣├"]
    if rows and all(ln[-1:] in _RIGHT_EDGES for ln in rows):
        return con
    return Console(width=Measurement.get(con, con.options.update(max_width=1 << 16), rt).maximum)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def md_text(x: Any) -> str:
    """Text for Markdown (model names and notes are user text): the characters Markdown gives a meaning to
    (raw HTML ``<``, entities ``&``, emphasis, code, links, table pipes, backslash) are backslash-escaped, which
    CommonMark renders as the characters themselves; line breaks and control codes become spaces. No HTML
    entities: ``paper's`` stays ``paper's``."""
    return _MD_SPECIAL.sub(r"\\\1", _CONTROL.sub(" ", _cell(x)))


_md = md_text


def to_markdown(tables: list[Table]) -> str:
    out = []
    for t in tables:
        out.append(f"### {_md(t.title)}\n")
        out.append("| " + " | ".join(_md(c) for c in t.columns) + " |")
        out.append("|" + "---|" * len(t.columns))
        for r in t.rows:
            out.append("| " + " | ".join(_md(x) for x in r) + " |")
        out.extend(f"\n{md_text(n)}" for n in t.notes)
        out.append("")
    return "\n".join(out)


def to_csv(table: Table) -> str:
    """One well-formed CSV table: a header row of column names, then the rows."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(table.columns)
    for r in table.rows:
        w.writerow([_cell(x) for x in r])
    return buf.getvalue()


def _slug(title: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()[:60] or "table"


def csv_files(tables: list[Table], path: Path) -> list[tuple[Path, str]]:
    """``path`` for the first table; ``<stem>-<n>-<title>.csv`` beside it for each further one."""
    out = []
    for i, t in enumerate(tables):
        p = path if i == 0 else path.with_name(f"{path.stem}-{i + 1}-{_slug(t.title)}{path.suffix or '.csv'}")
        out.append((p, to_csv(t)))
    return out


def report_markdown(rep: Any, paper: bool = True) -> str:
    """A :class:`~.assemble.Report` as Markdown: the shown tables (published values and Δ where there are
    some), the best value of each column of a leaderboard bold, and what the selection left out."""
    from .assemble import best_rows, paper_column, value_columns
    from .formats import left_out_note, shown

    out = []
    for rt in rep.tables:
        t = shown(rt, paper)
        bold: dict[int, set[int]] = {}
        if rt.ranked:
            at = paper_column(rt) if paper else None
            for j in value_columns(rt):
                bold[j if at is None or j <= at else j + 2] = best_rows(rt, j)
        out.append(f"### {_md(t.title)}\n")
        out.append("| " + " | ".join(_md(c) for c in t.columns) + " |")
        right = {j for j in range(len(t.columns)) if j > 0 and any(
            j < len(r) and number_of(r[j]) is not None for r in t.rows)}  # numbers (and Δ, paper) right-aligned
        out.append("|" + "".join("---:|" if j in right else "---|" for j in range(len(t.columns))))
        for i, r in enumerate(t.rows):
            cells = [(f"**{_md(x)}**" if i in bold.get(j, ()) and _md(x) else _md(x)) for j, x in enumerate(r)]
            out.append("| " + " | ".join(cells) + " |")
        out.extend(f"\n{md_text(n)}" for n in t.notes)
        out.append("")
    note = left_out_note(rep)
    if note:
        out.append(md_text(note) + "\n")
    return "\n".join(out)


def typed_csv(headers: list[str], rows: list[list[Any]]) -> str:
    """A CSV table with typed cells: numbers as numbers, None as an empty field."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(headers)
    for r in rows:
        w.writerow(["" if x is None else x for x in r])
    return buf.getvalue()


def report_csv_files(rep: Any, path: Path) -> list[tuple[Path, str]]:
    """``path`` for the first table of the report, ``<stem>-<n>-<title>.csv`` beside it for each further one;
    typed (:func:`.formats.typed`)."""
    from .formats import run_ids, typed

    out = []
    for i, rt in enumerate(rep.tables):
        p = path if i == 0 else path.with_name(f"{path.stem}-{i + 1}-{_slug(rt.table.title)}{path.suffix or '.csv'}")
        out.append((p, typed_csv(*typed(rt, run_ids(rep, rt)))))
    return out
