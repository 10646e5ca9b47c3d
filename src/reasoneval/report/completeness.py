"""Whether a run is complete: a run whose leaderboard (a table whose kind is ``like`` ``TableKind.LEADERBOARD``)
has a missing value (an Overall over fewer categories than its protocol has:
:class:`~reasoneval.core.number_format.Missing`) is marked and ranked after the complete runs in every table, plot and
overview, as the paper's own table leaves it out."""

from __future__ import annotations

from typing import Any

from ..core.number_format import Missing
from ..core.table import TableKind

#: tables ranked best first (their first value column), incomplete runs last: those whose kind is ``like`` these
RANKED = (TableKind.LEADERBOARD,)


def completeness(v: Any) -> tuple[bool, str]:
    """(complete, why not) of a report view (anything with ``tables``), from its leaderboard tables."""
    for t in v.tables:
        if t.kind.like not in RANKED:
            continue
        for r in t.rows:
            for x in r:
                if isinstance(x, Missing):
                    return False, x.reason
    return True, ""
