"""Fresh end-to-end question sets (``<puzzle>_questions.json`` in the release schema) with the paper's
difficulty knobs, so new instances run exactly like the released ones
(``reasoneval run finereason:<puzzle> --mode end-to-end --data FILE``).

Knobs (``key=value``; ranges as ``LO-HI``; defaults = the release's spread):

* sudoku: ``empty`` - empty cells (45-49; unique solution guaranteed, at most 64)
* graphcoloring: ``vertices`` (15-25), ``density`` - edge probability (0.3-0.8), ``colors`` - chromatic-number
  window (any); the exact chromatic number is stored, as released
* game24: ``numbers`` - number range (1-13); always solvable (the end-to-end task asks for a solution)
* gridpuzzle: no generator of new clue sets; pass ``--from`` a questions file to re-emit checked ones
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .data import load_questions
from .generate import game24_instances, graph_instances, gridpuzzle_from_clues, sudoku_instances

KNOBS = {"sudoku": ("empty",), "graphcoloring": ("vertices", "density", "colors"), "game24": ("numbers",),
         "gridpuzzle": ()}


@dataclass(frozen=True)
class Difficulty:
    empty: tuple[int, int] = (45, 49)
    vertices: tuple[int, int] = (15, 25)
    density: tuple[float, float] = (0.3, 0.8)
    colors: tuple[int, int] | None = None
    numbers: tuple[int, int] = (1, 13)


def _range(key: str, raw: str, cast: type) -> tuple[Any, Any]:
    lo, sep, hi = raw.partition("-") if not raw.startswith("-") else ("", "", "")
    try:
        a = cast(lo)
        b = cast(hi) if sep else a
    except ValueError:
        raise ValueError(f"{key}={raw!r}: expected a number or a range LO-HI") from None
    if a > b:
        raise ValueError(f"{key}={raw!r}: LO is greater than HI")
    return a, b


def parse_difficulty(puzzle: str, pairs: list[str]) -> Difficulty:
    """``["empty=50-55"]`` -> Difficulty; a knob another puzzle owns, or a bad value, is a ValueError."""
    kw: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        key = key.strip()
        if not eq or key not in KNOBS.get(puzzle, ()):
            known = ", ".join(KNOBS.get(puzzle, ())) or "none"
            raise ValueError(f"unknown difficulty knob {pair!r} for {puzzle}; known: {known}")
        kw[key] = _range(key, raw.strip(), float if key == "density" else int)
    d = Difficulty(**kw)
    if not 0 <= d.empty[0] <= d.empty[1] <= 64:
        raise ValueError("empty must lie in 0-64 (a unique Sudoku keeps at least 17 clues)")
    if d.vertices[0] < 2 or not 0 < d.density[0] <= d.density[1] <= 1:
        raise ValueError("vertices must be at least 2 and density within (0, 1]")
    if d.colors is not None and d.colors[0] < 1:
        raise ValueError("colors must be at least 1")
    if d.numbers[0] < 1:
        raise ValueError("numbers must be positive")
    return d


def generate_questions(puzzle: str, n: int, seed: int = 0, difficulty: Difficulty | None = None,
                       from_path: str | None = None) -> list[dict[str, Any]]:
    """``n`` question records of ``puzzle`` (same seed and knobs -> same records)."""
    d = difficulty or Difficulty()
    rng = random.Random(seed)
    if puzzle == "sudoku":
        return sudoku_instances(n, rng, d.empty)
    if puzzle == "graphcoloring":
        return graph_instances(n, rng, d.vertices, d.density, d.colors)
    if puzzle == "game24":
        return game24_instances(n, rng, True, d.numbers[0], d.numbers[1])
    if puzzle == "gridpuzzle":
        if from_path is None:
            raise ValueError("gridpuzzle: no generator of new clue sets; pass --from a *_questions.json file")
        out = []
        for rec in load_questions("gridpuzzle", from_path)[:n]:
            inp = rec["inputs"]
            out.append(gridpuzzle_from_clues(inp["categories"], inp["clues"], inp.get("question", "")))
        return out
    raise ValueError(f"unknown puzzle {puzzle!r}")
