"""Paper-layout tables assembled across several stored runs (one run holds one mode; some paper tables put
modes side by side): ``extra_tables(views)`` asks each benchmark (``Benchmark.paper_tables``) for those its runs
allow; the report appends them. ``row_labels`` names the rows of such tables.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..core.benchmark import Table
from .collect import RunView
from .labels import display_name


def row_labels(views: Sequence[RunView], with_mode: bool) -> list[str]:
    """The row label of each run in a cross-run paper table: its display name (``--name`` / ``rename``, else the
    model's name without provider and endpoint), then (``with_mode``) its mode and the
    benchmark options in which these runs differ, so runs made differently are never pooled into one row."""
    def ident(v: RunView) -> dict[str, str]:
        opts = (v.run.get("spec") or {}).get("options") or {}
        d = {k: x if isinstance(x, str) else json.dumps(x, sort_keys=True) for k, x in sorted(opts.items())}
        return {"mode": str(v.run.get("mode", "")), **d} if with_mode else d

    ids = [ident(v) for v in views]
    keys = list(dict.fromkeys(k for d in ids for k in d))
    differing = [k for k in keys if len({d.get(k, "") for d in ids}) > 1]
    return [" · ".join([display_name(v.run), *(d.get(k, "") if k == "mode" else f"{k}={d.get(k, '')}"
                                                     for k in differing)]) for v, d in zip(views, ids, strict=True)]


def extra_tables(views: Sequence[RunView]) -> list[Table]:
    """Each benchmark's tables across its runs (``Benchmark.paper_tables``), benchmarks in the order their
    first run appears."""
    from ..core import registry

    by_bench: dict[str, list[RunView]] = {}
    for v in views:
        by_bench.setdefault(str(v.run.get("benchmark")), []).append(v)
    out: list[Table] = []
    for name, runs in by_bench.items():
        try:
            bench = registry.get(name)
        except registry.UnknownBenchmark:  # a run of a benchmark no longer installed: its own tables only
            continue
        out += bench.paper_tables(runs)
    return out
