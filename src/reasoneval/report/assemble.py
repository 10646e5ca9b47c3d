"""One assembly of a report: ``assemble(views, selection) -> Report``.

Every output of ``reasoneval report`` (terminal, JSON, Markdown, CSV, LaTeX, HTML) renders the same
:class:`Report`, built here once:

* the runs' tables merged across runs (same title and columns: one table, a row per run) with a label column
  (the run's display name) and, per table, the columns in which its rows' runs differ (mode, options, ...);
  what every row of a table shares is kept as the table's ``constants`` (a caption, not a column);
* the published values put on the cells by each benchmark (``Benchmark.with_paper``), once, for every format;
* leaderboard tables (a kind ``like`` ``TableKind.LEADERBOARD``) ranked by their first value column, runs that miss
  a category (a :class:`~reasoneval.core.number_format.Missing` cell) after the complete ones;
* the cross-run paper tables, the CI table and the add-on tables (samples, cost);
* each table's group (``main``, ``rules``: per-rule / per-tag breakdowns) and name, for ``--tables``.

Each row remembers its run (``ReportTable.runs``), so renderers need not match rows back by text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.number_format import Missing
from ..core.table import Cell, Table, TableKind, column_id, number_of
from .collect import PluginError, RunView, spec_keys
from .completeness import RANKED, completeness
from .cost import Price
from .labels import display_name, run_labels

#: ``--tables`` groups
GROUPS = ("main", "rules", "all")
#: above this many runs the per-rule tables are left out unless asked for
MANY_RUNS = 3


class SelectionError(ValueError):
    """``--tables`` named a table or group that the report does not have."""


@dataclass(frozen=True)
class Selection:
    """What a report shows: ``tables`` is ``auto`` (every table for a few runs; the main ones for more than
    :data:`MANY_RUNS`), ``main``, ``rules``, ``all`` or table names (:attr:`ReportTable.name`, or a part of
    one); ``ci``: a confidence-interval table; ``prices``: a cost table; ``paper``: published values."""

    tables: tuple[str, ...] = ("auto",)
    ci: bool = False
    prices: dict[str, Price] | None = None
    paper: bool = True

    @classmethod
    def parse(cls, text: str | None, **kw: Any) -> Selection:
        names = tuple(p.strip() for p in (text or "auto").split(",") if p.strip())
        return cls(names or ("auto",), **kw)


@dataclass
class ReportTable:
    """A table of the report: ``table`` as every renderer shows it (label columns first, published values on
    its cells), the run of each row (an index into ``Report.views``; None for rows of no single run)."""

    table: Table
    name: str
    group: str  # "main" | "rules"
    benchmark: str | None
    runs: list[int | None]
    labels: int = 1  # leading label columns (display name, then what differs)
    constants: dict[str, str] = field(default_factory=dict)  # what every row shares (mode, subset, ...)

    @property
    def compared(self) -> bool:
        """Whether any cell carries a published value."""
        return any(isinstance(x, Cell) and x.paper is not None for r in self.table.rows for x in r)

    @property
    def ranked(self) -> bool:
        return self.table.kind.like in RANKED


@dataclass
class RunInfo:
    """What the report says of one run besides its tables."""

    label: str
    name: str
    accuracy: float | None  # final-turn accuracy (%), failed calls excluded
    scored: int
    complete: bool = True
    missing: str = ""  # why not complete (the reason of the Missing cell)


@dataclass
class Report:
    views: list[RunView]
    runs: list[RunInfo]
    tables: list[ReportTable]
    left_out: list[ReportTable] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.runs]


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(title).lower()).strip("-")[:60] or "table"


def _identity(v: RunView) -> dict[str, str]:
    """What defines a run, flattened to short strings (generation parameters one key each)."""
    sub = str(v.run.get("subset") or "")
    return {"mode": str(v.run.get("mode", "")), "subset": "all" if sub in ("", "*") else sub,
            **spec_keys(v.run.get("spec") or {})}


#: identity keys that tell runs apart but are not worth a caption when every row shares them
_UNSHOWN = frozenset({"samples", "seed", "limit", "limit_sample", "judge", "data_version"})


def accuracy_of(v: RunView) -> tuple[float | None, int]:
    """Final-turn accuracy (percent, exact) over the scored answers (failed calls excluded), and their number."""
    ok = n = 0
    for r in v.rows:
        t = r.final
        if t.completion.error is not None or (t.verdict is not None and t.verdict.outcome.value == "error"):
            continue
        n += 1
        ok += bool(t.verdict is not None and t.verdict.correct)
    return (100.0 * ok / n if n else None), n


def _merge(views: Sequence[RunView], idx: Sequence[int]) -> list[tuple[Table, list[int], dict[str, str], int]]:
    """Per-run tables with the same title and columns -> one table (label columns first), its rows' runs,
    the identity values every row shares and the number of label columns."""
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[int, Table]]] = {}
    for i in idx:
        for t in views[i].tables:
            groups.setdefault((str(t.title), tuple(str(c) for c in t.columns)), []).append((i, t))
    out = []
    for parts in groups.values():
        first = parts[0][1]
        ids = {i: _identity(views[i]) for i, _ in parts}
        keys = list(dict.fromkeys(k for d in ids.values() for k in d))
        differing = [k for k in keys if len({d.get(k, "") for d in ids.values()}) > 1]
        constants = {k: ids[parts[0][0]][k] for k in keys if k not in differing and ids[parts[0][0]].get(k)}
        labels = {i: (display_name(views[i].run), *(ids[i].get(k, "") for k in differing)) for i in ids}
        if len(set(labels.values())) < len(labels):  # nothing else tells two runs apart: their run ids do
            differing.append("run")
            labels = {i: (*lab, str(views[i].run["run_id"])) for i, lab in labels.items()}
        rows: list[list[Any]] = []
        runs: list[int] = []
        notes: list[str] = []
        for i, t in parts:
            for r in t.rows:
                rows.append([*labels[i], *r])
                runs.append(i)
            notes.extend(n for n in t.notes if n not in notes)
        m = Table(first.title, ["model", *differing, *first.columns], rows, notes, first.kind)
        shared = {k: v for k, v in constants.items() if k not in _UNSHOWN and v not in ("", "None", "null")}
        out.append((m, runs, shared, 1 + len(differing)))
    return out


def _with_paper(m: Table, runs: list[int], views: Sequence[RunView], bench: str, labels: int) -> Table:
    from ..core import registry

    try:
        b = registry.get(bench)
    except registry.UnknownBenchmark:
        return m
    t = Table(m.title, m.columns[labels:], [r[labels:] for r in m.rows], list(m.notes), m.kind)
    try:
        got = b.with_paper(t, [views[i].run for i in runs])
    except Exception as e:  # noqa: BLE001 - a plugin's bug is reported as that plugin's error
        raise PluginError(bench, f"the published values of table {m.title!r}", e) from e
    if got is t:
        return m
    rows = [[*r[:labels], *g] for r, g in zip(m.rows, got.rows, strict=True)]
    return Table(m.title, [*m.columns[:labels], *got.columns], rows, list(got.notes), m.kind)


def _rank_key(t: Table, labels: int) -> Any:
    col = labels  # the first value column (Overall)

    def key(pair: tuple[list[Any], int | None]) -> tuple[int, float]:
        r = pair[0]
        x = r[col] if col < len(r) else None
        if any(isinstance(c, Missing) for c in r):
            return (1, 0.0)
        n = number_of(x)
        return (0, -n) if n is not None else (1, 0.0)
    return key


def _rank(rt: ReportTable) -> None:
    pairs = sorted(zip(rt.table.rows, rt.runs, strict=True), key=_rank_key(rt.table, rt.labels))
    rt.table.rows = [p[0] for p in pairs]
    rt.runs = [p[1] for p in pairs]


def _group(t: Table) -> str:
    return "rules" if t.kind.like is TableKind.BREAKDOWN else "main"


def _select(tables: list[ReportTable], sel: Selection, n_runs: int) -> tuple[list[ReportTable], list[ReportTable]]:
    want = set(sel.tables)
    if want == {"auto"}:
        want = {"main"} if n_runs > MANY_RUNS else {"all"}
    if "all" in want:
        return tables, []
    names = want - set(GROUPS)
    unknown = [n for n in names if not any(n == t.name or slug(n) in t.name for t in tables)]
    if unknown:
        have = ", ".join(dict.fromkeys(t.name for t in tables))
        raise SelectionError(f"no table named {', '.join(sorted(unknown))} in this report; groups: main, rules, "
                             f"all; tables: {have}")
    keep = [t for t in tables if t.group in want or any(n == t.name or slug(n) in t.name for n in names)]
    return keep, [t for t in tables if t not in keep]


def assemble(views: Sequence[RunView], selection: Selection | None = None) -> Report:
    """The report of ``views`` (in order): every table built once, typed, with published values and each row's run.
    Raises :class:`SelectionError` for a ``--tables`` name the report does not have and
    :class:`~reasoneval.report.collect.PluginError` when a benchmark's code fails."""
    from .addons import addon_tables
    from .paper_tables import extra_tables

    sel = selection or Selection()
    views = list(views)
    labels = run_labels(views)
    infos = []
    for v, lab in zip(views, labels, strict=True):
        acc, n = accuracy_of(v)
        ok, why = completeness(v)
        infos.append(RunInfo(lab, display_name(v.run), acc, n, ok, why))
    by_bench: dict[str, list[int]] = {}
    for i, v in enumerate(views):
        by_bench.setdefault(str(v.run.get("benchmark", "")), []).append(i)
    tables: list[ReportTable] = []
    for bench, idx in by_bench.items():
        for m, runs, constants, nlab in _merge(views, idx):
            if sel.paper:
                m = _with_paper(m, runs, views, bench, nlab)
            rt = ReportTable(m, slug(m.title), _group(m), bench, list[int | None](runs), nlab, constants)
            if rt.ranked:
                _rank(rt)
            tables.append(rt)
    try:
        cross = extra_tables(views)
    except Exception as e:  # noqa: BLE001 - a plugin's bug is reported as that plugin's error
        raise PluginError(",".join(by_bench), "the cross-run paper tables", e) from e
    more = list(cross)
    if sel.ci:
        from .stats_tables import ci_table

        more.append(ci_table(views))
    more += addon_tables(views, sel.prices)
    for t in more:
        tables.append(ReportTable(t, slug(t.title), _group(t), None, [None] * len(t.rows), 1))
    taken: dict[str, int] = {}
    for rt in tables:  # unique names: a second "mybench-zero-shot" is "mybench-zero-shot-2"
        n = taken.get(rt.name, 0) + 1
        taken[rt.name] = n
        if n > 1:
            rt.name = f"{rt.name}-{n}"
    keep, left = _select(tables, sel, len(views))
    return Report(views, infos, keep, left)


def value_columns(rt: ReportTable) -> list[int]:
    """Indices of the columns that hold numbers (a Cell, int or float in some row; text never counts)."""
    t = rt.table
    out = []
    for j in range(len(t.columns)):
        vals = [r[j] for r in t.rows if j < len(r)]
        if any(number_of(x) is not None or isinstance(x, Cell) for x in vals) and \
                all(number_of(x) is not None or isinstance(x, Cell | Missing) or x in (None, "", "-")
                    for x in vals):
            out.append(j)
    return out


def paper_column(rt: ReportTable) -> int | None:
    """The first column with a published value (Overall in a paper's leaderboard), or None."""
    t = rt.table
    for j in range(len(t.columns)):
        if any(j < len(r) and isinstance(r[j], Cell) and r[j].paper is not None for r in t.rows):
            return j
    return None


def row_compared(row: Sequence[Any]) -> bool:
    return any(isinstance(x, Cell) and x.paper is not None for x in row)


def best_rows(rt: ReportTable, j: int) -> set[int]:
    """Rows holding the highest value of column ``j`` among the complete rows (none when fewer than two rows)."""
    t = rt.table
    vals: list[tuple[float, int]] = []
    for i, r in enumerate(t.rows):
        if any(isinstance(x, Missing) for x in r) or j >= len(r):
            continue
        n = number_of(r[j])
        if n is not None:
            vals.append((n, i))
    if len(vals) < 2:
        return set()
    top = max(v for v, _ in vals)
    return {i for v, i in vals if abs(v - top) < 1e-9}


__all__ = ["GROUPS", "MANY_RUNS", "Report", "ReportTable", "RunInfo", "Selection", "SelectionError", "assemble",
           "best_rows", "column_id", "paper_column", "row_compared", "slug", "value_columns"]
