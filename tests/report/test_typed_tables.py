"""Typed tables (core/table.py): a Cell reads as one text in every renderer, carries its numbers for code that
needs them, and the HTML report shows the published values a benchmark put on it."""

from __future__ import annotations

import csv
import io
import json
import pickle
import re

import pytest
from rich.console import Console

from reasoneval.core import number_format
from reasoneval.core.benchmark import Cell, Column, ScoredRow, Table, TableKind
from reasoneval.core.table import as_cell, column_id, number_of
from reasoneval.report import html_page, latex, render
from reasoneval.report.collect import RunView

COLS = [Column("label", "label"), Column("Accuracy", "accuracy", "%"), Column("CF", "counterfactual", "%"),
        Column("n", "n"), Column("p", "p"), Column("Overall", "overall", "%")]


def typed() -> Table:
    return Table("typed", COLS, [["a", Cell(100 / 3), Cell(0.0, 50.0), 250, number_format.PValue(0.0004),
                                  number_format.Missing("no Cipher items")],
                                 ["b", Cell(number_format.rounded(33.3)), Cell(12.5, 7.25, n=8, ci=(1.0, 40.5)), 3,
                                  number_format.PValue(0.5), Cell(41.0)]], ["note"], TableKind.LEADERBOARD)


SHOWN = [["a", "33.33", "0.00 (50.00)", "250", "<0.001", "n/a (no Cipher items)"],
         ["b", "33.30", "12.50 (7.25)", "3", "0.500", "41.00"]]


def test_a_cell_is_its_text_and_keeps_its_numbers() -> None:
    c = Cell(0.0, 50.0, unit="%")
    assert c == "0.00 (50.00)" and (c.value, c.secondary, c.number) == (0.0, 50.0, 0.0)
    assert Cell(100 / 3) == number_format.cell(100 / 3) == "33.33" and Cell(5) == "5" and Cell(None) == ""
    p = c.compared(45.0, 40.0)
    assert (p.paper, p.paper_secondary, p.delta, p.delta_secondary) == (45.0, 40.0, -45.0, 10.0)
    assert Cell(3.0).compared(1.0, 2.0).paper_secondary is None  # no secondary value, nothing to compare it with
    back = pickle.loads(pickle.dumps(p))
    assert (back, back.value, back.secondary, back.paper, back.unit) == ("0.00 (50.00)", 0.0, 50.0, 45.0, "%")
    col = pickle.loads(pickle.dumps(Column("Multi-Q", "multi-q", "%")))
    assert (col, col.id, col.unit) == ("Multi-Q", "multi-q", "%")
    assert column_id(col) == "multi-q" and column_id("accuracy") == "accuracy"
    assert number_of(Cell(2.5)) == 2.5 and number_of(7) == 7.0 and number_of("7.00") is None
    assert number_of(True) is None and number_of(float("nan")) is None
    assert as_cell(1.5) == "1.50" and as_cell("1.50") is None and as_cell(number_format.PValue(0.1)) is None


def test_every_renderer_writes_the_same_text() -> None:
    t = typed()
    # terminal
    con = Console(file=io.StringIO(), width=200, color_system=None)
    render.to_terminal([t], con)
    out = con.file.getvalue()  # type: ignore[attr-defined]
    for row in SHOWN:
        assert re.search(r"\s+│\s+".join(map(re.escape, row)), out), row
    # Markdown
    md = render.to_markdown([t])
    for row in SHOWN:
        assert "| " + " | ".join(x.replace("<", "\\<") for x in row) + " |" in md
    # CSV
    assert list(csv.reader(io.StringIO(render.to_csv(t)))) == [list(COLS), *SHOWN]
    # LaTeX: typed numbers right-aligned, the label column left
    tex = latex.to_latex([t])
    # Overall holds numbers and a missing value: right-aligned, "n/a" in the cell, the reason in the notes
    assert r"\begin{tabular}{lrrrrr}" in tex
    assert r"a & 33.33 & 0.00 (50.00) & 250 & \textless{}0.001 & n/a \\" in tex and "n/a: no Cipher items" in tex
    # JSON: rows as shown (p-values stay numbers), the typed fields beside them
    js = json.loads(json.dumps(t.to_json()))
    assert js["rows"][1][:4] == SHOWN[1][:3] + [3] and js["rows"][0][4] == 0.0004
    assert js["column_ids"] == ["label", "accuracy", "counterfactual", "n", "p", "overall"]
    cells = {(i, j): f for i, j, f in js["cells"]}
    assert cells[(0, 2)] == {"value": 0.0, "secondary": 50.0}
    assert cells[(1, 2)] == {"value": 12.5, "secondary": 7.25, "n": 8, "ci": [1.0, 40.5]}
    assert "cells" not in Table("plain", ["a"], [[1.5]]).to_json()  # plain tables keep their JSON shape
    # HTML cells: the same text, the number to sort by from the cell, never from its text
    assert [html_page.fmt(x) for x in t.rows[0]] == SHOWN[0]
    assert html_page._td(t.rows[1][2]) == '<td class="num" data-v="12.5">12.50 (7.25)</td>'
    assert html_page._td("12.50") == "<td>12.50</td>"


class _Paper:
    """A benchmark stand-in whose ``with_paper`` puts published values on the accuracy column."""

    def with_paper(self, table: Table, runs: list[dict]) -> Table:
        rows = [[c.compared(50.0) if column_id(col) == "accuracy" and isinstance(c, Cell) else c
                 for col, c in zip(table.columns, r, strict=True)] for r in table.rows]
        return Table(table.title, table.columns, rows, [*table.notes, f"compared {len(runs)} run(s)"], table.kind)


def test_html_shows_paper_values_from_typed_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_page, "_benchmark", lambda name: _Paper())
    monkeypatch.setattr(html_page, "make_plots", lambda views: ([], []))
    t = Table("typed", [Column("label", "label"), Column("Accuracy", "accuracy", "%")],
              [["a", Cell(40.0)], ["b", "40.00"]])  # a text cell is never compared
    run = {"run_id": "r1", "model": "m", "mode": "zero-shot", "benchmark": "anything", "subset": None, "spec": {}}
    doc = html_page.build_html([RunView(run, list[ScoredRow](), [t], {})], load_items=False)
    assert doc.count('class="num cmpcell"') == 1 and 'data-v="40.0"' in doc
    assert "paper 50.00" in doc and '<span class="d neg" title="ours − paper">Δ -10.00</span>' in doc
    assert "compared 2 run(s)" in doc  # one run per row


def test_long_tables_pivot_on_the_accuracy_column_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several runs of a per-label table: runs x labels on the column whose id is ``accuracy``, whatever its
    label; a table without one is shown as it is."""
    monkeypatch.setattr(html_page, "make_plots", lambda views: ([], []))

    def view(model: str, cols: list[str]) -> RunView:
        run = {"run_id": model, "model": model, "mode": "zero-shot", "benchmark": "anything", "subset": None,
               "spec": {}}
        rows = [["easy", 10, Cell(90.0)], ["hard", 10, Cell(20.0 if model == "a" else 30.0)]]
        return RunView(run, list[ScoredRow](), [Table("per label", cols, rows)], {})

    typed_cols = ["label", "n", Column("acc. (%)", "accuracy", "%")]
    doc = html_page.build_html([view("a", typed_cols), view("b", typed_cols)], load_items=False)
    assert "acc. (%) by label:" in doc and 'class="lb pivot sortable"' in doc
    doc = html_page.build_html([view("a", ["label", "n", "acc. (%)"]), view("b", ["label", "n", "acc. (%)"])],
                          load_items=False)
    assert "pivot" not in doc.split("<main>")[1].split('id="plots"')[0]
