"""State transition rewarded by the puzzle engines: every valid next move scores 1, not only the data's move;
backtracking to the parent at an unsolvable state scores 1; invalid moves, several moves, siblings score 0."""

from __future__ import annotations

import json
import random
from typing import Any

from reasoneval.benchmarks.finereason.data import load_states
from reasoneval.benchmarks.finereason.export import puzzle_sample
from reasoneval.rewards import finereason_reward

SOLVABLE, UNSOLVABLE = "Solvable", "Unsolvable"


def rewards(puzzle: str, rec: dict[str, Any], states: list[Any]) -> list[float]:
    """finereason_reward for one ST row and many candidate next states (columns as an export writes them)."""
    row = puzzle_sample(puzzle, "state_transition", rec)
    cols = {k: [row[k]] * len(states) for k in row if k != "prompt"}
    comps = [f"I try the next step.\nNext state: {json.dumps(s)}" for s in states]
    return finereason_reward(prompts=[row["prompt"]] * len(states), completions=comps, **cols)


def pick(puzzle: str, status: str, n: int, seed: int = 0) -> list[dict[str, Any]]:
    recs = [r for r in load_states(puzzle) if r["outputs"]["current_status"] == status
            and r["inputs"].get("parent") is not None]
    return random.Random(seed).sample(recs, n)


def _sudoku_ok(grid: list[list[int]], r: int, c: int, d: int) -> bool:
    box = [grid[i][j] for i in range(r // 3 * 3, r // 3 * 3 + 3) for j in range(c // 3 * 3, c // 3 * 3 + 3)]
    return d not in grid[r] and d not in [row[c] for row in grid] and d not in box


def test_sudoku_every_legal_digit_in_any_empty_cell_scores_1() -> None:
    for rec in pick("sudoku", SOLVABLE, 3):
        cur = rec["inputs"]["current"]
        shown = rec["inputs"]["unsolvable_child"]
        cands, want = [], []
        for r in range(9):
            for c in range(9):
                if cur[r][c]:
                    continue
                for d in range(1, 10):
                    nxt = [row[:] for row in cur]
                    nxt[r][c] = d
                    cands.append(nxt)
                    want.append(1.0 if _sudoku_ok(cur, r, c, d) and nxt != shown else 0.0)
        got = rewards("sudoku", rec, cands)
        assert got == want
        assert sum(got) > 5  # many more accepted moves than the one the data writes
        filled = [(r, c) for r in range(9) for c in range(9) if not cur[r][c]]
        two = [row[:] for row in cur]
        for r, c in filled[:2]:
            two[r][c] = next(d for d in range(1, 10) if _sudoku_ok(two, r, c, d))
        assert rewards("sudoku", rec, [two, shown]) == [0.0, 0.0]  # two moves at once; the explored dead end


def test_graphcoloring_every_proper_colour_of_any_vertex_scores_1() -> None:
    for rec in pick("graphcoloring", SOLVABLE, 3, seed=1):
        inp = rec["inputs"]
        cur, adj, k = inp["current"], inp["graph"], int(inp["chromatic_number"])
        cands, want = [], []
        for v, col in enumerate(cur):
            if col:
                continue
            for c in range(1, k + 2):  # k + 1: one colour too many
                nxt = cur[:]
                nxt[v] = c
                cands.append(nxt)
                ok = c <= k and all(cur[u] != c for u in adj[v])
                want.append(1.0 if ok and nxt != inp["unsolvable_child"] else 0.0)
        got = rewards("graphcoloring", rec, cands)
        assert got == want and sum(got) > 1


def test_game24_any_combination_and_any_order_scores_1() -> None:
    from reasoneval.benchmarks.finereason.label import state_of
    from reasoneval.benchmarks.finereason.tasks import engine_for

    for rec in pick("game24", SOLVABLE, 3, seed=2):
        eng = engine_for("game24", rec)
        cur = state_of(eng, rec)
        kids = [eng.to_json(eng.apply(cur, m)) for m in eng.moves(cur)]
        shown = sorted(rec["inputs"]["unsolvable_child"])
        got = rewards("game24", rec, [list(reversed(k)) for k in kids])  # listed in another order
        assert got == [0.0 if sorted(k) == shown else 1.0 for k in kids]
        assert sum(got) >= len(kids) - 1 >= 2


def test_unsolvable_state_backtracking_to_the_parent_scores_1_siblings_0() -> None:
    from reasoneval.benchmarks.finereason.label import state_of
    from reasoneval.benchmarks.finereason.tasks import engine_for

    for puzzle in ("sudoku", "graphcoloring", "game24"):
        for rec in pick(puzzle, UNSOLVABLE, 2, seed=3):
            inp = rec["inputs"]
            eng = engine_for(puzzle, rec)
            parent = eng.from_json(inp["parent"])
            cur_key = eng.key(state_of(eng, rec))
            siblings = [eng.to_json(s) for s in (eng.apply(parent, m) for m in eng.moves(parent))
                        if eng.key(s) != cur_key][:3]
            got = rewards(puzzle, rec, [inp["parent"], inp["current"], *siblings])
            assert got == [1.0, 0.0] + [0.0] * len(siblings)
