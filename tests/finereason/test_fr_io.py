"""Loaders (errors name file and line), the typer CLI, and the training-data export."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reasoneval.benchmarks.finereason.cli import app, generate_cmd
from reasoneval.benchmarks.finereason.data import DataError, load_questions, load_states, puzzle_of_path
from reasoneval.benchmarks.finereason.export import (
    MixConfig,
    build_mix,
    export_training,
    load_math,
    target_state,
)
from reasoneval.benchmarks.finereason.generate import (
    game24_from_numbers,
    generate_states,
    gridpuzzle_from_clues,
    sudoku_from_grid,
)
from reasoneval.benchmarks.finereason.tasks import score_state_transition


def test_loader_errors_name_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "sudoku_states.json"
    good = json.dumps({"inputs": {"initial": [], "grandparent": None, "parent": [], "current": [],
                                  "unsolvable_child": []}, "outputs": {"final": [], "current_status": "Solvable"}})
    p.write_text(good + "\n\n{not json}\n")
    with pytest.raises(DataError, match=r"sudoku_states.json:3: invalid JSON"):
        load_states("sudoku", p)
    p.write_text(good + "\n" + json.dumps({"inputs": {"initial": []}}) + "\n")
    with pytest.raises(DataError, match=r":2: inputs lack grandparent, parent, current, unsolvable_child"):
        load_states("sudoku", p)
    p.write_text(good.replace("Solvable", "Maybe") + "\n")
    with pytest.raises(DataError, match=r":1: current_status is 'Maybe'"):
        load_states("sudoku", p)
    p.write_text("[1, 2]\n")
    with pytest.raises(DataError, match=r":1: expected a JSON object"):
        load_questions("sudoku", p)
    with pytest.raises(DataError, match="cannot open"):
        load_states("sudoku", tmp_path / "missing.json")
    with pytest.raises(ValueError):
        load_states("chess")
    assert puzzle_of_path("x/gridpuzzle_states.json") == "gridpuzzle"


def test_cli_label_round_trip(tmp_path: Path, states: dict[str, Any]) -> None:
    p = tmp_path / "graphcoloring_states.json"
    recs = [json.loads(json.dumps(r)) for r in states["graphcoloring"][:20]]
    for r in recs:
        r["outputs"]["current_status"] = "Solvable"  # wrong for the unsolvable ones
    del recs[0]["outputs"]  # an unlabelled state is fine too
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = CliRunner().invoke(app, ["label", str(p)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert [r["outputs"]["current_status"] for r in lines] == \
        [r["outputs"]["current_status"] for r in states["graphcoloring"][:20]]
    bad = CliRunner().invoke(app, ["label", str(tmp_path / "sudoku_states.json")])
    assert bad.exit_code == 2


def test_cli_generate(capsys: pytest.CaptureFixture[str]) -> None:
    generate_cmd("game24", 6, 1, None)
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(recs) == 6 and {r["outputs"]["current_status"] for r in recs} == {"Solvable", "Unsolvable"}
    res = CliRunner().invoke(app, ["generate", "gridpuzzle", "--n", "4", "--seed", "2"])
    assert res.exit_code == 0 and len([x for x in res.stdout.splitlines() if x.startswith("{")]) == 4
    assert CliRunner().invoke(app, ["generate", "chess"]).exit_code == 2


def test_generate_from_questions_file(tmp_path: Path, questions: dict[str, Any]) -> None:
    p = tmp_path / "sudoku_questions.json"
    p.write_text("".join(json.dumps(q) + "\n" for q in questions["sudoku"][:3]))
    recs = generate_states("sudoku", 12, seed=0, from_path=str(p))
    assert len(recs) == 12
    assert {json.dumps(r["inputs"]["initial"]) for r in recs} <= {json.dumps(q["inputs"]["initial"])
                                                                   for q in questions["sudoku"][:3]}


def test_new_instances_from_user_input() -> None:
    q = sudoku_from_grid([[0] * 9 for _ in range(9)], require_unique=False)
    assert all(v for row in q["outputs"]["final"] for v in row)
    with pytest.raises(ValueError, match="more than one"):
        sudoku_from_grid([[0] * 9 for _ in range(9)])
    assert game24_from_numbers([4, 7, 8, 8])["outputs"]["solvable"]
    rec = gridpuzzle_from_clues(
        {"times": [9, 10, 11], "names": ["Ann", "Bob", "Cy"]},
        ["T[r('Ann')][c('times')] == 9", "T[r('Bob')][c('times')] > T[r('Cy')][c('times')]"], question="toy")
    assert rec["outputs"]["solution"] == [["times", "names"], [9, "Ann"], [10, "Cy"], [11, "Bob"]]
    with pytest.raises(ValueError, match="admit 2"):
        gridpuzzle_from_clues({"times": [9, 10, 11], "names": ["Ann", "Bob", "Cy"]},
                              ["T[r('Ann')][c('times')] == 9"])


def test_export_mix_ratios(tmp_path: Path) -> None:
    math = tmp_path / "math.jsonl"
    math.write_text("".join(json.dumps({"query": f"{i}+1?", "response": str(i + 1)}) + "\n" for i in range(50)))
    assert load_math(math)[0] == {"question": "0+1?", "answer": "1"}
    states = {p: generate_states(p, 16, seed=4) for p in ("sudoku", "game24")}
    mix = build_mix(load_math(math), states, MixConfig(total=40, math_ratio=0.6, unsolvable_ratio=0.75, seed=1))
    c = Counter((m["source"], m["label"]) for m in mix)
    assert c == {("math", None): 24, ("finereason", "Unsolvable"): 12, ("finereason", "Solvable"): 4}
    assert Counter(m["task"] for m in mix if m["source"] == "finereason") == {"state_checking": 8,
                                                                              "state_transition": 8}
    # every ST target is itself scored correct
    for m in mix:
        if m["task"] == "state_transition":
            rec = next(r for r in states[m["puzzle"]] if m["messages"][0]["content"] == _prompt(m["puzzle"], r))
            assert score_state_transition(m["puzzle"], rec, m["answer"]).correct
    with pytest.raises(ValueError, match="need 100 math"):
        build_mix(load_math(math), states, MixConfig(total=100, math_ratio=1.0))
    buf = io.StringIO()
    assert export_training(math, buf, MixConfig(total=10, math_ratio=0.5, seed=2), states=states) == 10
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n')
    with pytest.raises(DataError, match=":1: no question/answer"):
        load_math(bad)


def _prompt(puzzle: str, rec: dict[str, Any]) -> str:
    from reasoneval.benchmarks.finereason.tasks import build_prompt

    return build_prompt(puzzle, "state_transition", rec)


def test_target_state_is_a_solvable_child(states: dict[str, Any]) -> None:
    rng = random.Random(0)
    for rec in rng.sample(states["graphcoloring"], 10):
        t = target_state("graphcoloring", rec)
        assert score_state_transition("graphcoloring", rec, f"Next state: {t}", strict=True).correct
