"""FineReason's result tables (``summarize``): per puzzle and overall, one layout per mode.

=====================  ==========================================================================
mode                   tables
=====================  ==========================================================================
``state-checking``     accuracy with the label baselines and Unsolvable-positive P/R/F1; official
                       vs corrected extraction; Sudoku accuracy by empty cells (paper Fig. 5)
``state-transition``   accuracy split by label; wrong transitions by error type (paper Fig. 4b);
                       official vs corrected scoring
``end-to-end``         accuracy; official vs corrected scoring
=====================  ==========================================================================

State checking and state transition add accuracy by depth. The official-vs-corrected table comes from
``score_official.scoring_diff_table`` (imported on first use).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ...core.benchmark import ScoredRow, Table
from ...core.values import Outcome, Verdict
from ...core.verdicts import Method
from . import tasks
from .baselines import COLUMNS as BASELINE_COLUMNS
from .baselines import NOTE as BASELINE_NOTE
from .baselines import label_baseline
from .data import LABELS
from .empty_cells import empty_cells_table
from .items import puzzle_order
from .modes import E2E, SC, ST

#: one group of a table: a puzzle (or ``overall``) and the final verdicts of its rows (None: not scored)
Group = tuple[str, list[Verdict | None]]


def percent(part: float, whole: float) -> float | None:
    """``part`` as a percentage of ``whole`` to 2 decimals; None for an empty whole."""
    return round(100.0 * part / whole, 2) if whole else None


def counts(verdicts: Sequence[Verdict | None]) -> tuple[int, int, int, int]:
    """(items, correct, unextractable, failed calls)."""
    scored = [verdict for verdict in verdicts if verdict is not None]
    correct = sum(1 for verdict in scored if verdict.correct)
    unanswerable = sum(1 for verdict in scored if verdict.outcome is Outcome.UNANSWERABLE)
    errors = sum(1 for verdict in scored if verdict.outcome is Outcome.ERROR)
    return len(verdicts), correct, unanswerable, errors


def summary_tables(rows: list[ScoredRow], mode: str, scoring: str) -> list[Table]:
    """The tables of ``mode`` for the final verdicts of ``rows``; ``scoring``: the reading chosen
    (``official`` / ``corrected``), the other one is diffed against it."""
    from .score_official import scoring_diff_table

    by_puzzle: dict[str, list[Verdict | None]] = defaultdict(list)
    for row in rows:
        by_puzzle[row.subset].append(row.final.verdict)
    puzzles = sorted(by_puzzle, key=puzzle_order)
    groups: list[Group] = [(puzzle, by_puzzle[puzzle]) for puzzle in puzzles]
    if len(puzzles) > 1:
        groups.append(("overall", [verdict for puzzle in puzzles for verdict in by_puzzle[puzzle]]))
    title = f"finereason ({mode})"
    if mode == SC:
        tables = [state_checking_table(title, groups)]
        diff = scoring_diff_table(f"{title} official vs corrected extraction", groups, scoring)
        if diff is not None:
            tables.append(diff)
        fig5 = empty_cells_table(by_puzzle.get("sudoku", []), f"{title} Sudoku accuracy by empty cells (Fig. 5)")
        if fig5 is not None:
            tables.append(fig5)
    elif mode == ST:
        tables = [state_transition_table(title, groups), error_type_table(f"{title} error types", groups)]
        diff = scoring_diff_table(f"{title} official vs corrected scoring", groups, scoring)
        if diff is not None:
            tables.append(diff)
    else:
        tables = [end_to_end_table(title, groups)]
        diff = scoring_diff_table(f"{title} official vs corrected scoring", groups, scoring)
        if diff is not None:
            tables.append(diff)
    if mode != E2E:
        tables.append(depth_table(f"{title} accuracy by depth", puzzles, by_puzzle))
    return tables


def state_checking_table(title: str, groups: list[Group]) -> Table:
    """Accuracy, the label baselines and precision / recall / F1 with Unsolvable as the positive class."""
    out = []
    for name, verdicts in groups:
        items, correct, unanswerable, errors = counts(verdicts)
        golds, preds = [], []
        for verdict in verdicts:
            if verdict is None or verdict.outcome is Outcome.ERROR:
                continue
            if verdict.detail.get("gold") not in LABELS:
                continue
            golds.append(verdict.detail["gold"])
            readable = verdict.outcome in (Outcome.CORRECT, Outcome.INCORRECT) and verdict.extracted in LABELS
            preds.append(verdict.extracted if readable else None)
        metrics = tasks.state_checking_metrics(golds, preds)
        # undefined (empty cell): no positive prediction, no unsolvable state
        precision = round(100 * metrics.precision, 2) if metrics.tp + metrics.fp else None
        recall = round(100 * metrics.recall, 2) if metrics.tp + metrics.fn else None
        f1 = round(100 * metrics.f1, 2) if precision is not None and recall is not None else None
        out.append([name, items, percent(correct, items - errors), *label_baseline(golds).cells(), precision,
                    recall, f1, unanswerable, errors])
    return Table(title, ["puzzle", "n", "accuracy", *BASELINE_COLUMNS, "precision", "recall", "f1",
                         "unextractable", "errors"],
                 out, [BASELINE_NOTE,
                       "precision / recall / F1 with Unsolvable as the positive class (paper Tables 4, 9); "
                       "an unextracted answer is wrong and never a positive prediction; empty where undefined",
                       "accuracy excludes failed model calls (errors); overall pools all items"])


def state_transition_table(title: str, groups: list[Group]) -> Table:
    """Accuracy overall and at solvable / unsolvable states (paper Fig. 4a)."""
    out = []
    for name, verdicts in groups:
        items, correct, unanswerable, errors = counts(verdicts)
        by_label: dict[str, list[int]] = {label: [0, 0] for label in LABELS}  # label -> [correct, scored]
        for verdict in verdicts:
            if verdict is None or verdict.outcome is Outcome.ERROR:
                continue
            status = verdict.detail.get("status")
            if status in by_label:
                by_label[status][0] += int(verdict.correct)
                by_label[status][1] += 1
        out.append([name, items, percent(correct, items - errors), percent(*by_label["Solvable"]),
                    percent(*by_label["Unsolvable"]), unanswerable, errors])
    return Table(title, ["puzzle", "n", "accuracy", "acc. solvable", "acc. unsolvable", "unextractable",
                         "errors"], out,
                 ["correct: a valid unexplored child at a solvable state, the parent at an unsolvable "
                  "state (ground-truth labels are given in the prompt; paper Fig. 4a splits by label)",
                  "random baseline: none is defined (a move is free text over an open move space; the paper "
                  "gives none for state transition)"])


def error_type_table(title: str, groups: list[Group]) -> Table:
    """Wrong state transitions by error type (paper Fig. 4b); cut-off outputs counted apart."""
    out = []
    for name, verdicts in groups:
        by_type = dict.fromkeys(tasks.ERROR_TYPES, 0)
        wrong = truncated = 0
        for verdict in verdicts:
            if verdict is None or verdict.correct or verdict.outcome is Outcome.ERROR:
                continue
            wrong += 1
            if verdict.method == Method.TRUNCATED:
                truncated += 1
                continue
            error_type = verdict.detail.get("error_type")
            if error_type in by_type:
                by_type[error_type] += 1
        out.append([name, wrong, *by_type.values(), truncated])
    return Table(title, ["puzzle", "wrong", *tasks.ERROR_TYPES, "truncated"], out,
                 ["wrong transitions by error type (paper Fig. 4b): Multiple Moves / Invalid Move / "
                  "Unsolvable Child at solvable states, Backtracking Failure / Sibling at unsolvable states",
                  "truncated: the output hit max_tokens (not classified)"])


def end_to_end_table(title: str, groups: list[Group]) -> Table:
    """End-to-end accuracy beside paper Table 2's o1 figures."""
    out = []
    for name, verdicts in groups:
        items, correct, unanswerable, errors = counts(verdicts)
        out.append([name, items, percent(correct, items - errors), unanswerable, errors])
    return Table(title, ["puzzle", "n", "accuracy", "unextractable", "errors"], out,
                 ["paper Table 2 (o1): sudoku 0, graphcoloring 78.4, game24 54.1, gridpuzzle 45.7",
                  "random baseline: about 0 (a uniformly random full answer is almost never a solution)"])


def depth_table(title: str, puzzles: list[str], by_puzzle: dict[str, list[Verdict | None]]) -> Table:
    """Accuracy by depth (moves from the root), one row per puzzle and depth."""
    out = []
    for puzzle in puzzles:
        by_depth: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # depth -> [correct, scored]
        for verdict in by_puzzle[puzzle]:
            if verdict is None or verdict.outcome is Outcome.ERROR:
                continue
            depth = verdict.detail.get("depth")
            if isinstance(depth, int) and not isinstance(depth, bool):
                by_depth[depth][0] += int(verdict.correct)
                by_depth[depth][1] += 1
        for depth in sorted(by_depth):
            correct, scored = by_depth[depth]
            out.append([puzzle, depth, scored, percent(correct, scored)])
    return Table(title, ["puzzle", "depth", "n", "accuracy"], out,
                 ["depth: moves from the root (Sudoku: digits placed, Graph Coloring: vertices coloured "
                  "after vertex 0, Game of 24: operations applied, Grid: clues applied)"])
