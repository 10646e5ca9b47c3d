"""Render Tables to the terminal, JSON, Markdown and CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable

from ..core.benchmark import Table


def _cell(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.2f}"
    return "" if x is None else str(x)


def to_terminal(tables: list[Table], console: Console | None = None) -> None:
    console = console or Console()
    for t in tables:
        rt = RichTable(title=t.title, title_justify="left")
        for c in t.columns:
            rt.add_column(c, overflow="fold")
        for r in t.rows:
            rt.add_row(*(_cell(x) for x in r))
        console.print(rt)
        for n in t.notes:
            console.print(f"  [dim]{n}[/dim]")


def to_markdown(tables: list[Table]) -> str:
    out = []
    for t in tables:
        out.append(f"### {t.title}\n")
        out.append("| " + " | ".join(t.columns) + " |")
        out.append("|" + "---|" * len(t.columns))
        for r in t.rows:
            out.append("| " + " | ".join(_cell(x).replace("|", "\\|") for x in r) + " |")
        out.extend(f"\n{n}" for n in t.notes)
        out.append("")
    return "\n".join(out)


def to_csv(tables: list[Table]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    for t in tables:
        w.writerow(["table", *t.columns])
        for r in t.rows:
            w.writerow([t.title, *(_cell(x) for x in r)])
    return buf.getvalue()
