"""A :class:`~.assemble.Report`'s tables in the two shapes every renderer starts from.

* :func:`shown` (terminal, Markdown, LaTeX, HTML): the table as a reader sees it, with ``paper`` and ``Δ``
  columns beside the first compared column (Overall) where the benchmark has published values, ``not in paper``
  on the rows of runs whose exact model the paper does not report, and a note for what every row shares.
* :func:`typed` (CSV, JSON): one value per cell, numbers as numbers, no text in a numeric column: a cell's
  secondary value, n, confidence interval, published value and Δ each in a column of its own (``Counterfactual
  real-life rate``, ``Overall paper``, ``Overall Δ``), a missing value empty (None) with its reason in the
  row's ``n/a reason`` column, and (CSV) the run id of each row last; JSON lists the rows' runs beside them.

Both are pure functions of the report table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.number_format import Delta, Missing
from ..core.safetext import json_shown
from ..core.table import Cell, Column, Table, number_of
from .assemble import Report, ReportTable, paper_column, row_compared, value_columns

NOT_IN_PAPER = "not in paper"


def constants_note(rt: ReportTable) -> str | None:
    if not rt.constants:
        return None
    return "All rows: " + ", ".join(f"{k} {v}" for k, v in rt.constants.items()) + "."


def shown(rt: ReportTable, paper: bool = True) -> Table:
    """The table as shown, ``paper``: with the published value and Δ of the first compared column."""
    t = rt.table
    notes = list(t.notes)
    c = constants_note(rt)
    if c:
        notes.insert(0, c)
    j = paper_column(rt) if paper else None
    if j is None:
        if not paper and rt.compared:
            rows = [[x.compared(None) if isinstance(x, Cell) else x for x in r] for r in t.rows]
            return Table(t.title, list(t.columns), rows, notes, t.kind)
        return Table(t.title, list(t.columns), [list(r) for r in t.rows], notes, t.kind)
    cols = [*t.columns[:j + 1], Column("paper", "paper", "%"), Column("Δ", "delta", "pt"), *t.columns[j + 1:]]
    rows = []
    for r in t.rows:
        x = r[j] if j < len(r) else None
        if isinstance(x, Cell) and x.paper is not None and x.delta is not None:
            extra: list[Any] = [Cell(x.paper), Delta(round(x.delta, 2))]
        elif row_compared(r):
            extra = ["", ""]  # compared on other columns (a run of some categories: no Overall)
        else:
            extra = [NOT_IN_PAPER, ""]
        rows.append([*r[:j + 1], *extra, *r[j + 1:]])
    label = str(t.columns[j])
    notes.append(f"paper: the published {label}; Δ = ours − paper in points ({label}; every column's published "
                 f"value and Δ are in the CSV and JSON outputs). '{NOT_IN_PAPER}': the paper reports no row for "
                 "this exact model (a dated snapshot matches only its own date).")
    return Table(t.title, cols, rows, notes, t.kind)


def _secondary_label(c: Any) -> str:
    sec = getattr(c, "secondary", "") or "secondary"
    return f"{c} {sec}"


def typed(rt: ReportTable, run_ids: Sequence[str | None], run_column: bool = True) -> tuple[list[str], list[list[Any]]]:
    """(headers, rows) with one plain value per cell (str, int, float or None); see the module docstring."""
    t = rt.table
    nums = set(value_columns(rt))
    plan: list[tuple[str, int, str]] = []  # (header, column, field)
    for j, c in enumerate(t.columns):
        if j not in nums:
            plan.append((str(c), j, "text"))
            continue
        cells = [r[j] for r in t.rows if j < len(r) and isinstance(r[j], Cell)]
        plan.append((str(c), j, "value"))
        if any(x.secondary is not None for x in cells):
            plan.append((_secondary_label(c), j, "secondary"))
        if any(x.n is not None for x in cells):
            plan.append((f"{c} n", j, "n"))
        if any(x.ci is not None for x in cells):
            plan += [(f"{c} CI low", j, "ci_low"), (f"{c} CI high", j, "ci_high")]
        if any(x.paper is not None for x in cells):
            plan += [(f"{c} paper", j, "paper"), (f"{c} Δ", j, "delta")]
            if any(x.paper_secondary is not None for x in cells):
                plan += [(f"{_secondary_label(c)} paper", j, "paper_secondary"),
                         (f"{_secondary_label(c)} Δ", j, "delta_secondary")]
    if rt.compared:
        plan.append(("paper row", -1, "compared"))
    missing = any(isinstance(x, Missing) for r in t.rows for x in r)
    if missing:
        plan.append(("n/a reason", -1, "reason"))
    if run_column and any(r is not None for r in run_ids):
        plan.append(("run", -1, "run"))
    rows = []
    for i, r in enumerate(t.rows):
        out: list[Any] = []
        for _, j, f in plan:
            if f == "run":
                out.append(run_ids[i])
            elif f == "compared":
                out.append("compared" if row_compared(r) else NOT_IN_PAPER)
            elif f == "reason":
                why = [f"{t.columns[k]}: {x.reason}" for k, x in enumerate(r) if isinstance(x, Missing)]
                out.append("; ".join(why) or None)
            else:
                out.append(_field(r[j] if j < len(r) else None, f))
        rows.append(out)
    return [h for h, _, _ in plan], rows


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def _field(x: Any, f: str) -> Any:
    if f == "text":
        if x is None or isinstance(x, Missing):
            return None
        if isinstance(x, bool | int | float):
            return x
        return str(x)
    if isinstance(x, Missing) or x is None or (isinstance(x, str) and not isinstance(x, Cell)):
        return None
    cell = x if isinstance(x, Cell) else None
    if f == "value":
        v = cell.value if cell is not None else x
        if isinstance(v, bool) or v is None:
            return v
        n = number_of(v)
        return None if n is None else (v if isinstance(v, int) else float(v))
    if cell is None:
        return None
    if f == "secondary":
        return cell.secondary
    if f == "n":
        return cell.n
    if f in ("ci_low", "ci_high"):
        return None if cell.ci is None else cell.ci[0 if f == "ci_low" else 1]
    if f == "paper":
        return cell.paper
    if f == "paper_secondary":
        return cell.paper_secondary
    if f == "delta":
        return _round(cell.delta)
    if f == "delta_secondary":
        return _round(cell.delta_secondary)
    return None


def run_ids(rep: Report, rt: ReportTable) -> list[str | None]:
    return [None if i is None else str(rep.views[i].run.get("run_id")) for i in rt.runs]


def to_json(rep: Report, stats: bool = True) -> dict[str, Any]:
    """The report as one JSON document: each run with its accuracy and completeness, each table typed."""
    runs = []
    for v, info in zip(rep.views, rep.runs, strict=True):
        d: dict[str, Any] = {"run": v.run, "label": info.label, "name": info.name,
                             "accuracy": None if info.accuracy is None else round(info.accuracy, 4),
                             "scored": info.scored, "complete": info.complete}
        if not info.complete:
            d["missing"] = info.missing
        if stats:
            d["stats"] = {**v.stats, "accuracy": d["accuracy"]}
        runs.append(d)
    tables = []
    for rt in rep.tables:
        ids = run_ids(rep, rt)
        heads, rows = typed(rt, ids, run_column=False)
        d = {"name": rt.name, "title": rt.table.title, "group": rt.group, "kind": str(rt.table.kind),
             "columns": heads, "rows": rows, "notes": list(rt.table.notes)}
        if any(i is not None for i in ids):
            d["runs"] = ids  # the run of each row
        if rt.constants:
            d["constants"] = dict(rt.constants)
        tables.append(d)
    out: dict[str, Any] = {"runs": runs, "tables": tables}
    if rep.left_out:
        out["left_out"] = [rt.name for rt in rep.left_out]
    return out


def json_text(rep: Report) -> str:
    """The report as one JSON document, safe on a terminal (``core/safetext.py: json_shown``)."""
    return json_shown(to_json(rep), indent=1, default=str)


def left_out_note(rep: Report) -> str | None:
    """One line naming the tables the selection left out (``--tables`` brings them back)."""
    if not rep.left_out:
        return None
    groups = sorted({rt.group for rt in rep.left_out})
    return (f"{len(rep.left_out)} table(s) not shown ({', '.join(groups)}): --tables all, --tables "
            f"{'|'.join(groups)} or --tables NAME")
