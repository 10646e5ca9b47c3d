"""Result tables as typed data: what a benchmark's summary returns and every renderer only formats.

* :class:`Table`: title, columns, rows, notes and a :class:`TableKind` (what it reports, set where it is made;
  generic kinds here, a benchmark's own declared in its folder).
* :class:`Column`: a column header with a stable semantic ``id`` (``"counterfactual"``, ``"multi-q"``) and an
  optional ``unit``; code that needs to know which column is which reads the id, never the label.
* :class:`Cell`: a number with what a bare float cannot carry: a ``secondary`` number shown in parentheses
  (a real-life answer rate, a pass rate), ``n``, a confidence interval ``ci``, a ``unit`` and the paper's
  published values (``paper``, ``paper_secondary``), which the HTML report shows as "paper X Δ Y".

Both are ``str`` subclasses (as :class:`~reasoneval.core.number_format.Missing` is): a Column reads as its label and
a Cell as its text, written once by :mod:`reasoneval.core.number_format` when it is made (``84.00``,
``0.00 (50.00)``), so a row compares equal to the strings it shows, every renderer (terminal, Markdown, CSV,
LaTeX, JSON, HTML) writes the same text, and a row value may still be a plain value (a float, an int, a
string): summaries migrate one table at a time. Code that needs the numbers reads the fields, never the text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from . import number_format


class TableKind(str):
    """What a table reports, set where it is made; the report dispatches on it (never on titles).

    The generic kinds are class attributes: :attr:`GENERIC`, :attr:`LEADERBOARD` (a value per category/subset,
    a row per run: ranked best first, incomplete runs last) and :attr:`BREAKDOWN` (a value per rule / tag:
    collapsed, in the ``rules`` group of ``--tables``). A benchmark declares its own kinds in its folder and lists
    them on ``Benchmark.table_kinds``; each is handled by every renderer as the generic kind it is ``like``
    (``TableKind("mixed", like=TableKind.LEADERBOARD)`` is ranked as a leaderboard), so renderers dispatch on
    ``kind.like`` and know no benchmark's kinds. A kind is one object per name (declaring a name again gives
    the same object; another ``like`` for it is refused), a ``str`` that reads as its name (JSON ``kind``).
    """

    __slots__ = ("like",)
    like: TableKind
    GENERIC: ClassVar[TableKind]
    LEADERBOARD: ClassVar[TableKind]
    BREAKDOWN: ClassVar[TableKind]

    def __new__(cls, name: str, like: TableKind | None = None) -> TableKind:
        known = _KINDS.get(name)
        if known is not None:
            if like is not None and known.like is not like.like:
                raise ValueError(f"table kind {name!r} is declared like {known.like!r}, not {like.like!r}")
            return known
        self = super().__new__(cls, name)
        self.like = self if like is None else like.like
        _KINDS[name] = self
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (TableKind, (str(self), None if self.like is self else self.like))

    def __repr__(self) -> str:
        return f"TableKind({str(self)!r})"


_KINDS: dict[str, TableKind] = {}
TableKind.GENERIC = TableKind("generic")
TableKind.LEADERBOARD = TableKind("leaderboard")  # accuracy per category/subset, one row per run
TableKind.BREAKDOWN = TableKind("breakdown")  # accuracy per rule / tag


class Column(str):
    """A column header (its label, as shown) with a semantic ``id`` that does not change with the label."""

    __slots__ = ("id", "unit", "secondary")
    id: str
    unit: str
    secondary: str

    def __new__(cls, label: str, id: str | None = None, unit: str = "", secondary: str = "") -> Column:
        self = super().__new__(cls, label)
        self.id = label if id is None else id
        self.unit = unit
        #: what a cell's secondary value (in parentheses) is, e.g. ``real-life rate``; typed outputs (CSV, JSON)
        #: name its own column after it
        self.secondary = secondary
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Column, (str(self), self.id, self.unit, self.secondary))


#: the id of an accuracy column (the default summary's ``accuracy``): a long per-label table of several runs is
#: shown pivoted (runs x labels) on it
ACCURACY = "accuracy"


def column_id(c: Any) -> str:
    """The semantic id of a column: a :class:`Column`'s ``id``; a plain header's label."""
    return c.id if isinstance(c, Column) else str(c)


Number = float | int


class Cell(str):
    """A number with its context; reads as its text (``number_format.cell`` of the value, the secondary value in
    parentheses). ``paper`` / ``paper_secondary``: the published values for the same cell, when a benchmark's
    :meth:`~reasoneval.core.benchmark.Benchmark.with_paper` attached them."""

    __slots__ = ("value", "secondary", "n", "ci", "unit", "paper", "paper_secondary")
    value: Number | None
    secondary: Number | None
    n: int | None
    ci: tuple[float, float] | None
    unit: str
    paper: float | None
    paper_secondary: float | None

    def __new__(cls, value: Number | None, secondary: Number | None = None, *, n: int | None = None,
                ci: tuple[float, float] | None = None, unit: str = "", paper: float | None = None,
                paper_secondary: float | None = None) -> Cell:
        shown = number_format.cell(value) + (f" ({number_format.cell(secondary)})" if secondary is not None else "")
        self = super().__new__(cls, shown)
        self.value, self.secondary, self.n, self.ci, self.unit = value, secondary, n, ci, unit
        self.paper, self.paper_secondary = paper, paper_secondary
        return self

    def _kw(self) -> dict[str, Any]:
        return {"n": self.n, "ci": self.ci, "unit": self.unit, "paper": self.paper,
                "paper_secondary": self.paper_secondary}

    def __reduce__(self) -> tuple[Any, ...]:
        return (_cell, (self.value, self.secondary, self._kw()))

    @property
    def number(self) -> float | None:
        """The value as a float; None when there is none (or it is NaN)."""
        if self.value is None or isinstance(self.value, bool):
            return None
        number = float(self.value)
        return None if math.isnan(number) else number

    def compared(self, paper: float | None, paper_secondary: float | None = None) -> Cell:
        """This cell with the published values beside it (a secondary one only where this cell has one)."""
        fields = {**self._kw(), "paper": paper,
                  "paper_secondary": paper_secondary if self.secondary is not None else None}
        return Cell(self.value, self.secondary, **fields)

    @property
    def delta(self) -> float | None:
        """Ours − paper (points); None without a paper value."""
        ours = self.number
        return None if ours is None or self.paper is None else ours - self.paper

    @property
    def delta_secondary(self) -> float | None:
        if self.secondary is None or self.paper_secondary is None:
            return None
        return float(self.secondary) - self.paper_secondary

    def typed(self) -> dict[str, Any]:
        """The fields that are set, for JSON."""
        out: dict[str, Any] = {"value": self.value}
        for name in ("secondary", "n", "ci", "unit", "paper", "paper_secondary"):
            value = getattr(self, name)
            if value not in (None, ""):
                out[name] = list(value) if name == "ci" else value
        return out


def _cell(value: Number | None, secondary: Number | None, fields: dict[str, Any]) -> Cell:
    return Cell(value, secondary, **fields)


def as_cell(x: Any) -> Cell | None:
    """A row value as a :class:`Cell` when it is a number (a plain int or float is ``Cell(x)``); None for text,
    missing values and booleans."""
    if isinstance(x, Cell):
        return x
    if isinstance(x, bool) or not isinstance(x, int | float) or isinstance(x, number_format.PValue):
        return None
    return Cell(x)


def number_of(x: Any) -> float | None:
    """The number a row value stands for (a Cell's value, a plain int or float, a p-value); None for text."""
    if isinstance(x, Cell):
        return x.number
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    return None if math.isnan(float(x)) else float(x)


@dataclass
class Table:
    """A result table; the report layer renders it to terminal / JSON / Markdown / CSV / LaTeX / HTML."""

    title: str
    columns: list[str]  # plain labels or :class:`Column` objects
    rows: list[list[Any]]  # plain values or :class:`Cell` objects
    notes: list[str] = field(default_factory=list)
    kind: TableKind = TableKind.GENERIC

    def to_json(self) -> dict[str, Any]:
        """Rows as shown (a Cell is its text); a Cell's typed fields under ``cells`` as ``[row, column,
        fields]`` and the columns' ids under ``column_ids``, only where the table has them."""
        out: dict[str, Any] = {"title": self.title, "columns": self.columns, "rows": self.rows, "notes": self.notes}
        if self.kind is not TableKind.GENERIC:
            out["kind"] = str(self.kind)
        if any(isinstance(col, Column) for col in self.columns):
            out["column_ids"] = [column_id(col) for col in self.columns]
        typed = [[i, j, cell.typed()] for i, row in enumerate(self.rows) for j, cell in enumerate(row)
                 if isinstance(cell, Cell)]
        if typed:
            out["cells"] = typed
        return out


class DeferredTable(Table):
    """A table whose rows are computed at their first read (``make``), for a table a report may not show (a
    per-rule breakdown at many runs: ``report --tables``): title, columns, notes and kind are known at once, and
    a table never shown is never computed. Read, it is the table ``make`` gives the rows of."""

    def __init__(self, title: str, columns: list[Any], make: Callable[[], list[list[Any]]],
                 notes: list[str] | None = None, kind: TableKind = TableKind.GENERIC) -> None:
        self._rows: list[list[Any]] | None = None
        super().__init__(title, columns, [], list(notes or []), kind)
        self._make: Callable[[], list[list[Any]]] | None = make  # after __init__'s ``rows = []``

    @property  # type: ignore[override]
    def rows(self) -> list[list[Any]]:
        if self._make is not None:
            make, self._make = self._make, None
            self._rows = make()
        assert self._rows is not None
        return self._rows

    @rows.setter
    def rows(self, value: list[list[Any]]) -> None:
        self._rows, self._make = value, None

    @property
    def computed(self) -> bool:
        """Whether the rows were made (or set)."""
        return self._make is None


def with_rows(t: Table, rows: Sequence[list[Any]], notes: Sequence[str] | None = None) -> Table:
    """``t`` with other rows (and notes); title, columns and kind kept."""
    return Table(t.title, list(t.columns), [list(row) for row in rows], list(t.notes if notes is None else notes),
                 t.kind)
