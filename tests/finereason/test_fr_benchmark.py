"""The registered FineReason Benchmark: catalogue, prompts (against the official rendering), verdicts,
summary tables, a Runner run against the fake OpenAI-compatible server, ``rescore`` and the CLI."""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rendered_index import RENDERED, RENDERED_INDEX  # noqa: E402
from typer.testing import CliRunner

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.cli import app as fr_app
from reasoneval.benchmarks.finereason.generate import generate_states
from reasoneval.benchmarks.finereason.items import depth_of
from reasoneval.benchmarks.finereason.modes import normalize_mode
from reasoneval.benchmarks.finereason.tasks import (
    BACKTRACKING_FAILURE,
    ERROR_TYPES,
    INVALID_MOVE,
    PARSE_ERROR,
    SIBLING,
    UNSOLVABLE_CHILD,
)
from reasoneval.cli.rescore_output import rescore_outside
from reasoneval.core import registry
from reasoneval.core.benchmark import ScoredRow, Table, Turn
from reasoneval.core.values import Completion, GenParams, Outcome, Prompt, Verdict
from reasoneval.testing.procs import FakeServerProc

SC, ST, E2E = "state-checking", "state-transition", "end-to-end"
PUZZLES = ("sudoku", "graphcoloring", "game24", "gridpuzzle")


@pytest.fixture(scope="module")
def bench() -> FineReason:
    """The corrected reading (``-O scoring=corrected``), which these tests describe; the official one, the
    default, is checked against the official code in ``test_fr_official_crafted.py``."""
    assert isinstance(registry.get("finereason"), FineReason)
    b = FineReason()
    b.configure({"scoring": "corrected"})
    return b


# -- catalogue ----------------------------------------------------------------------------------------
def test_catalogue(bench: FineReason) -> None:
    assert bench.subsets() == list(PUZZLES)
    assert bench.modes() == [SC, ST, E2E] and bench.default_mode == SC
    assert bench.default_params.temperature is None and bench.default_params.max_tokens == 2048
    n = {(s, m): len(bench.load(s, m)) for s in PUZZLES for m in (SC, ST, E2E)}
    assert all(n[(s, m)] == 500 for s in PUZZLES for m in (SC, ST))
    assert [n[(s, E2E)] for s in PUZZLES] == [51, 51, 98, 46]
    for m in (SC, ST, E2E):
        items = bench.load("game24", m)
        assert [it.id for it in items[:3]] == ["0", "1", "2"] and items[0].key == "game24/0"
        assert all(it.gold is not None for it in items)
        assert bench.load("game24", m)[7].data == items[7].data  # stable
    with pytest.raises(KeyError):
        bench.load("chess", SC)
    assert normalize_mode("state_transition") == ST and normalize_mode("e2e") == E2E
    with pytest.raises(ValueError):
        normalize_mode("nope")


def test_items_carry_gold_and_depth(bench: FineReason) -> None:
    su = bench.load("sudoku", SC)
    assert su[0].gold == "Solvable" and su[1].gold == "Unsolvable"
    assert su[1].data["outputs"]["current_status"] == "Unsolvable"
    st = bench.load("sudoku", ST)
    assert st[1].gold == st[1].data["inputs"]["parent"]  # unsolvable: backtrack to the parent
    g24 = bench.load("game24", SC)
    assert g24[0].data["depth"] == 1 and g24[250].data["depth"] == 2
    assert depth_of("gridpuzzle", bench.load("gridpuzzle", SC)[5].data["inputs"]) == \
        len(bench.load("gridpuzzle", SC)[5].data["inputs"]["applied_clues"])
    gc = bench.load("graphcoloring", SC)[80]
    assert gc.data["depth"] == sum(1 for v in gc.data["inputs"]["current"] if v) - 1
    assert bench.load("sudoku", E2E)[0].gold == bench.load("sudoku", E2E)[0].data["outputs"]["final"]


# -- prompts ------------------------------------------------------------------------------------------
def test_prompts_equal_the_official_rendering(bench: FineReason) -> None:
    blocks = re.split(r"^#################### (\S+) (\S+) label: (\S+)\n", RENDERED.read_text(), flags=re.M)
    mode_of = {"state_checking": SC, "state_transition": ST, "e2e": E2E}
    seen = 0
    for i in range(1, len(blocks), 4):
        data, prompter, _label, body = blocks[i:i + 4]
        body = body.rstrip("\n")
        puzzle, task = prompter.split("_", 1)
        idx = RENDERED_INDEX.get((data, prompter), 250 if "One move ago" in body else 0)
        mode = mode_of[task]
        p = bench.prompt(bench.load(puzzle, mode)[idx], mode)
        assert p.is_chat and len(p.messages) == 1 and p.messages[0].role == "user"  # no system prompt
        assert p.messages[0].content == body, (data, prompter)
        seen += 1
    assert seen == 13


# -- verdicts -----------------------------------------------------------------------------------------
def test_state_checking_verdicts(bench: FineReason) -> None:
    for puzzle in PUZZLES:
        items = bench.load(puzzle, SC)
        for it in (items[0], items[1], items[-1]):
            right = "(A)" if it.gold == "Solvable" else "(B)"
            wrong = "(B)" if right == "(A)" else "(A)"
            v = bench.score(it, f"Thinking...\nAnswer: {right}", SC)
            assert v.outcome is Outcome.CORRECT and v.extracted == it.gold and v.method == "last_letter"
            assert v.detail["gold"] == it.gold and v.detail["puzzle"] == puzzle
            assert v.detail["depth"] == it.data["depth"] and v.detail["error_type"] is None
            assert bench.score(it, f"Answer: {wrong}", SC).outcome is Outcome.INCORRECT
            u = bench.score(it, "I cannot tell.", SC)
            assert u.outcome is Outcome.UNANSWERABLE and u.extracted is None
            assert u.method == "none" and u.detail["error_type"] == PARSE_ERROR
    gc = bench.load("graphcoloring", SC)[80]
    assert bench.score(gc, "Answer: Colorable", SC).method == "answer_label"


def test_state_transition_verdicts(bench: FineReason) -> None:
    for puzzle in PUZZLES:
        items = bench.load(puzzle, ST)
        solv = next(it for it in items if it.data["outputs"]["current_status"] == "Solvable")
        unsolv = next(it for it in items if it.data["outputs"]["current_status"] == "Unsolvable")
        for it in (solv, unsolv):  # the reference next state is correct
            v = bench.score(it, f"So the move is clear.\nNext state: {it.gold}", ST)
            assert v.outcome is Outcome.CORRECT, (puzzle, v.detail)
            assert v.method == "next_state" and v.detail["error_type"] is None
            assert v.detail["gold"] == it.gold and isinstance(v.detail["depth"], int)
        v = bench.score(solv, f"Next state: {solv.data['inputs']['unsolvable_child']}", ST)
        assert v.outcome is Outcome.INCORRECT and v.detail["error_type"] == UNSOLVABLE_CHILD
        v = bench.score(unsolv, f"Next state: {unsolv.data['inputs']['unsolvable_child']}", ST)
        assert v.outcome is Outcome.INCORRECT and v.detail["error_type"] == BACKTRACKING_FAILURE
        v = bench.score(unsolv, "I would backtrack.", ST)
        assert v.outcome is Outcome.UNANSWERABLE and v.detail["error_type"] == PARSE_ERROR
    g24 = bench.load("game24", ST)[375]
    v = bench.score(g24, "Next state: ['((2 + 11) - 6)', '7']", ST)
    assert v.detail["error_type"] == SIBLING and v.detail["official_error"] == "sibling"
    v = bench.score(bench.load("game24", ST)[0], "Next state: ['(5 + 9)', '(12 + 13)']", ST)
    assert v.detail["error_type"] == INVALID_MOVE


def test_end_to_end_verdicts(bench: FineReason) -> None:
    for puzzle in PUZZLES:
        for it in bench.load(puzzle, E2E)[:2]:
            v = bench.score(it, f"Done.\nSolution: {it.gold}", E2E)
            assert v.outcome is Outcome.CORRECT and v.method == "solution", (puzzle, v.detail)
            assert v.detail["gold"] == it.gold and "depth" not in v.detail
            u = bench.score(it, "I give up.", E2E)
            assert u.outcome is Outcome.UNANSWERABLE and u.detail["error_type"] == PARSE_ERROR
    q = bench.load("game24", E2E)[0]  # 5 9 12 12
    assert bench.score(q, "Solution: 5 * 9 + 12 - 12 = 24", E2E).outcome is Outcome.INCORRECT
    assert bench.score(q, "Solution: none exists", E2E).outcome is Outcome.UNANSWERABLE


# -- summaries ----------------------------------------------------------------------------------------
def _rows(bench: FineReason, mode: str, answers: dict[tuple[str, int], str]) -> list[ScoredRow]:
    out = []
    for (puzzle, idx), text in answers.items():
        it = bench.load(puzzle, mode)[idx]
        v = bench.score(it, text, mode)
        out.append(ScoredRow(it.key, it.subset, 0, [Turn(Prompt.chat("q"), Completion(text), v)]))
    return out


def _table(tables: list[Table], title: str) -> Table:
    return next(t for t in tables if t.title == title)


def test_summarize_state_checking(bench: FineReason) -> None:
    # sudoku 0, 2 solvable; 1, 3 unsolvable. Predictions: U (fp), U (tp), S (tn), none (fn, unparsed)
    rows = _rows(bench, SC, {("sudoku", 0): "Answer: (B)", ("sudoku", 1): "Answer: (B)",
                             ("sudoku", 2): "Answer: (A)", ("sudoku", 3): "no idea",
                             ("game24", 0): "Answer: (A)"})
    tables = bench.summarize(rows, SC)
    t = _table(tables, "finereason (state-checking)")
    assert t.columns == ["puzzle", "n", "accuracy", "labels S/U", "majority", "random", "precision", "recall", "f1",
                         "unextractable", "errors"]
    assert t.rows[0] == ["sudoku", 4, 50.0, "2/2", 50.0, 50.0, 50.0, 50.0, 50.0, 1, 0]
    assert t.rows[1][:3] == ["game24", 1, 100.0]
    assert t.rows[2][:3] == ["overall", 5, 60.0]
    d = _table(tables, "finereason (state-checking) accuracy by depth")
    assert d.columns == ["puzzle", "depth", "n", "accuracy"] and "model" not in d.columns
    assert sum(r[2] for r in d.rows if r[0] == "sudoku") == 4
    assert ["game24", 1, 1, 100.0] in d.rows
    # a single puzzle: no overall row
    assert [r[0] for r in bench.summarize(rows[:2], SC)[0].rows] == ["sudoku"]


def test_summarize_state_transition(bench: FineReason) -> None:
    items = bench.load("sudoku", ST)
    rows = _rows(bench, ST, {("sudoku", 0): f"Next state: {items[0].gold}",
                             ("sudoku", 1): f"Next state: {items[1].data['inputs']['current']}",
                             ("sudoku", 2): f"Next state: {items[2].data['inputs']['unsolvable_child']}",
                             ("sudoku", 3): "no state"})
    rows.append(ScoredRow("sudoku/4", "sudoku", 0, [Turn(Prompt.chat("q"), Completion(error="boom"),
                                                          Verdict(Outcome.ERROR, method="error"))]))
    tables = bench.summarize(rows, ST)
    t = _table(tables, "finereason (state-transition)")
    assert t.rows == [["sudoku", 5, 25.0, 50.0, 0.0, 1, 1]]
    e = _table(tables, "finereason (state-transition) error types")
    assert e.columns == ["puzzle", "wrong", *ERROR_TYPES, "truncated"]
    row = dict(zip(e.columns, e.rows[0], strict=True))
    assert row["wrong"] == 3 and row[BACKTRACKING_FAILURE] == 1 and row[UNSOLVABLE_CHILD] == 1
    assert row[PARSE_ERROR] == 1 and row[SIBLING] == 0
    assert _table(tables, "finereason (state-transition) accuracy by depth").columns == \
        ["puzzle", "depth", "n", "accuracy"]


def test_summarize_end_to_end(bench: FineReason) -> None:
    q = bench.load("game24", E2E)
    rows = _rows(bench, E2E, {("game24", 0): f"Solution: {q[0].gold}", ("game24", 1): "Solution: 1 + 1 = 24",
                              ("sudoku", 0): "no"})
    t, diff = bench.summarize(rows, E2E)
    assert diff.title == "finereason (end-to-end) official vs corrected scoring"
    assert t.columns == ["puzzle", "n", "accuracy", "unextractable", "errors"]
    assert t.rows == [["sudoku", 1, 0.0, 1, 0], ["game24", 2, 50.0, 0, 0], ["overall", 3, 33.33, 1, 0]]


def test_versions(bench: FineReason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(bench.data_version()) == 16 and bench.data_version() == FineReason().data_version()
    pv = {m: bench.prompt_version(m) for m in (SC, ST, E2E)}
    again = FineReason()
    again.configure({"scoring": "corrected"})
    assert len(set(pv.values())) == 3 and pv[SC] == again.prompt_version(SC)
    from reasoneval.benchmarks.finereason.prompts import PromptOptions

    assert FineReason(PromptOptions(true_ancestor_labels=True)).prompt_version(ST) != pv[ST]
    # another data folder (generated states named like the release)
    recs = generate_states("game24", 6, seed=3)
    (tmp_path / "game24_states.json").write_text("".join(json.dumps(r) + "\n" for r in recs))
    released = bench.data_version()
    other = FineReason()
    other.configure({"data": str(tmp_path)})
    assert len(other.load("game24", SC)) == 6 and other.data_version() != released
    with pytest.raises(FileNotFoundError, match="sudoku_states.json"):
        other.load("sudoku", SC)


# -- a run through the Runner against the fake OpenAI-compatible server -------------------------------
def _FakeServer() -> FakeServerProc:
    return FakeServerProc("--delay", "0.001")


@pytest.fixture
def fake_server() -> Iterator[FakeServerProc]:
    s = _FakeServer()
    yield s
    s.stop()


def test_runner_end_to_end(bench: FineReason, tmp_path: Path, fake_server: FakeServerProc) -> None:
    from reasoneval.models.openai_compat import from_spec
    from reasoneval.report.collect import view
    from reasoneval.runner.engine import Runner
    from reasoneval.runner.spec import RunSpec
    from reasoneval.store.sqlite import RunStore

    store = RunStore(tmp_path / "runs.db")
    views = {}
    for mode in (SC, ST, E2E):
        spec = RunSpec("finereason", None, mode, f"openai-compat/fake@{fake_server.url}",
                       GenParams(max_tokens=64), limit=3, limit_mode="first")
        backend = from_spec(spec.model, 8)

        async def go(spec: RunSpec = spec, backend: Any = backend) -> Any:
            try:
                return await Runner(bench, spec, store, backend, concurrency=8, progress=False).run()
            finally:
                await backend.aclose()

        res = asyncio.run(go())
        assert res.units == 12 and res.errors == 0
        views[mode] = view(store, res.run_id)
        assert views[mode].stats["items"] == 12
        rec = views[mode].run["spec"]
        assert rec["data_version"] == bench.data_version() and rec["prompt_version"] == bench.prompt_version(mode)

    # the fake model ends with the prompt's last word: "(B)" for state checking, i.e. always "Unsolvable"
    sc = _table(views[SC].tables, "finereason (state-checking)")
    golds = {p: [it.gold for it in bench.load(p, SC)[:3]] for p in PUZZLES}
    for row in sc.rows[:-1]:
        puzzle, n, acc = row[:3]
        assert n == 3 and acc == round(100 * golds[puzzle].count("Unsolvable") / 3, 2)
        # recall: every unsolvable state is caught (undefined without one); precision undefined only without
        # unsolvable predictions, which never happens here
        s, u = golds[puzzle].count("Solvable"), golds[puzzle].count("Unsolvable")
        assert row[3:5] == [f"{s}/{u}", round(100 * max(s, u) / 3, 2)]  # baselines of the labels used
        assert row[7] == (100.0 if "Unsolvable" in golds[puzzle] else None)
        assert row[6] == round(100 * golds[puzzle].count("Unsolvable") / 3, 2)
    assert sc.rows[-1][0] == "overall" and sc.rows[-1][1] == 12
    assert "model" not in sc.columns
    depth = _table(views[SC].tables, "finereason (state-checking) accuracy by depth")
    assert sum(r[2] for r in depth.rows) == 12
    # no "Next state:" / "Solution:" in the fake answers: all unextractable
    st = _table(views[ST].tables, "finereason (state-transition)")
    assert st.rows[-1] == ["overall", 12, 0.0, 0.0, 0.0, 12, 0]
    errs = _table(views[ST].tables, "finereason (state-transition) error types")
    assert dict(zip(errs.columns, errs.rows[-1], strict=True))[PARSE_ERROR] == 12
    e2e = _table(views[E2E].tables, "finereason (end-to-end)")
    assert e2e.rows[-1] == ["overall", 12, 0.0, 12, 0]


# -- rescore ------------------------------------------------------------------------------------------
def _rescore(bench: FineReason, paths: list[Path], jsonl: bool, options: dict[str, Any] | None = None
             ) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = rescore_outside(bench, [str(p) for p in paths], jsonl, options or {}, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def _rec(bench: FineReason, source: str, mode: str, idx: int, response: str, **extra: Any) -> dict[str, Any]:
    """The release record ``idx`` of ``source``'s data for ``mode``, plus ``extra`` fields and the response."""
    d = bench.load(source, mode)[idx].data
    return {"inputs": d["inputs"], "outputs": d["outputs"], **extra, "response": response}


def test_rescore_jsonl(bench: FineReason, tmp_path: Path) -> None:
    gc80 = bench.load("graphcoloring", ST)[80].data["inputs"]["current"]
    grid_q = bench.load("gridpuzzle", E2E)[0].data
    rows = [
        _rec(bench, "sudoku", SC, 0, "Answer: (A)", puzzle="sudoku", task="state_checking"),
        _rec(bench, "sudoku", SC, 1, "I think it works. Answer: Solvable", puzzle="sudoku"),  # default: SC
        _rec(bench, "graphcoloring", ST, 80, f"Next state: {gc80[:13] + [10, 0]}", task="state-transition"),
        _rec(bench, "game24", ST, 375, "Next state: ['(2 + 11)', '6', '7']", task="st", id="g24-375"),
        _rec(bench, "game24", ST, 375, "Next state: ['((2 + 11) - 6)', '7']", task="st"),
        {"inputs": grid_q["inputs"], "outputs": grid_q["outputs"],
         "response": f"Solution: {grid_q['outputs']['solution']}"},  # a question record: end-to-end
        _rec(bench, "game24", E2E, 0, "Solution: (5 + 9 - 12) * 12 = 24", task="e2e"),
        "{not json",
        _rec(bench, "sudoku", SC, 2, "x", puzzle="sudoku") | {"response": None},
        _rec(bench, "sudoku", SC, 3, "Answer: (B)", task="chess"),
    ]
    path = _write(tmp_path / "rows.jsonl", rows)
    code, out, err = _rescore(bench, [path], True)
    assert code == 1
    got = [json.loads(line) for line in out.splitlines()]
    assert all(set(g) == {"id", "puzzle", "task", "correct", "extracted", "method", "error_type"} for g in got)
    assert [(g["id"], g["puzzle"], g["task"], g["correct"], g["error_type"]) for g in got] == [
        ("0", "sudoku", SC, True, None),
        ("1", "sudoku", SC, False, None),
        ("2", "graphcoloring", ST, False, UNSOLVABLE_CHILD),
        ("g24-375", "game24", ST, True, None),
        ("4", "game24", ST, False, SIBLING),
        ("5", "gridpuzzle", E2E, True, None),
        ("6", "game24", E2E, True, None),
    ]
    assert got[0]["extracted"] == "Solvable" and got[0]["method"] == "last_letter"
    assert got[1]["method"] == "answer_label" and got[6]["extracted"] == "(5 + 9 - 12) * 12"
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 3
    assert f"{path}:8: invalid JSON" in errors[0]
    assert f"{path}:9: row has no 'response'" in errors[1]
    assert f"{path}:10: unknown FineReason task 'chess'" in errors[2]


def test_rescore_mode_from_file_name_or_option(bench: FineReason, tmp_path: Path) -> None:
    st1 = bench.load("sudoku", ST)[1]
    rows = [_rec(bench, "sudoku", ST, 1, f"Back.\nNext state: {st1.data['inputs']['parent']}"),
            _rec(bench, "sudoku", ST, 0, "Answer: (A)")]
    path = _write(tmp_path / "sudoku_states_sudoku_state_transition_gpt4o.jsonl", rows)
    code, out, _ = _rescore(bench, [path], True)
    got = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [(g["task"], g["correct"], g["error_type"]) for g in got] == [
        (ST, True, None), (ST, False, PARSE_ERROR)]
    code, out, _ = _rescore(bench, [tmp_path], True, {"mode": "state-checking"})  # a folder, mode forced
    got = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [(g["task"], g["correct"], g["error_type"]) for g in got] == [
        (SC, False, PARSE_ERROR), (SC, True, None)]
    # summary tables instead of JSONL
    code, out, err = _rescore(bench, [path], False)
    assert code == 0 and "finereason (state-transition)" in out and "error types" in out
    assert "2 row(s) scored, 0 bad row(s)" in err
    assert _rescore(bench, [tmp_path / "empty"], True, {"mode": "bogus"})[0] == 2


def test_rescore_cli(bench: FineReason, tmp_path: Path) -> None:
    path = _write(tmp_path / "rows.jsonl", [_rec(bench, "game24", SC, 0, "Answer: (A)"), "[1, 2]"])
    res = subprocess.run([sys.executable, "-m", "reasoneval.cli", "rescore", "finereason", str(path), "--jsonl"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stderr
    (got,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert got["puzzle"] == "game24" and got["task"] == SC and got["correct"] is True
    assert f"{path}:2: expected a JSON object" in res.stderr


# -- CLI ----------------------------------------------------------------------------------------------
def test_list_shows_finereason() -> None:
    res = subprocess.run([sys.executable, "-m", "reasoneval.cli", "list"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    block = res.stdout.split("finereason:", 1)[1]
    assert "subsets: sudoku, graphcoloring, game24, gridpuzzle" in block
    assert "modes:   state-checking, state-transition, end-to-end (default state-checking)" in block


def test_training_export_cli(tmp_path: Path) -> None:
    math = _write(tmp_path / "math.jsonl", [{"query": f"{i}+1?", "response": str(i + 1)} for i in range(10)])
    states = _write(tmp_path / "game24_states.json", generate_states("game24", 8, seed=5))
    res = CliRunner().invoke(fr_app, ["export", str(math), "--total", "8", "--math-ratio", "0.5",
                                      "--states", str(states), "--seed", "1"])
    assert res.exit_code == 0, res.output
    mix = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    assert len(mix) == 8 and sum(m["source"] == "math" for m in mix) == 4
    assert {m["puzzle"] for m in mix if m["source"] == "finereason"} == {"game24"}
    assert CliRunner().invoke(fr_app, ["export", str(math), "--puzzles", "chess"]).exit_code == 2
