"""``-O scoring=official``: FineReason state-checking extraction as the official get_answer reads it, the
corrected reading beside it, and the summary's diff table."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.score_official import extract_sc_official
from reasoneval.benchmarks.finereason.tasks import extract_sc
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.errors import OptionError
from reasoneval.core.types import Completion, Prompt

SC = "state-checking"


@pytest.mark.parametrize(("text", "official", "corrected"), [
    # no marker: the official reader still reads the whole text; the corrected one needs "Answer:"
    ("The state is Unsolvable.", "Unsolvable", None),
    # case-sensitive words: lower-case "unsolvable" is no label officially
    ("Answer: unsolvable", None, "Unsolvable"),
    # Solvable is tested first, by substring: "Not Solvable" reads Solvable officially
    ("Answer: Not Solvable", "Solvable", "Unsolvable"),
    # substring letter test: the capital A of "At" means (A) Solvable officially
    ("Answer: At this point it is B", "Solvable", "Unsolvable"),
    # no <think> stripping: a letter inside the reasoning counts officially
    ("<think>maybe (B)</think> Answer: the grid can still be completed", "Unsolvable", None),
    # the last (A)/(B) wins in both; spaces inside the parentheses only for the corrected reader
    ("(B) ... on reflection (A)", "Solvable", "Solvable"),
    ("Answer: ( B )", "Unsolvable", "Unsolvable"),
    ("( B ) and nothing else", "Unsolvable", "Unsolvable"),  # officially by the letter substring test
    ("Colorable? Answer: Uncolorable", "Unsolvable", "Unsolvable"),
])
def test_official_and_corrected_readings(text: str, official: str | None, corrected: str | None) -> None:
    assert extract_sc_official(text)[0] == official
    assert extract_sc(text)[0] == corrected


def _bench(scoring: str | None) -> FineReason:
    b = FineReason()
    if scoring:
        b.configure({"scoring": scoring})
    return b


def test_option_drives_the_verdict_and_keeps_the_other_reading() -> None:
    with pytest.raises(OptionError):
        FineReason.Options.parse(["scoring=lenient"])
    b = _bench("official")
    item = next(i for i in b.load("sudoku", SC) if i.gold == "Unsolvable")
    text = "Answer: Not Solvable"  # official: Solvable (wrong); corrected: Unsolvable (right)
    off = b.score(item, text, SC)
    cor = _bench(None).score(item, text, SC)
    assert not off.correct and off.extracted == "Solvable" and off.detail["other_scoring"] == "Unsolvable"
    assert cor.correct and cor.detail["other_scoring"] == "Solvable"
    assert FineReason.Options().identity() == {}  # the default keeps every stored run id
    assert b.options.identity() == {"scoring": "official"}


def test_summary_has_the_diff_table() -> None:
    b = _bench("official")
    items = [i for i in b.load("sudoku", SC)][:4]
    texts = ["Answer: Not Solvable", "(A)", "Answer: (B)", "Unsolvable"]
    rows = [ScoredRow(i.key, "sudoku", 0, [Turn(Prompt.chat("q"), Completion(t), b.score(i, t, SC))])
            for i, t in zip(items, texts, strict=True)]
    tables = b.summarize(rows, SC)
    diff = next(t for t in tables if "official vs corrected" in t.title)
    row = diff.rows[0]
    assert row[0] == "sudoku" and row[1] == 4
    golds = [i.gold for i in items]
    off = [extract_sc_official(t)[0] for t in texts]
    cor = [extract_sc(t)[0] for t in texts]
    assert row[2] == round(100 * sum(o == g for o, g in zip(off, golds, strict=True)) / 4, 2)
    assert row[3] == round(100 * sum(c == g for c, g in zip(cor, golds, strict=True)) / 4, 2)
    assert row[5] == sum(o != c for o, c in zip(off, cor, strict=True))
