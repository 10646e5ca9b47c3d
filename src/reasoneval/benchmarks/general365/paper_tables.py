"""General365 Table 1, wide, across stored runs: per model the eight challenge categories and Overall, with the
paper's row for the same model and ours minus the paper's beneath it, and a 95% bootstrap interval on Overall.

Categories come from the items (multi-label: an item counts in each of its categories). The public release
carries no category labels, so with its data only Overall is filled (the note says so).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...core import number_format, registry
from ...core.benchmark import Table
from ...core.values import Outcome
from ...report import stats
from ...report.collect import RunView
from .paper_meta import canonical
from .paper_numbers import GENERAL365_TABLE1, TABLE1_COLUMNS, general365_model

CATS = TABLE1_COLUMNS[:-1]


def _scored(v: RunView) -> dict[tuple[str, int], tuple[list[str], float]]:
    """(item, sample) -> (categories, correct 0/1) for each non-error answer of a run."""
    metas: list[dict[str, Any]] | None = None
    try:
        to_scored = getattr(registry.for_run(v.run), "to_scored", None)
        if to_scored is not None:
            metas = [s.meta for s in to_scored(v.rows)]
    except Exception:  # noqa: BLE001 - without the benchmark's data, the verdicts' own detail still serves
        metas = None
    out: dict[tuple[str, int], tuple[list[str], float]] = {}
    for i, r in enumerate(v.rows):
        t = r.final
        if t.completion.error is not None or (t.verdict is not None and t.verdict.outcome is Outcome.ERROR):
            continue
        meta = metas[i] if metas is not None else (t.verdict.detail if t.verdict else {})
        cats = [canonical(str(c)) for c in (meta.get("categories") or [])]
        out[(r.item_key, r.sample)] = (cats, float(t.verdict is not None and t.verdict.outcome is Outcome.CORRECT))
    return out


def _pct(xs: list[float]) -> float | None:
    return number_format.percent(sum(xs), len(xs))


def general365_table1(views: Sequence[RunView], n_boot: int = stats.N_BOOT, seed: int = 0) -> Table | None:
    from ...report.paper_tables import row_labels

    # row label (model, and the mode / options its runs differ in) -> (item, sample) -> answer: runs of one
    # label add items (a later run replaces an item, never doubles it); paper and cascade runs stay apart
    by_model: dict[str, dict[tuple[str, int], tuple[list[str], float]]] = defaultdict(dict)
    model_of: dict[str, str] = {}
    g365 = [v for v in views if v.run.get("benchmark") == "general365"]
    for v, label in zip(g365, row_labels(g365, with_mode=True), strict=True):
        by_model[label].update(_scored(v))
        model_of[label] = str(v.run.get("model"))
    if not by_model:
        return None
    rows: list[list[Any]] = []
    any_cats = False
    for model, answers in by_model.items():
        scored = list(answers.values())
        per: dict[str, list[float]] = defaultdict(list)
        for cats, ok in scored:
            for c in cats:
                per[c].append(ok)
        any_cats = any_cats or bool(per)
        allv = [ok for _, ok in scored]
        e = stats.bootstrap_ci(allv, n_boot, seed) if allv else None
        ours = [_pct(per.get(c, [])) for c in CATS] + [_pct(allv)]
        rows.append([model, "ours", *ours, len(allv), number_format.interval(e.low, e.high) if e else ""])
        name = general365_model(model_of[model])
        if name is not None:
            pub = [GENERAL365_TABLE1[name][c] for c in TABLE1_COLUMNS]
            rows.append([model, f"paper: {name}", *pub, None, ""])
            rows.append([model, "Δ ours − paper", *(None if o is None else number_format.rounded(o - p)
                                                    for o, p in zip(ours, pub, strict=True)), None, ""])
    notes = ["Accuracy (%) over answered items (failed calls excluded); multi-label: an item counts in each of "
             "its categories. Overall 95% CI: percentile bootstrap over items "
             f"({n_boot} resamples, seed {seed}). paper: General365 Table 1 for the matched model."]
    if not any_cats:
        notes.append("No item carried category labels (the public release has none), so only Overall is filled.")
    return Table("General365 Table 1 layout: accuracy per challenge category (%)",
                 ["model", "row", *TABLE1_COLUMNS, "n", "Overall 95% CI"], rows, notes)


def general365_tables(views: Sequence[RunView]) -> list[Table]:
    t = general365_table1(views)
    return [] if t is None else [t]
