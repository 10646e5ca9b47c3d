"""FineReason Table 3 layout across runs: state checking (SC) and state transition (ST) accuracy per puzzle side
by side, one row per model, plus the random baseline (a uniform guess: 50% on SC; majority-class accuracy shown
beside it)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...core import number_format
from ...core.benchmark import Table
from ...report.collect import RunView
from ...report.paper_tables import row_labels
from ...report.stats import item_scores
from .modes import SC, ST

FR_PUZZLES = ("sudoku", "graphcoloring", "game24", "gridpuzzle")
FR_NAMES = {"sudoku": "Sudoku", "graphcoloring": "Graph Coloring", "game24": "Game of 24", "gridpuzzle": "Grid Puzzles"}


def _acc(vals: list[float]) -> float | None:
    return number_format.percent(sum(vals), len(vals))


def finereason_table3(views: Sequence[RunView]) -> Table | None:
    # label -> (puzzle, task) -> item -> score: a later run of the same label replaces an item, never doubles it
    by_model: dict[str, dict[tuple[str, str], dict[Any, float]]] = defaultdict(lambda: defaultdict(dict))
    golds: dict[str, dict[tuple[str, int], str]] = defaultdict(dict)
    fr = [v for v in views if v.run.get("benchmark") == "finereason" and v.run.get("mode") in (SC, ST)]
    for v, model in zip(fr, row_labels(fr, with_mode=False), strict=True):
        mode = str(v.run.get("mode"))
        for (sub, key), s in item_scores(v.rows).items():
            by_model[model][(sub, mode)][key] = s
        if mode == SC:
            for r in v.rows:
                g = r.final.verdict.detail.get("gold") if r.final.verdict else None
                if isinstance(g, str):
                    golds[r.subset][(r.item_key, r.sample)] = g
    if not by_model or not any(m == SC for d in by_model.values() for _, m in d) or \
            not any(m == ST for d in by_model.values() for _, m in d):
        return None
    puzzles = [p for p in FR_PUZZLES if any((p, m) in d for d in by_model.values() for m in (SC, ST))]
    cols = ["model", *(f"{FR_NAMES[p]} {t}" for p in puzzles for t in ("SC", "ST")), "Avg SC", "Avg ST"]
    rows: list[list[Any]] = []
    for model, d in by_model.items():
        cells: list[Any] = []
        for p in puzzles:
            cells += [_acc(list(d.get((p, SC), {}).values())), _acc(list(d.get((p, ST), {}).values()))]
        # an average over fewer than the four puzzles is not the paper's: missing, naming the absent ones
        avg = {t: number_format.mean_of_all([(f"{FR_NAMES[p]} {t}", _acc(list(d.get((p, task), {}).values())))
                                       for p in FR_PUZZLES]) for t, task in (("SC", SC), ("ST", ST))}
        rows.append([model, *cells, avg["SC"], avg["ST"]])
    rows.append(["Random (uniform guess)", *([50.0, None] * len(puzzles)), 50.0, None])
    maj = []
    for p in puzzles:
        g = list(golds.get(p, {}).values())
        maj += [round(100 * max(g.count("Solvable"), g.count("Unsolvable")) / len(g), 2) if g else None, None]
    mj = dict(zip(puzzles, maj[0::2], strict=True))
    rows.append(["Majority class", *maj, number_format.mean_of_all([(f"{FR_NAMES[p]} SC", mj.get(p)) for p in FR_PUZZLES]),
                 None])
    return Table("FineReason Table 3 layout: state checking (SC) and state transition (ST) accuracy", cols, rows,
                 ["One row per model (and the options its runs differ in) from its SC and ST runs; averages are "
                  "the mean over the four puzzles (missing, with the reason, when a puzzle was not run). "
                  "Random: a uniform Solvable/Unsolvable guess (the paper's baseline value is not in our copy); "
                  "majority class: always the more frequent gold label of the SC items scored. ST has no "
                  "random baseline (the move space is open). The paper's Table 3 numbers are not in our copy."])
