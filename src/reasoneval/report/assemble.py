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
        names = tuple(part.strip() for part in (text or "auto").split(",") if part.strip())
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
        return any(isinstance(cell, Cell) and cell.paper is not None for row in self.table.rows for cell in row)

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
        return [run.label for run in self.runs]


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(title).lower()).strip("-")[:60] or "table"


def _identity(run_view: RunView) -> dict[str, str]:
    """What defines a run, flattened to short strings (generation parameters one key each)."""
    sub = str(run_view.run.get("subset") or "")
    return {"mode": str(run_view.run.get("mode", "")), "subset": "all" if sub in ("", "*") else sub,
            **spec_keys(run_view.run.get("spec") or {})}


#: identity keys that tell runs apart but are not worth a caption when every row shares them
_UNSHOWN = frozenset({"samples", "seed", "limit", "limit_sample", "judge", "data_version"})


def accuracy_of(v: RunView) -> tuple[float | None, int]:
    """Final-turn accuracy (percent, exact) over the scored answers (failed calls excluded), and their number."""
    finals = [row.final for row in v.rows]
    scored = [t.verdict for t in finals
              if t.error is None and (t.verdict is None or t.verdict.outcome.value != "error")]
    n, ok = len(scored), sum(1 for verdict in scored if verdict is not None and verdict.correct)
    return (100.0 * ok / n if n else None), n


def _groups(views: Sequence[RunView], idx: Sequence[int]) -> list[list[tuple[int, Table]]]:
    """The runs' tables with the same title and columns, in order: each group becomes one merged table."""
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[int, Table]]] = {}
    for i in idx:
        for table in views[i].tables:
            groups.setdefault((str(table.title), tuple(str(col) for col in table.columns)),
                              []).append((i, table))
    return list(groups.values())


def _merge(views: Sequence[RunView], parts: list[tuple[int, Table]]) -> tuple[Table, list[int], dict[str, str], int]:
    """Per-run tables with the same title and columns -> one table (label columns first), its rows' runs,
    the identity values every row shares and the number of label columns."""
    first = parts[0][1]
    ids = {i: _identity(views[i]) for i, _ in parts}
    keys = list(dict.fromkeys(key for identity in ids.values() for key in identity))
    differing = [key for key in keys if len({identity.get(key, "") for identity in ids.values()}) > 1]
    constants = {key: ids[parts[0][0]][key] for key in keys
                 if key not in differing and ids[parts[0][0]].get(key)}
    labels = {i: (display_name(views[i].run), *(ids[i].get(key, "") for key in differing)) for i in ids}
    if len(set(labels.values())) < len(labels):  # nothing else tells two runs apart: their run ids do
        differing.append("run")
        labels = {i: (*label, str(views[i].run["run_id"])) for i, label in labels.items()}
    rows: list[list[Any]] = []
    runs: list[int] = []
    notes: list[str] = []
    for i, table in parts:
        for row in table.rows:
            rows.append([*labels[i], *row])
            runs.append(i)
        notes.extend(note for note in table.notes if note not in notes)
    merged = Table(first.title, ["model", *differing, *first.columns], rows, notes, first.kind)
    shared = {key: value for key, value in constants.items()
              if key not in _UNSHOWN and value not in ("", "None", "null")}
    return merged, runs, shared, 1 + len(differing)


def _with_paper(merged: Table, runs: list[int], views: Sequence[RunView], bench: str, labels: int) -> Table:
    from ..core import registry

    try:
        plugin = registry.get(bench)
    except registry.UnknownBenchmark:
        return merged
    bare = Table(merged.title, merged.columns[labels:], [row[labels:] for row in merged.rows], list(merged.notes),
                 merged.kind)
    try:
        got = plugin.with_paper(bare, [views[i].run for i in runs])
    except Exception as e:  # noqa: BLE001 - a plugin's bug is reported as that plugin's error
        raise PluginError(bench, f"the published values of table {merged.title!r}", e) from e
    if got is bare:
        return merged
    rows = [[*row[:labels], *values] for row, values in zip(merged.rows, got.rows, strict=True)]
    return Table(merged.title, [*merged.columns[:labels], *got.columns], rows, list(got.notes), merged.kind)


def _rank_key(table: Table, labels: int) -> Any:
    col = labels  # the first value column (Overall)

    def key(pair: tuple[list[Any], int | None]) -> tuple[int, float]:
        row = pair[0]
        value = row[col] if col < len(row) else None
        if any(isinstance(cell, Missing) for cell in row):
            return (1, 0.0)
        number = number_of(value)
        return (0, -number) if number is not None else (1, 0.0)
    return key


def _rank(report_table: ReportTable) -> None:
    pairs = sorted(zip(report_table.table.rows, report_table.runs, strict=True),
                   key=_rank_key(report_table.table, report_table.labels))
    report_table.table.rows = [pair[0] for pair in pairs]
    report_table.runs = [pair[1] for pair in pairs]


def _group(table: Table) -> str:
    return "rules" if table.kind.like is TableKind.BREAKDOWN else "main"


def _select(tables: list[ReportTable], sel: Selection, n_runs: int) -> tuple[list[ReportTable], list[ReportTable]]:
    want = set(sel.tables)
    if want == {"auto"}:
        want = {"main"} if n_runs > MANY_RUNS else {"all"}
    if "all" in want:
        return tables, []
    names = want - set(GROUPS)
    unknown = [name for name in names
               if not any(name == table.name or slug(name) in table.name for table in tables)]
    if unknown:
        have = ", ".join(dict.fromkeys(table.name for table in tables))
        raise SelectionError(f"no table named {', '.join(sorted(unknown))} in this report; groups: main, rules, "
                             f"all; tables: {have}")
    keep = [table for table in tables
            if table.group in want or any(name == table.name or slug(name) in table.name for name in names)]
    kept = {id(table) for table in keep}  # by identity: comparing tables would read every row
    return keep, [table for table in tables if id(table) not in kept]


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
    for run_view, label in zip(views, labels, strict=True):
        acc, n = accuracy_of(run_view)
        ok, why = completeness(run_view)
        infos.append(RunInfo(label, display_name(run_view.run), acc, n, ok, why))
    by_bench: dict[str, list[int]] = {}
    for i, run_view in enumerate(views):
        by_bench.setdefault(str(run_view.run.get("benchmark", "")), []).append(i)
    tables: list[ReportTable] = []
    # the runs' tables merged (published values put on, ranked) once the selection is known: a table left out is
    # never merged, and a table whose rows are made when read (``DeferredTable``) is never computed
    pending: dict[int, tuple[str, list[tuple[int, Table]]]] = {}
    for bench, idx in by_bench.items():
        for parts in _groups(views, idx):
            first = parts[0][1]
            report_table = ReportTable(Table(first.title, list(first.columns), [], [], first.kind), slug(first.title),
                                       _group(first), bench, [])
            pending[id(report_table)] = (bench, parts)
            tables.append(report_table)
    try:
        cross = extra_tables(views)
    except Exception as e:  # noqa: BLE001 - a plugin's bug is reported as that plugin's error
        raise PluginError(",".join(by_bench), "the cross-run paper tables", e) from e
    more = list(cross)
    if sel.ci:
        from .stats_tables import ci_table

        more.append(ci_table(views))
    more += addon_tables(views, sel.prices)
    for table in more:
        tables.append(ReportTable(table, slug(table.title), _group(table), None, [None] * len(table.rows), 1))
    taken: dict[str, int] = {}
    for report_table in tables:  # unique names: a second "mybench-zero-shot" is "mybench-zero-shot-2"
        n = taken.get(report_table.name, 0) + 1
        taken[report_table.name] = n
        if n > 1:
            report_table.name = f"{report_table.name}-{n}"
    keep, left = _select(tables, sel, len(views))
    for report_table in keep:
        got = pending.get(id(report_table))
        if got is not None:
            _build(report_table, views, *got, sel.paper)
    return Report(views, infos, keep, left)


def _build(report_table: ReportTable, views: Sequence[RunView], bench: str, parts: list[tuple[int, Table]],
           paper: bool) -> None:
    """A selected table of the runs: merged, with its published values, ranked."""
    merged, runs, constants, nlab = _merge(views, parts)
    if paper:
        merged = _with_paper(merged, runs, views, bench, nlab)
    report_table.table, report_table.runs = merged, list[int | None](runs)
    report_table.labels, report_table.constants = nlab, constants
    if report_table.ranked:
        _rank(report_table)


def value_columns(rt: ReportTable) -> list[int]:
    """Indices of the columns that hold numbers (a Cell, int or float in some row; text never counts)."""
    table = rt.table
    out = []
    for j in range(len(table.columns)):
        vals = [row[j] for row in table.rows if j < len(row)]
        if any(number_of(value) is not None or isinstance(value, Cell) for value in vals) and \
                all(number_of(value) is not None or isinstance(value, Cell | Missing) or value in (None, "", "-")
                    for value in vals):
            out.append(j)
    return out


def paper_column(rt: ReportTable) -> int | None:
    """The first column with a published value (Overall in a paper's leaderboard), or None."""
    table = rt.table
    for j in range(len(table.columns)):
        if any(j < len(row) and isinstance(row[j], Cell) and row[j].paper is not None for row in table.rows):
            return j
    return None


def row_compared(row: Sequence[Any]) -> bool:
    return any(isinstance(cell, Cell) and cell.paper is not None for cell in row)


def best_rows(rt: ReportTable, j: int) -> set[int]:
    """Rows holding the highest value of column ``j`` among the complete rows (none when fewer than two rows)."""
    table = rt.table
    vals: list[tuple[float, int]] = []
    for i, row in enumerate(table.rows):
        if any(isinstance(cell, Missing) for cell in row) or j >= len(row):
            continue
        number = number_of(row[j])
        if number is not None:
            vals.append((number, i))
    if len(vals) < 2:
        return set()
    top = max(value for value, _ in vals)
    return {i for value, i in vals if abs(value - top) < 1e-9}


__all__ = ["GROUPS", "MANY_RUNS", "Report", "ReportTable", "RunInfo", "Selection", "SelectionError", "assemble",
           "best_rows", "column_id", "paper_column", "row_compared", "slug", "value_columns"]
