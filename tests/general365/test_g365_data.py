from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoneval.benchmarks.general365.benchmark import General365
from reasoneval.benchmarks.general365.prompts import (
    NUMERICAL_TEMPLATE,
    SELECT_TEMPLATE,
    SIMILARITY_TEMPLATE,
    TEXT_TEMPLATE,
    query_text,
)
from reasoneval.core.errors import DataError

FIX = Path(__file__).parents[1] / "fixtures" / "general365"

# Appendix B as printed (line breaks flattened, "\$" unescaped to "$")
PAPER_NUMERICAL = (
    "… Output your final answer at the end of your reply using the following format: ### The final answer is: "
    "$\\boxed{<your answer>}$ Example: ### The final answer is: $\\boxed{123}$ or $\\boxed{(1, 2]}$ The final "
    "answer should be given as precisely as possible (using LaTeX symbols such as \\sqrt, \\frac, \\pi, etc.). If "
    "the final answer involves a decimal approximation, it must be accurate to at least FLOAT_ROUND decimal places.")
PAPER_SELECT = (
    "… Output your final answer at the end of your reply using the following format: ### The final answer is: "
    "$ <your answer> $ Select one or more appropriate options as your final answer based on the question above.")
PAPER_TEXT = ("… Output your final answer at the end of your reply using the following format: ### The final "
              "answer is: $ <your answer> $")


def flat(s: str) -> str:
    return " ".join(s.split())


def bench(path: Path) -> General365:
    b = General365()
    b.configure({"data": str(path)})
    return b


def test_release_parquet_loads_with_example_1() -> None:
    items = bench(FIX / "hf").load("test", "paper")
    assert len(items) == 8
    ex1 = items[0]
    assert ex1.id == "1" and ex1.gold == "420" and ex1.data["_g365"]["answer_type"] == "number"
    assert ex1.data["question"].startswith("Strangers A, B, C, D, and E line up")
    assert [i.data["_g365"]["float_round"] for i in items] == [0, 0, 3, 4, 0, 0, None, 3]
    assert {i.data["_g365"]["answer_type"] for i in items} == {"number", "interval", "single_choice",
                                                               "multiple_choice", "text"}


def test_json_list_layout_matches_parquet() -> None:
    a = [(i.id, i.gold) for i in bench(FIX / "hf").load("test", "paper")]
    b = [(i.id, i.gold) for i in bench(FIX / "json").load("test", "paper")]
    assert a == b


def test_own_jsonl_categories_and_seed_links() -> None:
    items = {i.id: i.data["_g365"] for i in bench(FIX / "own.jsonl").load("test", "paper")}
    assert items["s1"]["categories"] == ["Complex Constraints", "Branching & Enumeration"]
    assert items["s1-v1"]["categories"] == ["Complex Constraints", "Branching & Enumeration"]  # "A; B" string
    assert (items["s1"]["seed_id"], items["s1"]["is_seed"]) == ("s1", True)
    assert (items["s1-v1"]["seed_id"], items["s1-v1"]["is_seed"]) == ("s1", False)
    assert items["s2"]["is_seed"] is True


def test_seed_pattern_links_ids(tmp_path: Path) -> None:
    p = tmp_path / "d.jsonl"
    p.write_text("".join(json.dumps({"id": i, "question": "q", "answer": "1", "answer_type": "number"}) + "\n"
                         for i in ("7_0", "7_1", "8_0")), encoding="utf-8")
    b = bench(p)
    b.configure({"seed_pattern": r"^(?P<seed>\d+)_(?P<variant>\d+)$"})
    meta = {i.id: i.data["_g365"] for i in b.load("test", "paper")}
    assert (meta["7_1"]["seed_id"], meta["7_1"]["is_seed"], meta["8_0"]["is_seed"]) == ("7", False, True)


@pytest.mark.parametrize("bad, field", [
    ({"answer_type": "essay"}, "'answer_type'"),
    ({"float_round": "two"}, "'float_round'"),
    ({"question": None}, "'question'"),
    ({"answer": ["x"]}, "'answer'"),
    ({"categories": 5}, "'categories'"),
])
def test_bad_rows_name_file_row_and_field(tmp_path: Path, bad: dict, field: str) -> None:
    good = {"id": "1", "question": "q", "answer": "1", "answer_type": "number", "float_round": "0"}
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "2", **bad}) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        bench(p).load("test", "paper")
    assert str(p) in str(e.value) and "row 2" in str(e.value) and field in str(e.value)


def test_missing_data_tells_where_to_put_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # no local path and an empty HF cache, offline: the Hub release cannot be used either (tests/hub downloads)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("REASONEVAL_GENERAL365_PATH", str(tmp_path))  # no longer read: the path is --data
    with pytest.raises(DataError, match="reasoneval run general365 --data PATH"):
        General365().load("test", "paper")
    with pytest.raises(DataError, match="reasoneval data pull general365"):
        General365().data_version()


def test_query_templates_are_the_papers() -> None:
    assert flat(NUMERICAL_TEMPLATE.format(question="…", float_round="FLOAT_ROUND")) == PAPER_NUMERICAL
    assert flat(SELECT_TEMPLATE.format(question="…")) == PAPER_SELECT
    assert flat(TEXT_TEMPLATE.format(question="…")) == PAPER_TEXT
    assert "### The final answer is: $\\boxed{<your answer>}$" in NUMERICAL_TEMPLATE.format(question="q",
                                                                                           float_round=3).splitlines()
    assert "Final Similarity Score: [A scalar number between 0 and 5]" in SIMILARITY_TEMPLATE


def test_query_fills_float_round_and_never_doubles_instructions() -> None:
    items = {i.id: i for i in bench(FIX / "hf").load("test", "paper")}
    b = General365()
    assert b.prompt(items["3"], "paper").last_user_text().endswith("at least 3 decimal places.")
    assert b.prompt(items["1"], "paper").last_user_text().endswith("at least 4 decimal places.")  # not annotated
    assert b.prompt(items["5"], "paper").last_user_text().endswith("based on the question above.")
    assert b.prompt(items["7"], "paper").last_user_text().endswith("### The final answer is: $ <your answer> $")
    pre = b.prompt(items["8"], "paper").last_user_text()
    assert pre == items["8"].data["question"] and pre.count("Output your final answer") == 1
    assert query_text("q", "interval", 2).endswith("at least 2 decimal places.")
