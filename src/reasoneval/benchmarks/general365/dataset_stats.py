"""General365 dataset tables (``reasoneval stats general365``): the generic distributions, plus the challenge
categories in the paper's Table 1 order beside what the paper states or implies (Fig. 3: items and seeds per
category, labels per seed; §2: seeds by answer type).

The public release carries no category labels or seed links, so these tables fill from data that does (a local
``--data`` with ``categories`` / ``seed_id``); with the release they say that the labels are missing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ...core.benchmark import Table
from .paper_meta import canonical
from .paper_numbers import (
    INFERRED_ITEMS,
    INFERRED_MIN_SEEDS,
    SEED_ANSWER_TYPES,
    SEEDS,
    TABLE1_COLUMNS,
    VARIANTS,
)

CATS = TABLE1_COLUMNS[:-1]
#: the release's answer types grouped as the paper counts seeds (numerical / select / text)
PAPER_TYPE = {"number": "numerical", "interval": "numerical", "single_choice": "select",
              "multiple_choice": "select", "text": "text"}


def category_tables(metas: Iterable[Mapping[str, Any]]) -> list[Table]:
    """Category distribution (items, seeds, labels per seed) and seed answer types, beside the paper."""
    metas = list(metas)
    items: Counter[str] = Counter()
    seeds: Counter[str] = Counter()
    labels_per_seed: Counter[int] = Counter()
    seed_types: Counter[str] = Counter()
    n_seeds = 0
    for m in metas:
        cats = list(dict.fromkeys(canonical(str(c)) for c in (m.get("categories") or [])))
        for c in cats:
            items[c] += 1
        if m.get("is_seed"):
            n_seeds += 1
            seed_types[PAPER_TYPE.get(str(m.get("answer_type")), str(m.get("answer_type")))] += 1
            labels_per_seed[len(cats)] += 1
            for c in cats:
                seeds[c] += 1
    n = len(metas)
    order = [*CATS, *sorted(set(items) - set(CATS))]
    rows: list[list[Any]] = []
    for c in order:
        inf = INFERRED_ITEMS.get(c)
        rows.append([c, items[c], round(100 * items[c] / n, 2) if n else 0.0, seeds[c] if n_seeds else None,
                     inf, None if inf is None else inf // 4, INFERRED_MIN_SEEDS.get(c)])
    notes = ["Multi-label: an item counts in each of its categories, so the column sums exceed the item count.",
             f"Paper: {SEEDS} seeds and {VARIANTS} variants; Fig. 3(a)'s per-category counts are not in the text. "
             "'paper items (inferred)' are the spec's back-solution from Table 1's rounding (4 items per seed); "
             "'paper min seeds' is a lower bound where the rounding leaves the count open."]
    if not items:
        notes.append("No item carries category labels (the public release has none): counts are zero.")
    out = [Table("General365 category distribution (Fig. 3a) beside the paper",
                 ["category", "items", "% of items", "seeds", "paper items (inferred)", "paper seeds (inferred)",
                  "paper min seeds"], rows, notes)]
    if n_seeds:
        multi = sum(k for lab, k in labels_per_seed.items() if lab >= 2)
        out.append(Table("General365 labels per seed (Fig. 3b)", ["labels", "seeds", "%"],
                         [[lab, k, round(100 * k / n_seeds, 2)] for lab, k in sorted(labels_per_seed.items())],
                         [f"Seeds with 2 or more labels: {round(100 * multi / n_seeds, 1)}% (paper: 'nearly 70%')."]))
        out.append(Table("General365 seeds by answer type beside the paper", ["answer type", "seeds", "paper seeds"],
                         [[t, seed_types.get(t, 0), k] for t, k in SEED_ANSWER_TYPES.items()]
                         + [[t, k, None] for t, k in sorted(seed_types.items()) if t not in SEED_ANSWER_TYPES],
                         [f"{n_seeds} seeds found (paper: {SEEDS}); number and interval answers count as "
                          "numerical, single and multiple choice as select."]))
    return out


def general365_tables(data: str | None = None) -> list[Table]:
    from ...core import registry
    from ...report.dataset_stats import generic_tables

    bench = registry.get("general365")
    if data:
        bench.configure({"data": data})
    metas = [it.data.get("_g365") or {} for sub in bench.subsets() for it in bench.load(sub, bench.default_mode)
             if isinstance(it.data, dict)]
    generic = [t for t in generic_tables("general365", data) if not t.title.endswith("category distribution")]
    return generic + category_tables(metas)
