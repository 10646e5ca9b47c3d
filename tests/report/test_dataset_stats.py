"""``reasoneval stats``: cl100k token counts and the KOR-Bench dataset tables against the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval.benchmarks.korbench import dataset_stats as ds
from reasoneval.cli import app


@pytest.mark.parametrize(("text", "ids"), [
    # tiktoken's published cl100k_base encodings (OpenAI cookbook "How to count tokens with tiktoken")
    ("hello world", [15339, 1917]),
    ("tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]),
    ("antidisestablishmentarianism", [519, 85342, 34500, 479, 8997, 2191]),
    ("2 + 2 = 4", [17, 489, 220, 17, 284, 220, 19]),
    ("お誕生日おめでとう", [33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699]),
])
def test_cl100k_matches_tiktoken(text: str, ids: list[int]) -> None:
    assert ds.cl100k().encode(text) == ids
    assert ds.count_tokens(text) == len(ids)


def test_table1_reproduces_the_paper_exactly() -> None:
    t = ds.kor_table1()
    for r in t.rows:
        ours = r[1:6]
        paper = list(ds.KOR_TABLE1[r[0]][:5])
        assert ours == pytest.approx(paper, abs=0.006), r[0]


def test_table4_rule_counts_sum_to_25_per_category() -> None:
    t = ds.kor_table4()
    per: dict[str, int] = {}
    for r in t.rows:
        per[r[0]] = per.get(r[0], 0) + r[-1]
    assert per == dict.fromkeys(("operation", "logic", "cipher", "puzzle", "counterfactual"), 25)
    assert ["logic", "Formal Logic", "Deductive Logic", "Modal Logic", 5] in t.rows


def test_table6_formats_stay_within_the_papers_categories() -> None:
    t = ds.kor_table6()
    by = {r[0]: r for r in t.rows}
    assert by["cipher"][3] == "250 (100.00%)" and by["counterfactual"][4] == "250 (100.00%)"
    assert by["operation"][3] == "-" and by["operation"][4] == "-"  # no TR / MC in Operation
    assert ds.answer_format("[[4or-12]]", ("NR", "ME", "SD")) == "NR"
    assert ds.answer_format("[[A];[C]]", ("NR", "TR", "MC")) == "MC"
    assert ds.answer_format("[[x=2,y=3]]", ("NR", "ME", "SD")) == "SD"
    assert ds.answer_format("[[\\sqrt{2}]]", ("NR", "ME", "SD")) == "ME"


def test_table7_inputs_near_paper_and_gpt4o_outputs_exact(shared_or_none: Path | None) -> None:
    outputs = None if shared_or_none is None else shared_or_none / "data" / "korbench-outputs" / "main"
    if outputs is not None and not outputs.is_dir():
        outputs = None
    t = ds.kor_table7(outputs=outputs)
    by = {r[0]: r for r in t.rows}
    for cat, r in by.items():
        assert r[1] == pytest.approx(ds.KOR_TABLE7[cat][0], abs=1.5)  # input mean (the paper's prompt differs
        assert r[2] == pytest.approx(ds.KOR_TABLE7[cat][1], abs=1.0)  # by a token or so for some rules)
    assert by["logic"][1:3] == [628.19, 169.04]
    if outputs is None:
        pytest.skip("no KOR-Bench raw outputs in the shared data (set REASONEVAL_SHARED)")
    for cat in ("logic", "cipher", "counterfactual"):  # the released GPT-4o responses are the paper's
        assert by[cat][3:5] == pytest.approx(list(ds.KOR_TABLE7[cat][2:4]), abs=0.01)


def test_stats_cli_json() -> None:
    r = CliRunner().invoke(app, ["stats", "korbench", "--json"])
    assert r.exit_code == 0, r.output
    titles = [t["title"] for t in json.loads(r.stdout)]
    assert [x.split(":")[0] for x in titles] == ["KOR-Bench Table 1", "KOR-Bench Table 4", "KOR-Bench Table 5",
                                                 "KOR-Bench Table 6", "KOR-Bench Table 7"]


def test_kor_table5_formats_with_release_answers() -> None:
    from reasoneval.benchmarks.korbench.answer_formats import kor_table5

    t = kor_table5()
    assert [r[0] for r in t.rows] == ["NR", "ME", "TR", "MC", "SD"]
    by = {r[0]: r for r in t.rows}
    assert by["MC"][1:4] == ["Multiple Choice", "An answer format in which one of a set of multiple choices is "
                             "selected as the answer.", "[[A]], [[B]], [[C]]"]
    assert sum(r[4] for r in t.rows) == 1250  # every release answer read as exactly one format
    assert by["TR"][4] >= 250 and by["MC"][4] >= 250  # all of Cipher; all of Counterfactual
    assert by["MC"][5].startswith("logic ") or by["MC"][5].startswith("counterfactual ")


def test_stats_generic_counts_items_per_subset() -> None:
    r = CliRunner().invoke(app, ["stats", "finereason", "--json"])
    assert r.exit_code == 0, r.output
    t = json.loads(r.stdout)[0]
    assert t["title"] == "finereason: items per subset"
    assert sum(row[1] for row in t["rows"]) > 0
