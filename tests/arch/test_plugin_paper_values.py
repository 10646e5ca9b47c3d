"""A letter-choice benchmark from outside the package puts its paper's numbers beside its own in the HTML report
through the same extension points the shipped benchmarks use (typed cells, ``with_paper``, ``paper_tables``,
``figures``), in one module (plus its entry-point declaration, ``tests/core/test_plugin_benchmark.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from reasoneval.core import registry
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Prompt, Usage
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.html_page import build_html

MODULE = '''
from reasoneval.core.benchmark import Benchmark, Cell, Column, Table, TableKind
from reasoneval.core.registry import register
from reasoneval.core.values import Item, Outcome, Prompt, Verdict
from reasoneval.core.number_format import rounded
from reasoneval.scoring.extract import choice_letter

QUESTIONS = [("2+2?", {"A": "3", "B": "4"}, "B"), ("Capital of France?", {"A": "Paris", "B": "Rome"}, "A"),
             ("3*3?", {"A": "9", "B": "6"}, "A"), ("Largest planet?", {"A": "Mars", "B": "Jupiter"}, "B")]
PAPER = {"gpt-4o": 80.0}  # the paper's accuracy per model
COLUMNS = [Column("Accuracy", "accuracy", "%")]


@register("paperletters")
class PaperLetters(Benchmark):
    name = "paperletters"
    description = "letter-choice questions with published numbers"

    def subsets(self): return ["all"]
    def modes(self): return ["zero-shot"]

    def load(self, subset, mode):
        return [Item("paperletters", "all", str(i), {"q": q, "options": o}, g)
                for i, (q, o, g) in enumerate(QUESTIONS)]

    def prompt(self, item, mode):
        opts = "\\n".join(f"{k}) {v}" for k, v in item.data["options"].items())
        return Prompt.chat(f"{item.data['q']}\\n{opts}\\nEnd with ANSWER: X")

    def score(self, item, text, mode):
        got = choice_letter(text, "".join(item.data["options"]))
        if got is None:
            return Verdict(Outcome.UNANSWERABLE, None, "unextractable")
        return Verdict(Outcome.CORRECT if got == item.gold else Outcome.INCORRECT, got, "rule")

    def summarize(self, rows, mode):
        ok = sum(bool(r.final.verdict and r.final.verdict.correct) for r in rows)
        return [Table("letters accuracy", COLUMNS, [[Cell(rounded(100 * ok / len(rows)), n=len(rows), unit="%")]],
                      kind=TableKind.LEADERBOARD)]

    def with_paper(self, table, runs):
        if table.kind is not TableKind.LEADERBOARD:
            return table
        rows = [[c.compared(PAPER[run["model"]]) if run["model"] in PAPER and isinstance(c, Cell) else c for c in r]
                for r, run in zip(table.rows, runs, strict=True)]
        return Table(table.title, table.columns, rows, [*table.notes, "Paper: the letters paper, Table 1."],
                     table.kind)
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "paperletters.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("REASONEVAL_PLUGINS", "paperletters")
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_INSTANCES", dict(registry._INSTANCES))
    monkeypatch.delitem(sys.modules, "paperletters", raising=False)
    return tmp_path


def _view(model: str, answers: str) -> RunView:
    bench = registry.get("paperletters")
    rows = []
    for item, letter in zip(bench.load("all", "zero-shot"), answers, strict=True):
        c = Completion(f"ANSWER: {letter}", "stop", Usage(10, 3))
        rows.append(ScoredRow(item.key, item.subset, 0, [Turn(Prompt.chat("q"), c, bench.score(item, c.text, ""))]))
    run = {"run_id": f"run-{model}", "model": model, "benchmark": "paperletters", "mode": "zero-shot",
           "subset": None, "spec": {}}
    return RunView(run, rows, bench.summarize(rows, "zero-shot"), collect.run_stats(rows))


def test_outside_benchmark_gets_paper_values_into_the_html(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reasoneval.report.html_page.make_plots", lambda views: ([], []))
    views = [_view("gpt-4o", "BAAA"), _view("other-model", "BBBB")]  # 3 of 4 right; 2 of 4 right
    assert views[0].tables[0].rows == [["75.00"]]
    doc = build_html(views, load_items=False)
    assert doc.count('class="num cmpcell"') == 1  # only the model the paper has
    assert "paper 80.00" in doc and "Δ -5.00" in doc and "Paper: the letters paper, Table 1." in doc
