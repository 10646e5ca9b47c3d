"""Statistics none of the four papers reports: confidence intervals, paired significance, sample spread,
the dataset-size ablation by random subsampling, and correlations across runs.

Everything works on per-item scores: an item's score is the mean correctness of its non-error samples
(1/0 with one sample). Bootstraps resample *items* (a cluster bootstrap when items have several samples),
with a seeded ``random.Random`` so every number is reproducible. Pure Python: no numpy/scipy needed.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core.benchmark import ScoredRow, Turn

N_BOOT = 2000
LEVEL = 0.95

ItemKey = tuple[str, str]  # (subset, item_key)


def _is_error(t: Turn) -> bool:
    return t.error is not None or (t.verdict is not None and t.verdict.outcome.value == "error")


def item_scores(rows: Iterable[ScoredRow]) -> dict[ItemKey, float]:
    """(subset, item) -> mean correctness over its non-error samples; items with only errors are left out."""
    acc: dict[ItemKey, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if _is_error(r.final):
            continue
        s = acc[(r.subset, r.item_key)]
        s[0] += int(r.final.verdict is not None and r.final.verdict.correct)
        s[1] += 1
    return {k: c / n for k, (c, n) in acc.items()}


def sample_scores(rows: Iterable[ScoredRow]) -> dict[int, dict[ItemKey, int]]:
    """sample index -> (subset, item) -> 1/0, errors left out."""
    out: dict[int, dict[ItemKey, int]] = defaultdict(dict)
    for r in rows:
        if not _is_error(r.final):
            out[r.sample][(r.subset, r.item_key)] = int(r.final.verdict is not None and r.final.verdict.correct)
    return dict(out)


def _quantile(sorted_xs: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values (numpy's default)."""
    if not sorted_xs:
        return math.nan
    pos = q * (len(sorted_xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


@dataclass(frozen=True)
class Estimate:
    """A percentage with its bootstrap interval over ``n`` items."""

    value: float
    low: float
    high: float
    n: int

    def text(self) -> str:
        from reasoneval.core.number_format import interval, text

        return f"{text(self.value)} {interval(self.low, self.high)}"


def bootstrap_ci(scores: Sequence[float], n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> Estimate:
    """Mean of ``scores`` (0..1) in percent with a percentile-bootstrap interval over items."""
    n = len(scores)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = 100.0 * sum(scores) / n
    rng = random.Random(seed)
    vals = list(scores)
    boots = sorted(100.0 * sum(rng.choices(vals, k=n)) / n for _ in range(n_boot))
    a = (1 - level) / 2
    return Estimate(mean, _quantile(boots, a), _quantile(boots, 1 - a), n)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of ``b`` vs ``c`` discordant pairs at p = 1/2."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Paired:
    """Accuracy of A minus B (points) on the items both runs scored."""

    n: int
    acc_a: float
    acc_b: float
    diff: float
    low: float
    high: float
    p_bootstrap: float
    only_a: int  # items A got right and B wrong (single-sample runs; else counted on sample means)
    only_b: int
    p_mcnemar: float | None  # exact McNemar when both runs are binary per item


def paired(a: dict[ItemKey, float], b: dict[ItemKey, float], n_boot: int = N_BOOT, seed: int = 0,
           level: float = LEVEL) -> Paired:
    """Paired bootstrap over the items both runs scored (and exact McNemar when every score is 0/1)."""
    keys = sorted(set(a) & set(b))
    n = len(keys)
    if n == 0:
        raise ValueError("the two runs have no scored item in common")
    da = [a[k] - b[k] for k in keys]
    diff = 100.0 * sum(da) / n
    rng = random.Random(seed)
    boots = sorted(100.0 * sum(rng.choices(da, k=n)) / n for _ in range(n_boot))
    q = (1 - level) / 2
    # two-sided bootstrap p: how often the resampled difference lands on the other side of zero (doubled)
    if diff >= 0:
        tail = sum(1 for x in boots if x <= 0) / n_boot
    else:
        tail = sum(1 for x in boots if x >= 0) / n_boot
    p_boot = min(1.0, 2 * tail) if diff != 0 else 1.0
    only_a = sum(1 for k in keys if a[k] > b[k])
    only_b = sum(1 for k in keys if b[k] > a[k])
    binary = all(a[k] in (0.0, 1.0) and b[k] in (0.0, 1.0) for k in keys)
    return Paired(n, 100.0 * sum(a[k] for k in keys) / n, 100.0 * sum(b[k] for k in keys) / n, diff,
                  _quantile(boots, q), _quantile(boots, 1 - q), p_boot, only_a, only_b,
                  mcnemar_exact(only_a, only_b) if binary else None)


@dataclass(frozen=True)
class Spread:
    """Accuracy of each sample (all items), their mean and sample standard deviation."""

    per_sample: list[float]
    mean: float
    sd: float


def sample_spread(rows: Iterable[ScoredRow]) -> Spread | None:
    """None when the run has one sample per item."""
    by = sample_scores(rows)
    if len(by) < 2:
        return None
    accs = [100.0 * sum(s.values()) / len(s) for _, s in sorted(by.items()) if s]
    mean = sum(accs) / len(accs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in accs) / (len(accs) - 1)) if len(accs) > 1 else 0.0
    return Spread(accs, mean, sd)


@dataclass(frozen=True)
class AblationPoint:
    size: int
    mean: float
    sd: float
    low: float  # 2.5th percentile over the draws
    high: float
    min: float
    max: float


def size_ablation(scores: dict[ItemKey, float], sizes: Sequence[int] | None = None, reps: int = 200,
                  seed: int = 0, per_subset: bool = True) -> list[AblationPoint]:
    """Accuracy on random subsets of the items, ``reps`` draws per size (without replacement).

    ``sizes``: items per subset (``per_subset``: drawn within each subset, every subset shrunk alike) or in
    total. Default sizes: 10%, 20%, ..., 100% of the smallest subset.
    """
    by: dict[str, list[float]] = defaultdict(list)
    for (sub, _), v in sorted(scores.items()):
        by[sub if per_subset else ""].append(v)
    if not by:
        return []
    smallest = min(len(v) for v in by.values())
    if sizes is None:
        sizes = sorted({max(1, round(smallest * f / 10)) for f in range(1, 11)})
    rng = random.Random(seed)
    out = []
    for k in sizes:
        k = min(k, smallest)
        accs = []
        for _ in range(reps):
            picked = [x for vals in by.values() for x in rng.sample(vals, k)]
            accs.append(100.0 * sum(picked) / len(picked))
        accs.sort()
        mean = sum(accs) / len(accs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in accs) / max(len(accs) - 1, 1))
        out.append(AblationPoint(k, mean, sd, _quantile(accs, 0.025), _quantile(accs, 0.975), accs[0], accs[-1]))
    return out


# ---------------------------------------------------------------- correlation


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(x)
    if n != len(y) or n < 2:
        return math.nan
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


def ranks(x: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties sharing their average rank."""
    order = sorted(range(len(x)), key=lambda i: x[i])
    out = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    return pearson(ranks(x), ranks(y))


def permutation_p(x: Sequence[float], y: Sequence[float], reps: int = 5000, seed: int = 0) -> float:
    """Two-sided permutation p-value of Pearson's r (exact enumeration is not needed at these sizes)."""
    r = pearson(x, y)
    if math.isnan(r):
        return math.nan
    rng = random.Random(seed)
    ys = list(y)
    hits = 0
    for _ in range(reps):
        rng.shuffle(ys)
        if abs(pearson(x, ys)) >= abs(r) - 1e-12:
            hits += 1
    return (hits + 1) / (reps + 1)


@dataclass(frozen=True)
class Correlation:
    a: str
    b: str
    n: int
    pearson: float
    spearman: float
    p: float


def correlations(columns: dict[str, dict[str, float]], seed: int = 0) -> list[Correlation]:
    """Every pair of columns (name -> row label -> value), over the row labels both have (at least 3)."""
    names = list(columns)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            common = sorted(set(columns[a]) & set(columns[b]))
            if len(common) < 3:
                continue
            x = [columns[a][k] for k in common]
            y = [columns[b][k] for k in common]
            out.append(Correlation(a, b, len(common), pearson(x, y), spearman(x, y), permutation_p(x, y, seed=seed)))
    return out
