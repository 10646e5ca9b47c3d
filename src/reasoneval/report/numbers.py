"""How every table rounds and writes numbers: the one formatter, :mod:`reasoneval.core.numbers`, under the
name the report and the benchmarks' summaries import it by."""

from __future__ import annotations

from ..core.numbers import (
    DIGITS,
    P_FLOOR,
    Delta,
    Missing,
    PValue,
    cell,
    interval,
    mean_of_all,
    missing_categories,
    percent,
    pvalue,
    pvalue_text,
    rounded,
    text,
)

__all__ = ["DIGITS", "Delta", "P_FLOOR", "Missing", "PValue", "cell", "interval", "mean_of_all", "missing_categories",
           "percent", "pvalue", "pvalue_text", "rounded", "text"]
