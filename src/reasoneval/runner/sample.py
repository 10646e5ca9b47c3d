"""``--limit N``: which N items of a subset a run uses.

* ``sample`` (the default): a seeded sample stratified by :meth:`Benchmark.stratum` (label and category), each
  stratum keeping its share of the subset (within one item; ties broken by the seeded draw), the items in the
  release's order. Samples are nested (the items of a smaller limit are among a larger one's). The same seed,
  data and N give the same items on any machine (``random.Random`` seeded with a string hashes it with
  SHA-512, independent of ``PYTHONHASHSEED``).
* ``first``: the first N items, in the release's order. Release files are often ordered by label or
  category (in one release the first 100 states of a puzzle all carry the same label), so this is an explicit
  choice.

The seed and the mode are part of the run id whenever they change which items are used (``runner/spec.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

T = TypeVar("T")
LimitMode = Literal["sample", "first"]
LIMIT_MODES: tuple[LimitMode, ...] = ("sample", "first")
SAMPLER_VERSION = 1  # bump when the draw changes, so runs made with the old draw keep their own ids


def allocate(sizes: Sequence[int], n: int, rng: random.Random) -> list[int]:
    """How many of ``n`` to take from each group of ``sizes``. Items are handed out one at a time to the group
    furthest below its exact share ``t * size / total`` (ties broken by ``rng``), so every count stays within
    one item of its share and a larger ``n`` never takes fewer from a group."""
    total = sum(sizes)
    take = [0] * len(sizes)
    tie = [rng.random() for _ in sizes]
    for t in range(1, min(n, total) + 1):
        best = max((i for i, s in enumerate(sizes) if take[i] < s),
                   key=lambda i: (t * sizes[i] / total - take[i], tie[i]))
        take[best] += 1
    return take


def limit_items(items: Sequence[T], n: int | None, mode: str = "sample", seed: int = 0, scope: str = "",
                stratum: Callable[[T], str] = lambda _: "") -> list[T]:
    """The items a run with ``--limit n`` uses (all of them when ``n`` is None). Samples are nested: the items
    of ``--limit 5`` are among those of ``--limit 10`` (same seed), so a larger limit reuses the cache."""
    if mode not in LIMIT_MODES:
        raise ValueError(f"unknown limit mode {mode!r}: {' or '.join(LIMIT_MODES)}")
    if n is None or n >= len(items):
        return list(items)
    if mode == "first":
        return list(items[:n])
    groups: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        groups.setdefault(stratum(it), []).append(i)
    keys = sorted(groups)
    base = f"reasoneval-limit:{SAMPLER_VERSION}:{seed}:{scope}"
    take = allocate([len(groups[k]) for k in keys], n, random.Random(base))
    chosen: list[int] = []
    for k, t in zip(keys, take, strict=True):
        order = list(groups[k])
        random.Random(f"{base}:{k}").shuffle(order)  # one fixed order per group: every limit takes a prefix
        chosen.extend(order[:t])
    return [items[i] for i in sorted(chosen)]
