"""New puzzle instances (question records in the release schema) and whole state sets built from them.

Difficulty knobs: Sudoku - number of empty cells; Graph Coloring - vertex count, edge density and a
chromatic-number window; Game of 24 - number range and solvable/unsolvable; Logic Grid - whatever the clue
list says (the generator checks the clues parse and admit exactly one solution).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .data import load_questions, load_states
from .engines import engine_for_record
from .engines.base import Engine, StateError
from .engines.game24 import Rules, make_numbers_set, solvable_numbers
from .engines.graphcoloring import chromatic_number, make_graph, parse_graph
from .engines.gridpuzzle import GridPuzzle, GridPuzzleEngine, default_clue_order, puzzle_solutions
from .engines.sudoku import count_solutions, grid_to_json, make_puzzle, parse_grid, solve
from .sampler import SampleConfig, sample_records

# -- single instances ---------------------------------------------------------------------------------


def sudoku_from_grid(grid: Any, require_unique: bool = True) -> dict[str, Any]:
    """Question record for any 9x9 grid (0 = empty); raises ValueError if it has no (or, by default, more
    than one) solution."""
    g = parse_grid(grid)
    if any(not 0 <= v <= 9 for v in g):
        raise ValueError("Sudoku cells must be 0..9")
    n = count_solutions(g, 2)
    if n == 0:
        raise ValueError("this Sudoku has no solution")
    if n > 1 and require_unique:
        raise ValueError("this Sudoku has more than one solution")
    return {"inputs": {"initial": grid_to_json(g)}, "outputs": {"final": grid_to_json(solve(g, 1)[0])}}


def sudoku_instances(n: int, rng: random.Random, empty_range: tuple[int, int] = (45, 49)) -> list[dict[str, Any]]:
    """``n`` unique-solution Sudokus, the number of empty cells drawn uniformly from ``empty_range``
    (the release has 45-49)."""
    out = []
    for _ in range(n):
        puzzle, solution = make_puzzle(rng.randint(*empty_range), rng)
        out.append({"inputs": {"initial": grid_to_json(puzzle)}, "outputs": {"final": grid_to_json(solution)}})
    return out


def graph_from_adjacency(graph: Any) -> dict[str, Any]:
    adj = parse_graph(graph)
    return {"inputs": {"graph": adj, "chromatic_number": chromatic_number(adj)}}


def graph_instances(n: int, rng: random.Random, n_range: tuple[int, int] = (15, 25),
                    p_range: tuple[float, float] = (0.3, 0.8), k_range: tuple[int, int] | None = None
                    ) -> list[dict[str, Any]]:
    """Random graphs (G(n, p)) with their exact chromatic number."""
    out = []
    for _ in range(n):
        g, k = make_graph(rng, n_range, p_range, k_range)
        out.append({"inputs": {"graph": g, "chromatic_number": k}})
    return out


def game24_instances(n: int, rng: random.Random, solvable: bool | None = True, lo: int = 1, hi: int = 13,
                     rules: Rules = Rules()) -> list[dict[str, Any]]:
    """Number sets (strings, as released); ``solvable`` True/False/None(either)."""
    return [{"inputs": {"initial_state": [str(x) for x in make_numbers_set(rng, solvable, lo, hi, rules=rules)]}}
            for _ in range(n)]


def game24_from_numbers(numbers: Sequence[int]) -> dict[str, Any]:
    return {"inputs": {"initial_state": [str(int(x)) for x in numbers]},
            "outputs": {"solvable": solvable_numbers([int(x) for x in numbers])}}


def gridpuzzle_from_clues(categories: Mapping[str, Sequence[Any]] | str, clues: Mapping[str, Any] | Sequence[Any],
                          question: str = "", require_unique: bool = True) -> dict[str, Any]:
    """Question record for a Logic Grid puzzle given its categories (first = anchor) and coded clues.

    ``categories``: ``{"times": [9, 10, 11], "names": [...], ...}`` or the release's text form.
    ``clues``: a list of condition strings, a list of ``{"text", "conditions"}``, or the release's dict.
    Raises ClueSyntaxError for a bad clue and ValueError when the clues admit no / several solutions.
    """
    if isinstance(categories, str):
        text = categories
        from .engines.gridpuzzle import parse_categories
        cats = parse_categories(text)
    else:
        cats = [(str(k), list(v)) for k, v in categories.items()]
        text = "\n".join(f"{k} : {', '.join(str(x) for x in v)}." for k, v in cats)
    if len(cats) < 2:
        raise ValueError("need an anchor category and at least one more")
    if isinstance(clues, Mapping):
        clue_dict = {str(k): dict(v) for k, v in clues.items()}
    else:
        clue_dict = {}
        for i, c in enumerate(clues, 1):
            clue_dict[str(i)] = {"text": c, "conditions": c} if isinstance(c, str) else dict(c)
    initial = [[name for name, _ in cats]] + [[v] + [""] * (len(cats) - 1) for v in cats[0][1]]
    inputs = {"question": question, "categories": text, "clues": clue_dict, "initial": initial}
    puzzle = GridPuzzle.from_inputs(inputs)
    sols = puzzle_solutions(puzzle)
    if not sols:
        raise ValueError("the clues admit no solution")
    if len(sols) > 1 and require_unique:
        raise ValueError(f"the clues admit {len(sols)}{'+' if len(sols) >= 64 else ''} solutions")
    return {"inputs": inputs, "outputs": {"solution": [list(r) for r in sols[0]]}}


# -- Grid clue orders ---------------------------------------------------------------------------------
def _grid_key(inputs: Mapping[str, Any]) -> str:
    return f"{inputs.get('question', '')}\x00{inputs.get('categories', '')}"


def infer_clue_orders(states: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """The fixed per-puzzle clue order visible in released Grid states (the longest applied-clue prefix plus
    the clue applied to the unsolvable child). Raises ValueError if two states disagree."""
    orders: dict[str, list[str]] = {}
    for rec in states:
        inp = rec["inputs"]
        seq = list(inp["applied_clues"]) + [inp["clue_applied_to_unsolvable_child"]]
        key = _grid_key(inp)
        old = orders.get(key, [])
        short, long_ = sorted((old, seq), key=len)
        if long_[:len(short)] != short:
            raise ValueError(f"inconsistent clue orders {old} vs {seq}")
        orders[key] = long_
    return orders


# -- state sets ---------------------------------------------------------------------------------------
def default_config(puzzle: str) -> SampleConfig:
    """Release-like sampling: 5 + 5 states per instance, balanced; Sudoku unsolvable states are first dead
    ends (all 250 released ones have a solvable parent); Grid is left unbalanced as released (few solvable
    states have an unsolvable child)."""
    return SampleConfig(unsolvable_parent="solvable" if puzzle == "sudoku" else "any",
                        balance=puzzle != "gridpuzzle")


def make_engine_factory(puzzle: str, clue_orders: Mapping[str, list[str]] | None = None):
    def make(inst: dict[str, Any]) -> Engine[Any, Any]:
        if puzzle == "gridpuzzle":
            p = GridPuzzle.from_inputs(inst["inputs"], (inst.get("outputs") or {}).get("solution"))
            order = (clue_orders or {}).get(_grid_key(inst["inputs"]))
            return GridPuzzleEngine(p, order if order is not None else default_clue_order(p))
        return engine_for_record(puzzle, inst)
    return make


def generated_instances(puzzle: str, rng: random.Random) -> Iterator[dict[str, Any]]:
    """An endless stream of new instances with release-like difficulty."""
    while True:
        if puzzle == "sudoku":
            yield from sudoku_instances(1, rng)
        elif puzzle == "graphcoloring":
            yield from graph_instances(1, rng)
        elif puzzle == "game24":
            yield from game24_instances(1, rng)
        else:
            raise ValueError(f"no generator for {puzzle!r}; pass a questions file")


def generate_states(puzzle: str, n: int, seed: int = 0, from_path: str | None = None,
                    cfg: SampleConfig | None = None, max_instances: int | None = None,
                    progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """``n`` state records in the release schema (fewer only if the instances run out).

    Instances come from ``from_path`` (a ``*_questions.json`` file, cycled through at most 20 times) when
    given; otherwise Sudoku, Graph Coloring and Game of 24 instances are generated as needed (at most
    ``max_instances``, default ``n``), and Grid puzzles come from the released questions with the clue order
    visible in the released states.
    """
    rng = random.Random(seed)
    cfg = cfg or default_config(puzzle)
    clue_orders = None
    stream: Iterable[dict[str, Any]]
    if from_path is not None or puzzle == "gridpuzzle":
        questions = load_questions(puzzle, from_path)
        if not questions:
            raise StateError("no puzzle instances to sample from")
        if from_path is None:
            clue_orders = infer_clue_orders(load_states(puzzle))
        stream = itertools.chain.from_iterable(itertools.repeat(questions, 20))
    else:
        stream = itertools.islice(generated_instances(puzzle, rng), max_instances if max_instances else max(n, 1))
    return sample_records(puzzle, stream, n, rng, make_engine_factory(puzzle, clue_orders), cfg, progress)
