"""R-Bench Tables 5-7 in the paper's layout, built across stored runs, with the published numbers beside ours.

* Table 5 (R-Bench-T, T(zh)) and Table 6 (R-Bench-M, M(zh)): Top-1 accuracy of each model's ``cot`` runs, a 95%
  bootstrap interval (over items), the paper's value for the same model and ours minus the paper's.
* Table 7 (CoT ablation): for every model with a ``cot`` and a ``no-cot`` run, accuracy with and without CoT on
  the items both scored, the paired difference with its bootstrap interval and p-values (``stats.paired``),
  and the paper's two columns and their difference where the paper has the model (R-Bench-T English only).

Accuracy here is over items with a non-error answer (the benchmark's own table uses the same rule).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ...core import number_format
from ...core.benchmark import Table
from ...report import stats
from ...report.collect import RunView
from .paper_numbers import TABLES, rbench_model

NAMES = {"t_en": "R-Bench-T", "t_zh": "R-Bench-T(zh)", "m_en": "R-Bench-M", "m_zh": "R-Bench-M(zh)"}
Scores = dict[stats.ItemKey, float]


def _r1(x: float | None) -> float | None:
    """Ours, the paper's and their difference, rounded as every table rounds (:mod:`reasoneval.core.number_format`)."""
    return None if x is None else number_format.rounded(x)


def _labels(views: Sequence[RunView]) -> dict[int, tuple[str, str]]:
    """id(view) -> (row label, model) of the R-Bench runs: the model, plus the options in which the runs
    differ (other data, revision), so differently made runs never pool; cot and no-cot share a label."""
    from ...report.paper_tables import row_labels

    rb = [v for v in views if v.run.get("benchmark") == "rbench"]
    return {id(v): (lab, str(v.run.get("model"))) for v, lab in zip(rb, row_labels(rb, with_mode=False), strict=True)}


def scores_by_model(views: Sequence[RunView], mode: str) -> dict[str, dict[str, Scores]]:
    """label -> subset -> item scores, over the R-Bench runs of ``mode`` (later runs add items to earlier ones).
    The label is the model, plus the options its runs differ in (see :func:`model_of`)."""
    labels = _labels(views)
    out: dict[str, dict[str, Scores]] = defaultdict(lambda: defaultdict(dict))
    for v in views:
        if v.run.get("benchmark") != "rbench" or v.run.get("mode") != mode:
            continue
        label = labels[id(v)][0]
        for key, s in stats.item_scores(v.rows).items():
            out[label][key[0]][key] = s
    return out


def model_of(views: Sequence[RunView]) -> dict[str, str]:
    """Row label -> model spec (to match the paper's model names)."""
    return dict(_labels(views).values())


def accuracy_table(views: Sequence[RunView], table: int, n_boot: int = stats.N_BOOT, seed: int = 0) -> Table | None:
    """Table 5 (``table=5``, text) or Table 6 (``table=6``, multimodal) for the ``cot`` runs present."""
    subsets = ("t_en", "t_zh") if table == 5 else ("m_en", "m_zh")
    by = scores_by_model(views, "cot")
    spec_of = model_of(views)
    models = [m for m, d in by.items() if any(d.get(s) for s in subsets)]
    if not models:
        return None
    paper = TABLES[table]
    cols = ["model", "paper model"]
    for s in subsets:
        cols += [NAMES[s], "n", "95% CI", "paper", "Δ"]
    rows: list[list[Any]] = []
    for m in models:
        name = rbench_model(spec_of[m], table)
        row: list[Any] = [m, name or ""]
        for s in subsets:
            vals = list(by[m].get(s, {}).values())
            e = stats.bootstrap_ci(vals, n_boot, seed) if vals else None
            ours = _r1(e.value) if e else None
            pub = paper[name][s] if name else None
            row += [ours, e.n if e else 0, number_format.interval(e.low, e.high) if e else "",
                    pub, _r1(ours - pub) if ours is not None and pub is not None else None]
        rows.append(row)
    which = "R-Bench-T" if table == 5 else "R-Bench-M"
    return Table(f"R-Bench Table {table} layout: {which} zero-shot with CoT, Top-1 accuracy (%)", cols, rows,
                 [f"Ours: the model's cot runs; 95% CI: percentile bootstrap over items ({n_boot} resamples, seed "
                  f"{seed}). paper: Guo et al. 2025, Table {table}, for the matched model (blank: not in the paper); "
                  "Δ = ours − paper in points. Configs are never merged across languages, as in the paper."])


def cot_ablation_table(views: Sequence[RunView], n_boot: int = stats.N_BOOT, seed: int = 0) -> Table | None:
    """Table 7: paired CoT − no-CoT per model and config, for models with both runs."""
    cot, nocot = scores_by_model(views, "cot"), scores_by_model(views, "no-cot")
    spec_of = model_of(views)
    rows: list[list[Any]] = []
    for m in cot:
        if m not in nocot:
            continue
        name = rbench_model(spec_of[m], 7)
        for s in sorted(set(cot[m]) & set(nocot[m]), key=lambda x: list(NAMES).index(x) if x in NAMES else 9):
            try:
                p = stats.paired(cot[m][s], nocot[m][s], n_boot, seed)
            except ValueError:
                continue
            pub = TABLES[7].get(name or "") if s == "t_en" else None
            rows.append([m, NAMES.get(s, s), p.n, _r1(p.acc_a), _r1(p.acc_b), _r1(p.diff), _r1(p.low), _r1(p.high),
                         number_format.pvalue(p.p_bootstrap), number_format.pvalue(p.p_mcnemar),
                         p.only_a, p.only_b, name or "" if pub else "",
                         pub["cot"] if pub else None, pub["no-cot"] if pub else None,
                         _r1(pub["cot"] - pub["no-cot"]) if pub else None])
    if not rows:
        return None
    return Table("R-Bench Table 7 layout: CoT ablation (paired, CoT − no-CoT)",
                 ["model", "config", "n", "w CoT", "w/o CoT", "Δ", "CI low", "CI high", "p (bootstrap)",
                  "p (McNemar)", "CoT only right", "no-CoT only right", "paper model", "paper w CoT",
                  "paper w/o CoT", "paper Δ"], rows,
                 [f"On the items both runs scored; Δ with a paired percentile bootstrap over items ({n_boot} "
                  f"resamples, seed {seed}), two-sided p; McNemar: exact test on items only one run got right. "
                  "The paper (Table 7) reports R-Bench-T English only, without intervals; its w/o-CoT prompt is "
                  "unspecified (ours drops 'Think step by step before answering.')."])


def rbench_tables(views: Sequence[RunView]) -> list[Table]:
    out = [accuracy_table(views, 5), accuracy_table(views, 6), cot_ablation_table(views)]
    return [t for t in out if t is not None]
