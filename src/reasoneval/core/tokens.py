"""Totals of token counts where some are unknown (a server that reports no usage, or a malformed number).

An unknown count is None, never 0: a total sums the known counts and says how many were unknown, and a total
with no known count at all is unknown itself (shown ``-``).
"""

from __future__ import annotations

from collections.abc import Iterable

NA = "-"


def known_total(counts: Iterable[int | None]) -> tuple[int | None, int]:
    """(sum of the known counts, or None when none is known; how many were unknown)."""
    total: int | None = None
    unknown = 0
    for c in counts:
        if c is None:
            unknown += 1
        else:
            total = (total or 0) + c
    return total, unknown


def show_count(count: int | None) -> str:
    """A token count for a table or a line: ``-`` when unknown."""
    return NA if count is None else str(count)


def show_total(total: int | None, unknown: int, n: int) -> str:
    """``1234``, ``1234 (3 of 50 unknown)`` or ``-`` (all ``n`` unknown)."""
    if total is None:
        return NA
    return f"{total}" + (f" ({unknown} of {n} unknown)" if unknown else "")
