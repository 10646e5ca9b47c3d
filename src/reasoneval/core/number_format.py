"""The one place numbers in tables are rounded and written out.

Every table cell that is a number goes through :func:`text` when it is shown (terminal, Markdown, CSV, HTML)
and is rounded with :func:`rounded` where a table is built, so the same value reads the same in every table
(``33.33``, never ``33.3`` in one and ``33.30`` in another). Two cell types carry what a bare float cannot:

* :class:`PValue`: a probability, written ``<0.001`` below a thousandth and with three decimals above it
  (never ``0.00``); in JSON it stays a number.
* :class:`Missing`: a value that does not exist, with the reason (``n/a (no Counterfactual)``); it is a
  ``str``, so every renderer, JSON included, shows the reason without knowing the type.

It lives in ``core`` (it imports nothing of the harness) so that typed cells (:class:`.table.Cell`) are
written by it where they are made; ``reasoneval.core.number_format`` is the same module for the report and the
benchmarks' summaries, so their tables and the report's own agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: decimals of every percentage and statistic shown in a table
DIGITS = 2
#: p-values below this are written ``<0.001``
P_FLOOR = 0.001


def rounded(x: float, digits: int = DIGITS) -> float:
    """A number as a table stores it (JSON shows it as is; :func:`text` writes the same digits)."""
    return round(float(x), digits)


def text(x: float, digits: int = DIGITS) -> str:
    """A number as a table shows it: ``DIGITS`` decimals; NaN (no value) as the empty string."""
    x = float(x)
    if math.isnan(x):
        return ""
    return f"{x:.{digits}f}"


def interval(low: float, high: float) -> str:
    """A confidence interval as a cell: ``[31.20, 35.46]``."""
    return f"[{text(low)}, {text(high)}]"


def percent(num: float, den: float) -> float | None:
    """``100 * num / den`` rounded as a table stores it; None when there is nothing to divide by."""
    return rounded(100.0 * num / den) if den else None


def pvalue_text(p: float) -> str:
    """``<0.001`` below a thousandth, else three decimals (``0.043``, ``1.000``)."""
    p = float(p)
    if math.isnan(p):
        return ""
    return f"<{P_FLOOR:g}" if p < P_FLOOR else f"{p:.3f}"


class PValue(float):
    """A p-value cell: shown by :func:`pvalue_text`, kept as a number in JSON."""

    __slots__ = ()

    def __str__(self) -> str:
        return pvalue_text(self)

    def __format__(self, spec: str) -> str:
        return pvalue_text(self) if not spec else float.__format__(self, spec)


def pvalue(p: float | None) -> PValue | None:
    return None if p is None else PValue(p)


class Delta(float):
    """A difference in points (ours − paper): shown with its sign (``+1.20``, ``-0.40``, ``+0.00``); a number in
    JSON."""

    __slots__ = ()

    def __str__(self) -> str:
        return "" if math.isnan(self) else f"{float(self):+.{DIGITS}f}"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else float.__format__(self, spec)


class Missing(str):
    """A cell whose value does not exist, shown with why: ``n/a (no Counterfactual items)``."""

    __slots__ = ("reason",)
    reason: str

    def __new__(cls, reason: str) -> Missing:
        self = super().__new__(cls, f"n/a ({reason})")
        self.reason = reason
        return self


def missing_categories(names: list[str]) -> str:
    """The reason an Overall over ``names``' categories does not exist."""
    return "no " + ", ".join(names) + " items"


def mean_of_all(parts: Sequence[tuple[str, float | None]]) -> float | Missing:
    """The mean of every part (an average column: Overall, Avg), rounded as a table stores it; when any part
    has no value the average does not exist either: :class:`Missing` naming the parts that are not there."""
    absent = [name for name, x in parts if x is None]
    if absent or not parts:
        return Missing(missing_categories(absent) if absent else "nothing scored")
    return rounded(sum(float(x) for _, x in parts if x is not None) / len(parts))


def cell(x: Any) -> str:
    """Any table cell as text: numbers through :func:`text` (p-values through :func:`pvalue_text`), missing
    values with their reason, ``None`` as the empty string, everything else as ``str``."""
    if x is None:
        return ""
    if isinstance(x, PValue):
        return pvalue_text(x)
    if isinstance(x, Delta):
        return str(x)
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        return text(x)
    return str(x)
