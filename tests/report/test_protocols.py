"""Leaderboards per protocol, messages only when true, no empty Table 2 columns for the puzzle-only trick runs,
items in natural id order."""

from __future__ import annotations

import re

import pytest
from report_fixtures import korbench_view

from reasoneval.benchmarks.korbench.report import TABLE2_COLUMNS
from reasoneval.core.benchmark import Cell, Table, TableKind
from reasoneval.report.collect import RunView
from reasoneval.report.html_page import build_html, item_data, natural_key
from reasoneval.report.plots import run_labels

CATS = ["operation", "logic", "cipher", "puzzle", "counterfactual"]
T2 = list(TABLE2_COLUMNS)


@pytest.fixture(autouse=True)
def no_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reasoneval.report.html_page.make_plots", lambda views: ([], []))


def _typed(row: list[str]) -> list[object]:
    """A row written as text ("60.00 (5.00)", "-") as the summariser makes it: typed cells, "-" for absent."""
    out: list[object] = []
    for x in row:
        if x == "-":
            out.append(x)
            continue
        main, _, sec = x.partition(" (")
        out.append(Cell(float(main), float(sec.rstrip(")")) if sec else None))
    return out


def _run(model: str, mode: str, subset: str | None, row: list[str], run_id: str) -> RunView:
    v = korbench_view(model, mode)
    v.run.update({"subset": subset, "run_id": run_id})
    v.run["spec"] = {**v.run["spec"], "limit": None}
    title = f"korbench ({mode}, official scoring)"
    return RunView(v.run, v.rows, [Table(title, T2, [_typed(row)], kind=TableKind.LEADERBOARD)], v.stats)


def _subset_row(cat: str) -> list[str]:
    return ["50.00", *[("60.00" if c == cat else "-") for c in CATS]]


def _notes(doc: str) -> list[str]:
    return re.findall(r'<p class="note">([^<]*)</p>', doc)


def test_all_subsets_as_separate_runs_get_one_true_note() -> None:
    views = [_run("openai/gpt-4o", "zero-shot", c, _subset_row(c), f"r{i}") for i, c in enumerate(CATS)]
    doc = build_html(views, load_items=False)
    assert "Only subset" not in doc
    notes = [n for n in _notes(doc) if n.startswith("Paper numbers: openai/gpt-4o")]
    assert len(notes) == 1  # one per model, not one per run
    assert "Subsets cipher, counterfactual, logic, operation, puzzle ran as separate runs" in notes[0]
    # every category is compared (once per run that ran it), Overall of no run is
    assert doc.count('class="num cmpcell"') == 5


def test_one_subset_run_says_so() -> None:
    doc = build_html([_run("openai/gpt-4o", "zero-shot", "cipher", _subset_row("cipher"), "r1")], load_items=False)
    assert "Only subset cipher was run, so Overall is not compared." in doc
    # a whole-benchmark run: no subset message at all
    doc = build_html([_run("openai/gpt-4o", "zero-shot", None, ["50.00", *["60.00"] * 4, "60.00 (5.00)"], "r2")],
                     load_items=False)
    assert "Only subset" not in doc and "separate runs" not in doc
    # as the store records a whole-benchmark run ("*"): the same, and its Overall is compared with the paper's
    doc = build_html([_run("openai/gpt-4o", "zero-shot", "*", ["50.00", *["60.00"] * 4, "60.00 (5.00)"], "r3")],
                     load_items=False)
    assert "Only subset" not in doc and "separate runs" not in doc
    assert doc.count('title="published"') == 6  # Overall and the five categories beside the paper's


def test_trick_table_has_only_the_columns_it_reports() -> None:
    trick = _run("openai/gpt-4o", "trick", "puzzle", ["12.00", "-", "-", "-", "12.00", "-"], "t1")
    trick2 = _run("openai/gpt-4o-mini", "trick", "puzzle", ["8.00", "-", "-", "-", "8.00", "-"], "t2")
    doc = build_html([trick, trick2], load_items=False)
    sect = doc[doc.index("korbench (trick, official scoring)"):]
    table = sect[:sect.index("</table>")]
    heads = re.findall(r'<th data-col="\d+">([^<]*)</th>', table)
    assert heads == ["model", "Overall", "Puzzle"]  # not Table 2's four empty category columns
    assert "<td>-</td>" not in table
    # a category missing from one run only keeps its column
    a = _run("m1", "zero-shot", None, ["50.00", "60.00", "-", "70.00", "-", "-"], "z1")
    b = _run("m2", "zero-shot", None, ["50.00", "-", "-", "40.00", "30.00", "-"], "z2")
    doc = build_html([a, b], load_items=False)
    sect = doc[doc.index("korbench (zero-shot, official scoring)"):]
    heads = re.findall(r'<th data-col="\d+">([^<]*)</th>', sect[:sect.index("</table>")])
    assert heads == ["model", "Overall", "Operation", "Cipher", "Puzzle"]


def test_overview_per_protocol() -> None:
    views = [_run("m-zero", "zero-shot", None, ["1"] * 6, "a"), _run("m-three", "three-shot", None, ["2"] * 6, "b"),
             _run("m-trick", "trick", "puzzle", ["3", "-", "-", "-", "3", "-"], "c")]
    doc = build_html(views, load_items=False)
    heads = re.findall(r"<h4>(Runs[^<]*)</h4>", doc)
    assert heads == [f"Runs · {m} protocol (final-turn accuracy, failed calls excluded)"
                     for m in ("zero-shot", "three-shot", "trick")]
    for part, model in zip(doc.split("<h4>Runs · ")[1:], ("m-zero", "m-three", "m-trick"), strict=True):
        overview = part[:part.index("</table>")]
        assert model in overview and len(re.findall(r"<tr data-run=", overview)) == 1
    # one protocol: one overview, titled as before
    doc = build_html(views[:1], load_items=False)
    assert re.findall(r"<h4>(Runs[^<]*)</h4>", doc) == ["Runs (final-turn accuracy, failed calls excluded)"]


def test_items_in_natural_id_order() -> None:
    v = korbench_view()
    v.rows.reverse()
    index, chunks = item_data([v], run_labels([v]))
    keys = [it[1] for it in index["items"]]
    assert keys == sorted(keys, key=natural_key)
    assert keys[:5] == ["cipher/1", "cipher/2", "cipher/11", "cipher/12", "cipher/25"]
    # each item points at its own turns in the run's chunk
    for it in index["items"]:
        turns = chunks[0]["turns"][it[10]]
        assert turns[0][1] == f"answer [[{it[1].split('/')[1]}]]"
