"""KOR-Bench's published numbers beside a report's tables (``KorBench.with_paper``).

Table 2 (``TableKind.LEADERBOARD``) and Table 3 (``table_kinds.MIXED``) cells get the paper's value of the same
column (found by the column's id, :data:`.report.TABLE2_COLUMNS` / :func:`.report.set_column`) and, for a cell
with a secondary value, the paper's real-life rate or pass rate; other tables are returned as they are. The
paper's settings: Table 2 = zero-shot (chat models) and three-shot (base models); Table 3 = the mixed sets.
Other protocols share a layout, not the numbers, and are not compared (a note says why). A run of some subsets
only is not compared on Overall.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from reasoneval.core.table import Cell, Table, TableKind, as_cell, column_id, with_rows

from ...report.paper_numbers import normalize_model_id
from . import paper_numbers as pn
from .table_kinds import MIXED

#: column id -> (paper column, paper column of the secondary value)
TABLE2_PAPER: dict[str, tuple[str, str | None]] = {
    "overall": ("Overall", None), "operation": ("Operation", None), "logic": ("Logic", None),
    "cipher": ("Cipher", None), "puzzle": ("Puzzle", None), "counterfactual": ("Counterfactual", "Counterfactual RL")}
TABLE3_PAPER: dict[str, tuple[str, str | None]] = {
    "overall": ("Overall", "Overall pass"), "multi-q": ("Multi-Q", "Multi-Q pass"), "multi-r": ("Multi-R", None),
    "multi-rq": ("Multi-RQ", "Multi-RQ pass")}
PAPER_TABLE = {TableKind.LEADERBOARD: 2, MIXED: 3}


def paper_table(t: Table) -> int | None:
    """2 or 3 when ``t`` reports KOR-Bench Table 2 / Table 3 numbers (by its kind: a rounds table titled
    "Table 2" is not one), else None."""
    return PAPER_TABLE.get(t.kind)


def setting(table: int, mode: str) -> tuple[bool | None, str | None]:
    """(use Table 2's base half, why not comparable) for a run's mode."""
    m = mode.strip().lower()
    if table == 3:
        return None, (None if m in ("", "mixed") else f"mode {mode} is not the setting of KOR-Bench Table 3")
    if m == "zero-shot":
        return False, None
    if m == "three-shot":
        return True, None
    if m == "":
        return None, None  # no mode recorded: whichever half holds the model
    return None, f"mode {mode} is not a setting of KOR-Bench Table 2 (zero-shot chat / three-shot base)"


def partial(run: Mapping[str, Any]) -> bool:
    """Whether a run is of some subsets only (a run of the whole set stores ``*``, older ones nothing)."""
    return run.get("subset") not in (None, "", "*")


def _subset_key(s: str) -> tuple[Any, ...]:
    """Embedded numbers by value: ``cipher/2`` before ``cipher/10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", s) if p)


def compare_row(columns: Sequence[Any], row: Sequence[Any], table: int, paper: Mapping[str, float],
                skip: set[str]) -> list[Any]:
    """``row`` with the paper's values on the cells of the paper's columns (``skip``: column ids left alone)."""
    cols = TABLE2_PAPER if table == 2 else TABLE3_PAPER
    out = list(row)
    for i, c in enumerate(columns):
        cid = column_id(c)
        if i >= len(out) or cid not in cols or cid in skip:
            continue
        main, sec = cols[cid]
        cell = as_cell(out[i])
        if cell is None or cell.number is None or main not in paper:
            continue
        out[i] = cell.compared(paper[main], paper.get(sec) if sec else None)
    return out


def with_paper(t: Table, runs: Sequence[Mapping[str, Any]]) -> Table:
    """``t`` (rows from ``runs``) with the paper's values on its cells and one note per model."""
    table = paper_table(t)
    if table is None or not t.rows:
        return t
    notes = list(t.notes)
    rows: list[list[Any]] = []
    noted: set[str] = set()  # models whose note is written (one note per model, not per run)
    plain: set[str] = set()  # paper tables of the rows whose model is named as in the paper (one note for all)
    subsets: dict[str, list[str]] = defaultdict(list)  # model -> the subsets its runs in this table ran alone
    limits: dict[str, set[Any]] = defaultdict(set)
    for run in {id(r): r for r in runs}.values():
        if partial(run):
            subsets[str(run.get("model", ""))].append(str(run["subset"]))
        limits[str(run.get("model", ""))].add((run.get("spec") or {}).get("limit"))
    for row, run in zip(t.rows, runs, strict=True):
        model, mode = str(run.get("model", "")), str(run.get("mode") or "")
        base, why_not = setting(table, mode)
        prow = None if why_not else pn.korbench_row(model, table, base)
        if prow is None:
            rows.append(list(row))
            other = pn.korbench_row(model, table)
            if other is not None and model not in noted:
                noted.add(model)
                why = why_not or f"this run's setting ({mode}) differs"
                notes.append(f"{model} is {other.model} in KOR-Bench {other.table}, but {why}: not compared.")
            continue
        got = compare_row(t.columns, row, table, prow.values, {"overall"} if partial(run) else set())
        rows.append(got)
        if any(isinstance(c, Cell) and c.paper is not None for c in got) and model not in noted:
            noted.add(model)
            note = _note(model, prow, table, subsets.get(model, []), limits.get(model, set()), run)
            if normalize_model_id(model) == prow.model.lower() and note.endswith(_delta(table).split("; ")[-1]):
                plain.add(prow.table)  # the paper's own name, nothing to add: one note for all such rows
            else:
                notes.append(note)
    if plain:
        notes.insert(len(t.notes), f"Paper numbers: {', '.join(f'KOR-Bench {x}' for x in sorted(plain))} (Ma et al., "
                                   f"ICLR 2025), for the runs of the models named as in the paper (a dated snapshot "
                                   f"matches only its own date).{_delta(table)}")
    return with_rows(t, rows, notes)


def _delta(table: int) -> str:
    return (" Δ = ours − paper, in points; values in parentheses are "
            f"{'the real-life rate (lower is better)' if table == 2 else 'the sub-problem pass rate'}.")



def _note(model: str, prow: pn.PaperRow, table: int, subsets: list[str], limits: set[Any],
          run: Mapping[str, Any]) -> str:
    extra = ""
    subs = sorted(set(subsets), key=_subset_key)
    if len(subs) == 1:
        extra += f" Only subset {subs[0]} was run, so Overall is not compared."
    elif subs:
        extra += f" Subsets {', '.join(subs)} ran as separate runs, so each run's Overall is not compared."
    lims = sorted({int(x) for x in limits if x})
    if lims:
        extra += (f" The run{'s' if len(lims) > 1 else ''} used --limit {', '.join(map(str, lims))}: "
                  "a partial item set, differences are indicative only.")
    if ((run.get("spec") or {}).get("options") or {}).get("scoring") == "corrected":
        extra += " This table uses the corrected scorer; the paper's numbers come from the official one."
    return (f"Paper numbers: {model} → {prow.model}, KOR-Bench {prow.table} (Ma et al., ICLR 2025). Δ = ours − "
            f"paper, in points; values in parentheses are "
            f"{'the real-life rate (lower is better)' if table == 2 else 'the sub-problem pass rate'}.{extra}")
