"""Runs with several samples per item (``run --samples N``): pass@k, maj@k and the spread across samples.

* **pass@k**: the unbiased estimator of Chen et al. (2021), per item ``1 - C(n-c, k) / C(n, k)`` with ``n`` the
  item's answered samples and ``c`` the correct ones, averaged over items (an item with fewer than ``k``
  answered samples is left out of that k's mean and counted in a note).
* **maj@k**: the most frequent extracted answer among an item's first ``k`` answered samples (by sample index;
  a tie goes to the answer seen first); the item counts as correct when a sample with that answer is correct.
  Samples with no extracted answer do not vote; an item where none of them has an answer is wrong.
* **spread**: accuracy of sample 0, of sample 1, ... over the items; their mean and standard deviation
  (``statistics.stdev``, n-1 in the denominator).

``n`` always counts items, never samples. Failed calls (errors) are not samples: they are left out, as
everywhere else in the reports.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from ..core.benchmark import ScoredRow, Table
from ..core.values import Outcome
from .collect import RunView
from .labels import mode_label


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021): ``1 - C(n-c, k) / C(n, k)`` in a numerically stable product form."""
    if k <= 0 or k > n:
        raise ValueError(f"pass@k needs 0 < k <= n (k={k}, n={n})")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


@dataclass(slots=True)
class _Sample:
    index: int
    correct: bool
    extracted: str | None


def _by_item(rows: list[ScoredRow]) -> dict[str, list[ScoredRow]]:
    """Each item's answered rows (failed calls are not samples), by sample index."""
    out: dict[str, list[ScoredRow]] = defaultdict(list)
    for r in rows:
        v = r.final.verdict
        if r.final.error is not None or v is None or v.outcome is Outcome.ERROR:
            continue
        out[r.item_key].append(r)
    for answered in out.values():
        answered.sort(key=lambda r: r.sample)
    return out


def _samples(answered: list[ScoredRow]) -> list[_Sample]:
    """One item's samples (made one item at a time: a run's rows are not copied)."""
    out = []
    for r in answered:
        v = r.final.verdict
        if v is not None:  # always: _by_item keeps answered rows only
            out.append(_Sample(r.sample, v.outcome is Outcome.CORRECT, v.extracted))
    return out


def majority_correct(samples: list[_Sample]) -> bool:
    """Whether the majority answer of ``samples`` (ties: the first seen) is a correct one."""
    counts: dict[str, int] = {}
    for s in samples:
        if s.extracted is not None:
            counts[s.extracted] = counts.get(s.extracted, 0) + 1
    if not counts:
        return False
    top = max(counts.values())
    winner = next(a for a in counts if counts[a] == top)  # dicts keep first-seen order
    return any(s.correct for s in samples if s.extracted == winner)


def ks_for(n_samples: int) -> list[int]:
    """1, 2, 4, ... up to and including ``n_samples``."""
    ks, k = [], 1
    while k < n_samples:
        ks.append(k)
        k *= 2
    return [*ks, n_samples]


@dataclass
class SampleStats:
    items: int
    samples: int
    pass_at: dict[int, float]  # percent
    maj_at: dict[int, float]  # percent
    per_sample: list[float]  # percent accuracy of sample 0, 1, ...
    short: dict[int, int]  # k -> items with fewer than k answered samples (left out of pass@k / maj@k)

    @property
    def spread(self) -> float | None:
        return statistics.stdev(self.per_sample) if len(self.per_sample) > 1 else None


def sample_stats(rows: list[ScoredRow], n_samples: int) -> SampleStats | None:
    items = _by_item(rows)
    if not items or n_samples < 2:
        return None
    ks = ks_for(n_samples)
    passes: dict[int, list[float]] = {k: [] for k in ks}  # per item, in item order
    majorities: dict[int, list[bool]] = {k: [] for k in ks}
    short = dict.fromkeys(ks, 0)
    per_index: dict[int, list[bool]] = defaultdict(list)
    for answered in items.values():
        samples = _samples(answered)
        correct = sum(x.correct for x in samples)
        for k in ks:
            if len(samples) < k:
                short[k] += 1
                continue
            passes[k].append(pass_at_k(len(samples), correct, k))
            majorities[k].append(majority_correct(samples[:k]))
        for s in samples:
            per_index[s.index].append(s.correct)
    pass_at = {k: 100 * statistics.fmean(passes[k]) for k in ks if passes[k]}
    maj_at = {k: 100 * statistics.fmean(majorities[k]) for k in ks if majorities[k]}
    per_sample = [100 * statistics.fmean(per_index[i]) for i in sorted(per_index)]
    return SampleStats(len(items), n_samples, pass_at, maj_at, per_sample, short)


def samples_table(views: list[RunView], labels: list[str]) -> Table | None:
    """One row per run with ``--samples`` > 1: pass@k and maj@k for k = 1, 2, 4, ..., N, and the spread of the
    per-sample accuracies. None when no run has samples."""
    stats: list[tuple[str, RunView, SampleStats]] = []
    for v, lab in zip(views, labels, strict=True):
        n = int((v.run.get("spec") or {}).get("samples") or 1)
        st = sample_stats(v.rows, n) if n > 1 else None
        if st is not None:
            stats.append((lab, v, st))
    if not stats:
        return None
    ks = sorted({k for _, _, s in stats for k in s.pass_at})
    cols = ["model", "mode", "n", "samples", *[f"pass@{k}" for k in ks], *[f"maj@{k}" for k in ks if k > 1],
            "mean sample acc", "sample std"]
    rows = []
    notes = ["pass@k: unbiased estimator (Chen et al. 2021), 1 - C(n-c,k)/C(n,k) per item, averaged; maj@k: the "
             "most frequent extracted answer of the first k samples (ties: the first seen) is correct. n counts "
             "items; failed calls are not samples. sample std: standard deviation of the per-sample accuracies."]
    for lab, v, s in stats:
        rows.append([lab, mode_label(v.run), s.items, s.samples, *[s.pass_at.get(k) for k in ks],
                     *[s.maj_at.get(k) for k in ks if k > 1], statistics.fmean(s.per_sample), s.spread])
        left = {k: m for k, m in s.short.items() if m}
        if left:
            notes.append(f"{lab}: " + "; ".join(f"{m} item(s) with fewer than {k} answered samples are left out of "
                                               f"pass@{k}/maj@{k}" for k, m in left.items()) + ".")
    return Table("Samples: pass@k, majority vote and spread across samples (%)", cols, rows, notes)
