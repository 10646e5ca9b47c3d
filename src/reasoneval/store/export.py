"""Export a run's completions and verdicts to JSONL (and Parquet where pyarrow is installed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.response import Response
from .sqlite import RunStore


def rows(store: RunStore, run_id: str, scorer: str, golds: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per stored completion; ``golds`` (item key -> gold answer) adds each item's ``gold``."""
    golds = golds or {}
    verdicts = store.verdicts(run_id, scorer)
    out = []
    for c in store.completions(run_id):
        v = verdicts.get((c.item_key, c.sample, c.turn)) if c.role == "answer" else None
        # reasoning as the response view sees it: the server's separate field and any inline <think>
        view = Response.of(c.completion.text or "", c.completion.finish_reason, c.completion.reasoning)
        out.append({
            "run_id": run_id, "item": c.item_key, "subset": c.subset, "sample": c.sample, "turn": c.turn,
            "role": c.role, "prompt": c.prompt.to_json(), "gold": golds.get(c.item_key),
            "response": c.completion.text,
            "finish_reason": c.completion.finish_reason, "prompt_tokens": c.completion.usage.prompt_tokens,
            "completion_tokens": c.completion.usage.completion_tokens,
            "reasoning_tokens": c.completion.reasoning_tokens, "reasoning": view.reasoning or None,
            "latency_s": c.completion.latency_s, "ttft_s": c.completion.ttft_s,
            "error": c.completion.error, "verdict": v.to_json() if v else None,
        })
    return out


def export(store: RunStore, run_id: str, scorer: str, path: Path, golds: dict[str, Any] | None = None) -> int:
    data = rows(store, run_id, scorer, golds)
    if path.suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as e:
            raise RuntimeError("Parquet export needs pyarrow: pip install 'reasoneval[parquet]'") from e
        flat = [{**r, "prompt": json.dumps(r["prompt"], ensure_ascii=False),
                 "gold": json.dumps(r["gold"], ensure_ascii=False),
                 "verdict": json.dumps(r["verdict"], ensure_ascii=False)} for r in data]
        pq.write_table(pa.Table.from_pylist(flat), path)
    else:
        with path.open("w", encoding="utf-8") as f:
            for r in data:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return len(data)
