"""Report tables that do not come from a benchmark's summariser: samples (pass@k, maj@k) and cost.

Shared by every output of ``reasoneval report`` (terminal, JSON, Markdown, CSV, LaTeX, HTML), so each appears
the same everywhere.
"""

from __future__ import annotations

from ..core.benchmark import Table
from .collect import RunView
from .cost import Price, cost_table
from .labels import run_labels
from .samples import samples_table


def addon_tables(views: list[RunView], prices: dict[str, Price] | None = None) -> list[Table]:
    """The samples table (when a run has ``--samples`` > 1) and the cost table (when ``prices`` is given)."""
    labels = run_labels(views)  # the one place these tables take their run labels from
    out: list[Table] = []
    t = samples_table(views, labels)
    if t is not None:
        out.append(t)
    if prices is not None:
        out.append(cost_table(views, labels, prices))
    return out
