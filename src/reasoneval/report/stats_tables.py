"""The statistics of :mod:`.stats` as report Tables: CIs per run and subset, paired comparisons, the
dataset-size ablation, correlations across runs."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from ..core import number_format
from ..core.benchmark import Table
from . import stats
from .collect import RunView
from .labels import display_name
from .plots import run_labels


def _r(x: float) -> float:
    return number_format.rounded(x)


def ci_table(views: Sequence[RunView], n_boot: int = stats.N_BOOT, seed: int = 0) -> Table:
    """Accuracy with a 95% bootstrap CI per run, per subset and overall (+ spread over samples)."""
    rows: list[list[object]] = []
    notes = [f"95% CI: percentile bootstrap over items ({n_boot} resamples, seed {seed}); an item's score is the "
             "mean of its non-error samples; failed calls excluded."]
    for v, lab in zip(views, run_labels(views), strict=True):
        scores = stats.item_scores(v.rows)
        by: dict[str, list[float]] = defaultdict(list)
        for (sub, _), s in scores.items():
            by[sub].append(s)
        groups = [(sub, by[sub]) for sub in sorted(by)]
        if len(groups) != 1:
            groups.append(("overall", list(scores.values())))
        for sub, vals in groups:
            e = stats.bootstrap_ci(vals, n_boot, seed)
            rows.append([lab, v.run.get("mode", ""), sub, e.n, _r(e.value), _r(e.low), _r(e.high),
                         _r(e.high - e.low)])
        sp = stats.sample_spread(v.rows)
        if sp is not None:
            notes.append(f"{lab}: {len(sp.per_sample)} samples, accuracy per sample "
                         f"{', '.join(number_format.text(x) for x in sp.per_sample)}; mean {number_format.text(sp.mean)}, "
                         f"sd {number_format.text(sp.sd)}")
    return Table("Accuracy with 95% confidence intervals",
                 ["run", "mode", "subset", "n", "accuracy", "CI low", "CI high", "CI width"], rows, notes)


def compare_table(a: RunView, b: RunView, n_boot: int = stats.N_BOOT, seed: int = 0) -> Table:
    """A minus B on the items both scored: per subset and overall."""
    la, lb = run_labels([a, b])
    sa, sb = stats.item_scores(a.rows), stats.item_scores(b.rows)
    subs = sorted({k[0] for k in sa} & {k[0] for k in sb})
    groups: list[tuple[str, dict[stats.ItemKey, float], dict[stats.ItemKey, float]]] = [
        (s, {k: x for k, x in sa.items() if k[0] == s}, {k: x for k, x in sb.items() if k[0] == s}) for s in subs]
    if len(groups) != 1:
        groups.append(("overall", sa, sb))
    rows: list[list[object]] = []
    for sub, ga, gb in groups:
        try:
            p = stats.paired(ga, gb, n_boot, seed)
        except ValueError:
            continue
        rows.append([sub, p.n, _r(p.acc_a), _r(p.acc_b), _r(p.diff), _r(p.low), _r(p.high), p.only_a, p.only_b,
                     number_format.pvalue(p.p_bootstrap), number_format.pvalue(p.p_mcnemar)])
    return Table(f"Paired difference: A = {la} ({a.run.get('mode', '')}) minus B = {lb} ({b.run.get('mode', '')})",
                 ["subset", "n", "A", "B", "A-B", "CI low", "CI high", "A only", "B only", "p (bootstrap)",
                  "p (McNemar)"], rows,
                 [f"On items both runs scored; paired bootstrap over items ({n_boot} resamples, seed {seed}), "
                  "two-sided. McNemar: exact binomial test on discordant items (single-sample runs only)."])


def ablation_table(views: Sequence[RunView], reps: int = 200, seed: int = 0,
                   sizes: Sequence[int] | None = None) -> Table:
    """Accuracy on random subsets of each subset (category), mean and spread over draws."""
    rows: list[list[object]] = []
    for v, lab in zip(views, run_labels(views), strict=True):
        full = stats.item_scores(v.rows)
        for pt in stats.size_ablation(full, sizes, reps, seed):
            rows.append([lab, pt.size, _r(pt.mean), _r(pt.sd), _r(pt.low), _r(pt.high), _r(pt.min), _r(pt.max)])
    return Table("Dataset-size ablation (random subsampling)",
                 ["run", "items per subset", "mean accuracy", "sd", "2.5%", "97.5%", "min", "max"], rows,
                 [f"{reps} random draws per size without replacement, the same number of items from every subset "
                  f"(seed {seed}); the full size has no spread."])


def _column_name(v: RunView, by_subset: bool, sub: str = "") -> str:
    base = f"{v.run.get('benchmark', '')} ({v.run.get('mode', '')})"
    return f"{base} {sub}".strip() if by_subset else base


def correlation_columns(views: Sequence[RunView]) -> tuple[dict[str, dict[str, float]], str]:
    """Columns to correlate across models: one per benchmark (and mode) when the runs span several; else one
    per subset of the single benchmark. Row labels are models."""
    benches = {(v.run.get("benchmark"), v.run.get("mode")) for v in views}
    by_subset = len(benches) == 1
    cols: dict[str, dict[str, float]] = defaultdict(dict)
    for v in views:
        model = str(v.run.get("model", "?"))
        scores = stats.item_scores(v.rows)
        if by_subset:
            by: dict[str, list[float]] = defaultdict(list)
            for (sub, _), s in scores.items():
                by[sub].append(s)
            for sub, vals in by.items():
                cols[_column_name(v, True, sub)][model] = 100.0 * sum(vals) / len(vals)
        elif scores:
            cols[_column_name(v, False)][model] = 100.0 * sum(scores.values()) / len(scores)
    what = "subsets of one benchmark" if by_subset else "benchmarks"
    return dict(cols), what


def external_scores(path: Path) -> dict[str, dict[str, float]]:
    """Per-model scores of other benchmarks (published ones): a CSV whose header is ``model,<benchmark>,...``
    or JSON ``{"<model>": {"<benchmark>": score, ...}}``. Empty cells are skipped; anything else that is not a
    finite number is a ``ValueError`` naming the file, line and column."""
    import csv
    import math

    def num(v: object, where: str) -> float | None:
        if v is None or (isinstance(v, str) and not v.strip()):
            return None
        try:
            x = float(v)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {v!r} is not a number") from None
        if not math.isfinite(x):
            raise ValueError(f"{where}: {v!r} is not a finite number")
        return x

    cols: dict[str, dict[str, float]] = defaultdict(dict)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ValueError(f"{path}: expected an object {{model: {{benchmark: score}}}}")
        for model, scores in doc.items():
            if not isinstance(scores, dict):
                raise ValueError(f"{path}: {model!r}: expected an object of scores")
            for bench, v in scores.items():
                x = num(v, f"{path}: {model!r} {bench!r}")
                if x is not None:
                    cols[str(bench)][str(model)] = x
        return dict(cols)
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if not header or len(header) < 2:
        raise ValueError(f"{path}:1: expected a header model,<benchmark>,...")
    for line, row in enumerate(reader, start=2):
        if not row:
            continue
        for name, v in zip(header[1:], row[1:], strict=False):
            x = num(v, f"{path}:{line} column {name!r}")
            if x is not None:
                cols[name.strip()][row[0].strip()] = x
    return dict(cols)


def _key(name: str) -> str:
    from .paper_numbers import normalize_model_id

    return normalize_model_id(name)


def match_names(external: dict[str, dict[str, float]], ours: set[str]
                ) -> tuple[dict[str, dict[str, float]], list[str]]:
    """The external scores with their model names matched to the runs' display names (exactly, else ignoring
    case, provider and endpoint), and one note per name left unmatched on either side, with its close matches:
    a name that matches nothing is never dropped silently."""
    import difflib

    by_key: dict[str, str] = {}
    for m in sorted(ours):
        by_key.setdefault(_key(m), m)
    out: dict[str, dict[str, float]] = {}
    theirs: set[str] = set()
    for col, vals in external.items():
        got: dict[str, float] = {}
        for name, x in vals.items():
            theirs.add(name)
            mine = name if name in ours else by_key.get(_key(name))
            if mine is not None:
                got[mine] = x
        out[col] = got
    matched_ext = {n for n in theirs if n in ours or _key(n) in by_key}
    matched_ours = {by_key.get(_key(n), n) for n in matched_ext}
    notes = []
    lost_ext = sorted(theirs - matched_ext)
    if lost_ext:
        notes.append("Not matched to any run (left out): " + "; ".join(
            n + (f" (close: {', '.join(c)})" if (c := difflib.get_close_matches(n, sorted(ours), 2, 0.6)) else "")
            for n in lost_ext) + ".")
    lost_ours = sorted(ours - matched_ours)
    if lost_ours:
        notes.append("Runs without external scores: " + "; ".join(
            n + (f" (close: {', '.join(c)})" if (c := difflib.get_close_matches(n, sorted(theirs), 2, 0.6)) else "")
            for n in lost_ours) + ".")
    return out, notes


def correlation_table(views: Sequence[RunView], seed: int = 0,
                      external: dict[str, dict[str, float]] | None = None) -> Table:
    cols, what = correlation_columns(views)
    if external:
        # App. J: each benchmark's accuracy per model, overall and per subset, modes merged (a model has one
        # run: zero-shot for chat models, three-shot for base models), against the external scores
        merged: dict[str, dict[str, float]] = defaultdict(dict)
        for v in views:
            scores = stats.item_scores(v.rows)
            bench, model = str(v.run.get("benchmark", "")), display_name(v.run)
            if not scores:
                continue
            merged[bench][model] = 100.0 * sum(scores.values()) / len(scores)
            by: dict[str, list[float]] = defaultdict(list)
            for (sub, _), x in scores.items():
                by[sub].append(x)
            for sub, vals in by.items():
                merged[f"{bench} {sub}"][model] = 100.0 * sum(vals) / len(vals)
        ours = {m for d in merged.values() for m in d}
        external, unmatched = match_names(external, ours)
        cols = {**dict(merged), **external}
        what = "benchmarks (overall and per subset) and the external scores"
    rows = [[c.a, c.b, c.n, _r(c.pearson), _r(c.spearman), number_format.pvalue(c.p)]
            for c in stats.correlations(cols, seed)]
    notes = [f"Correlation across models between {what} (accuracy per model; pairs need >= 3 models in common). "
             "p: two-sided permutation test of Pearson's r (5000 permutations)."]
    if not rows:
        notes.append("No pair of columns shares 3 or more models: store runs of at least 3 models.")
    if external:
        notes.extend(unmatched)
    return Table("Correlation across runs", ["A", "B", "models", "Pearson r", "Spearman rho", "p"], rows, notes)
