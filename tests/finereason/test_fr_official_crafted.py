"""FineReason's official reading (``-O scoring=official``, the default) against verdicts of the official code.

``fixtures/official_crafted.jsonl`` holds answers crafted by ``bench/finereason_official_sidebyside.py``
and the verdicts the official ``get_answer`` gave them (run from a checkout of ``DAMO-NLP-SG/FineReason``).
Replayed here through the runner's scoring path they must get the same verdict and the same official label.
Also: the Game-of-24 arithmetic against SymPy itself, the linear-time Grid table reader against the official
regex, cut-off outputs, run identity under the new default, and ``rescore --diff`` causes.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sympy

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.g24_value import sympy_equals_24
from reasoneval.benchmarks.finereason.options import FROptions
from reasoneval.benchmarks.finereason.score_official import MAX_LITERAL_CHARS, score_st_official
from reasoneval.benchmarks.finereason.score_official_e2e import last_table, official_e2e_label
from reasoneval.cli.rescore_output import rescore_outside
from reasoneval.core import registry
from reasoneval.core.values import Completion, GenParams, Item, Prompt
from reasoneval.core.verdicts import Method
from reasoneval.runner.spec import RunSpec
from reasoneval.runner.verdict_of import score_completion

FIXTURE = Path(__file__).parent / "fixtures" / "official_crafted.jsonl"
SC, ST, E2E = "state-checking", "state-transition", "end-to-end"


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def official() -> FineReason:
    return FineReason()  # the default: official


@pytest.fixture(scope="module")
def corrected() -> FineReason:
    b = FineReason()
    b.configure({"scoring": "corrected"})
    return b


def _item(bench: FineReason, row: dict[str, Any]) -> Item:
    return bench.load(row["puzzle"], row["mode"])[int(row["id"])]


def _ours(bench: FineReason, row: dict[str, Any], finish_reason: str | None = None) -> tuple[bool, Any]:
    v = score_completion(bench, _item(bench, row), Completion(row["response"], finish_reason), row["mode"])
    label = v.extracted if row["mode"] == SC else ("1" if v.correct else v.detail.get("official_error"))
    return v.correct, label


def test_the_fixture_covers_every_kind(rows: list[dict[str, Any]]) -> None:
    per_mode = Counter(r["mode"] for r in rows)
    assert per_mode[SC] >= 240 and per_mode[ST] >= 334 and per_mode[E2E] >= 84
    assert {(r["mode"], r["puzzle"]) for r in rows} >= {(m, p) for m in (SC, ST, E2E) for p in
                                                         ("sudoku", "graphcoloring", "game24", "gridpuzzle")}
    texts = [r["response"] for r in rows]
    kinds = {
        "unclosed think": lambda t: "<think>" in t and "</think>" not in t,
        "u'' strings": lambda t: "[u'" in t,
        "parenthesised strings": lambda t: "[('" in t,
        "triple quotes": lambda t: "'''" in t,
        "comment in a list": lambda t: "  # expression" in t,
        "no Solution: marker": lambda t: t.startswith("[[") or t.startswith("The coloring is"),
        "x and ÷": lambda t: "×" in t and "÷" in t,
        "dollars": lambda t: "$" in t,
        "24 = expr": lambda t: t.startswith("Solution: 24 = "),
        "Grid strings for numbers": lambda t: re.search(r"\['\d+', '", t) is not None,
        "restated grid": lambda t: "Initial Grid:" in t,
    }
    for name, test in kinds.items():
        assert any(test(t) for t in texts), name


def test_official_mode_agrees_with_the_official_code(rows: list[dict[str, Any]], official: FineReason) -> None:
    assert official.opts.scoring == "official"
    wrong = [(r["mode"], r["puzzle"], r["id"], r["response"][:80], _ours(official, r))
             for r in rows if _ours(official, r) != (r["official_correct"], r["official_label"])]
    assert wrong == []


def test_the_corrected_reading_differs_on_many(rows: list[dict[str, Any]], corrected: FineReason) -> None:
    """Not a vacuous fixture: the corrected reading disagrees with the official code on a large share."""
    differ = Counter(r["mode"] for r in rows if _ours(corrected, r)[0] != r["official_correct"])
    assert differ[SC] >= 40 and differ[ST] >= 60 and differ[E2E] >= 20


def test_cut_off_outputs_are_read_officially(rows: list[dict[str, Any]], official: FineReason,
                                             corrected: FineReason) -> None:
    row = next(r for r in rows if r["mode"] == ST and r["response"].startswith("<think>Let me work it out.")
               and r["official_correct"])
    item = _item(official, row)
    for reason in (None, "length"):  # an unclosed <think>; also cut at the token limit
        v = score_completion(official, item, Completion(row["response"], reason), ST)
        assert v.correct and v.detail["cut_off"] is True and v.method != Method.TRUNCATED
        c = score_completion(corrected, item, Completion(row["response"], reason), ST)
        assert c.method == Method.TRUNCATED and not c.correct
    done = score_completion(official, item, Completion(row["response"] + "</think>", "stop"), ST)
    assert done.correct and done.detail["cut_off"] is False


# -- Game of 24: the value SymPy would find --------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "8/(3-8/3)", "(5 + 9 - 12) * 12", "2^3*3", "4**(1/2)*12", "(27)**(1/3)*8", "1/(1/0) + 24", "24/1.0",
    "48 // 2", "50 % 26", "(3-3)/0 + 24", "-(-24)", "2**3**1*3", " 6 * 4 ", "6 *\n4", "25 - 1", "3 * 9 - 3",
    "0/0", "12 + 12.", "1e1 + 14", "(2 + 2) ** -1 * 96", "(-8) * (-3)", "+24",
    "0*1.5 + 24", "(0.5 - 0.5)*3 + 24", "24 + 0.0", "0.0**2 + 24", "2**0.0*24", "24*1**2.5", "(1/0)**0*24",
    "(1/0)**-1 + 24", "12/0.0", "48//2.0", "24 % 25", "-24 % 48", "0**0*24",
])
def test_arithmetic_as_sympy_decides_it(expr: str) -> None:
    assert sympy_equals_24(expr) == str(int(sympy.simplify(expr) == 24))


def _sympy_label(expr: str) -> str:
    try:
        return str(int(sympy.simplify(expr) == 24))
    except Exception:  # noqa: BLE001 - the official reader catches everything: a parsing error
        return "parsing error"


def test_random_arithmetic_as_sympy_decides_it() -> None:
    """Random expressions over integers, decimals, Float zeros, zoo and nan with every operator: where the
    reading is reproduced it is SymPy's; integer arithmetic without powers is always reproduced."""
    rng = random.Random(11)
    atoms = ["0", "1", "2", "3", "4", "6", "8", "12", "24", "0.0", "-0.0", "0.5", "1.5", "2.0", "(1/0)", "(0/0)"]
    decided = 0
    for n in range(400):
        integers = n % 2 == 0
        pool, ops = (atoms[:9], "+-*/") if integers else (atoms, ["+", "-", "*", "/", "**", "//", "%"])
        e = rng.choice(pool)
        for _ in range(rng.randrange(1, 4)):
            a, op = rng.choice(pool), rng.choice(ops)
            e = f"({e} {op} {a})" if rng.random() < .5 else f"({a} {op} {e})"
        ours = sympy_equals_24(e)
        if ours != "unsupported":
            decided += 1
            assert ours == _sympy_label(e), e
        assert not integers or ours != "unsupported", e
    assert decided >= 320


@pytest.mark.parametrize("expr", ["$8*3$", "8 × 3", "8 ÷ 1/3", "8 3", "(8*3", "**8*3**", "3(8)", "8 \\cdot 3",
                                  "We get 8*3", "(1 + 2)(8)", "5 // 0", "5 % 0", "2.0 / 0.0"])
def test_what_sympy_raises_on(expr: str) -> None:
    assert sympy_equals_24(expr) == "parsing error"  # the official reader's label for any exception
    with pytest.raises((sympy.SympifyError, TypeError, SyntaxError, ZeroDivisionError)):
        sympy.simplify(expr)


@pytest.mark.parametrize("expr", ["x * 24 / x", "sqrt(576)", "4!", "9**99999", "2**(1/2) * 2**(1/2) * 12",
                                  "(-8)**(1/3)", "1 + 2j", "24 if 1 else 0", "twenty-four",
                                  "x(3)", "1e400 - 1e400 + 24", "2.5 % 1"])
def test_what_is_not_reproduced_is_never_correct(expr: str) -> None:
    assert sympy_equals_24(expr) == "unsupported"


def test_game24_end_to_end_reading(official: FineReason) -> None:
    q = official.load("game24", E2E)[0]  # 5 9 12 12
    rec = q.data
    assert official_e2e_label("game24", rec, "Solution: ((5 + 9) - 12) * 12 = 24") == ("1", "((5 + 9) - 12) * 12 ")
    assert official_e2e_label("game24", rec, "Solution: 24 = ((5 + 9) - 12) * 12")[0] == "different numbers"
    assert official_e2e_label("game24", rec, "**Solution:** ((5+9)-12)\\times 12 = 24")[0] == "1"
    assert official_e2e_label("game24", rec, "Solution: ((5+9)-12)×12 = 24")[0] == "parsing error"
    assert official_e2e_label("game24", rec, "((5+9)-12)*12")[0] == "1"  # no marker: the whole text


# -- the Grid table reader ------------------------------------------------------------------------------
_TABLE = re.compile(r"\[\s*\[.*?\]\s*\]", re.DOTALL)


def test_last_table_is_the_official_regex() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice("[[]] \t\u2003x,'") for _ in range(rng.randrange(0, 40)))
        found = _TABLE.findall(text)
        assert last_table(text) == (found[-1] if found else None), text
    bomb = "[[" * 200_000 + "]"  # the regex rescans to the end from every "[[" (quadratic)
    assert last_table(bomb) is None and last_table(bomb + "]") == "[[" * 200_000 + "]]"


def test_grid_reads_values_exactly(official: FineReason) -> None:
    q = official.load("gridpuzzle", E2E)[0]
    sol = q.data["outputs"]["solution"]
    assert official_e2e_label("gridpuzzle", q.data, f"Solution:\n{sol}")[0] == "1"
    as_text = [[str(v) for v in row] for row in sol]
    assert official_e2e_label("gridpuzzle", q.data, f"Solution: {as_text}")[0] == "0"  # "9" is not 9
    v = official.score(q, f"Solution: {as_text}", E2E)
    assert not v.correct and v.detail["other_correct"] is True  # the corrected reading matches "9" to 9


def test_literals_are_bounded(official: FineReason) -> None:
    item = next(i for i in official.load("game24", ST) if i.data["outputs"]["current_status"] == "Solvable")
    gold = item.gold
    ok = "Next state: [" + ", ".join(f"u{e!r}" for e in gold) + "]"
    assert score_st_official("game24", item.data, ok).correct  # type: ignore[union-attr]
    pad = " " * MAX_LITERAL_CHARS
    long = "Next state: [" + pad + ", ".join(repr(e) for e in gold) + "]"
    v = score_st_official("game24", item.data, long)
    assert v is not None and not v.correct and v.detail["official_error"] == "parsing error"


# -- the default and run identity -----------------------------------------------------------------------
def _spec(options: Any) -> RunSpec:
    return RunSpec("finereason", None, SC, "m", GenParams(max_tokens=64), options=options)


def test_official_is_the_default_and_in_the_run_id() -> None:
    assert FROptions().scoring == "official" == FineReason().opts.scoring
    old_default = _spec({})  # a run id recorded while corrected was the default (no option in the id)
    assert _spec(FROptions()).run_id() != old_default.run_id()
    assert _spec(FROptions(scoring="corrected")).run_id() not in (old_default.run_id(), _spec(FROptions()).run_id())


@pytest.mark.parametrize("stored", [
    {"data": None, "true_ancestor_labels": False, "stale_child": "keep", "strict": False, "scoring": "corrected"},
    {"data": None, "true_ancestor_labels": False, "stale_child": "keep", "strict": False},  # before the option
])
def test_a_stored_corrected_run_keeps_its_scoring(stored: dict[str, Any], tmp_path: Path) -> None:
    """A run stored under the old default is re-scored (``reasoneval score``) with the corrected reading."""
    from reasoneval.runner.engine import SCORER
    from reasoneval.runner.score_stored import rescore_run
    from reasoneval.store.sqlite import RunStore

    bench = registry.for_run({"benchmark": "finereason", "spec": {"options": stored}})
    assert isinstance(bench, FineReason) and bench.opts.scoring == "corrected"
    assert registry.for_run({"benchmark": "finereason", "spec": {"options": {**stored, "scoring": "official"}}}
                            ).options.to_json()["scoring"] == "official"
    store = RunStore(tmp_path / "runs.db")
    spec = _spec(stored)
    run_id = spec.run_id()
    store.upsert_run(run_id, "finereason", "sudoku", SC, "m", spec.record(bench.data_version(),
                                                                         bench.prompt_version(SC)))
    item = bench.load("sudoku", SC)[0]
    text = "<think>(A)</think>\nAnswer: (B)"  # official: (B) is the last letter anyway; methods tell them apart
    store.put_completion(run_id, item.key, 0, 0, "answer", "sudoku", Prompt.chat("q"), "k", Completion(text, "stop"))
    run = store.get_run(run_id)
    assert run is not None
    assert rescore_run(store, run) == 1
    (v,) = store.verdicts(run_id, SCORER).values()
    assert v.method == "last_letter" and v.extracted == "Unsolvable" and "reads_cut_output" not in v.detail


# -- rescore --diff ------------------------------------------------------------------------------------
def test_rescore_diff_names_a_cause_for_every_difference(rows: list[dict[str, Any]], official: FineReason,
                                                         tmp_path: Path) -> None:
    lines = []
    for r in rows:
        it = _item(official, r)
        lines.append(json.dumps({**it.data, "puzzle": r["puzzle"], "task": r["mode"], "id": r["id"],
                                 "response": r["response"]}))
    path = tmp_path / "crafted.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert rescore_outside(official, [str(path)], True, {"diff": True}, out, err) == 0
    diff = err.getvalue().splitlines()
    head = next(i for i, line in enumerate(diff) if line.startswith("official vs corrected:"))
    n = int(diff[head].split(": ")[1].split()[0])
    body = diff[head + 1:head + 1 + n]
    assert n >= 150 and len(body) == n
    causes = Counter(line.split("\t")[-1].split("; official:")[0] for line in body)
    assert all(c and not c.startswith("official:") for c in causes), causes
    joined = "\n".join(causes)
    for expected in ("cut-off output", "text inside <think>", "no exact 'Solution:' marker",
                     "'24 = expr' reads 24", "SymPy cannot parse", "\"9\" is not 9",
                     "exact list equality", "uncoloured vertices (0) are skipped",
                     "last nine digit rows", "positive word first", "ast.literal_eval"):
        assert expected in joined, expected
    assert all("\x1b" not in line for line in body)
