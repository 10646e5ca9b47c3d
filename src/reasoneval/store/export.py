"""Export a run's completions and verdicts: JSON lines, a JSON array, CSV (one row per completion, flattened
columns) or Parquet (where pyarrow is installed)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from ..core.outfile import OutputError, check_target, output_path
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


#: export formats by file suffix
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".parquet": "parquet"}

#: the CSV columns: one row per completion, nested values flattened (the verdict into its fields; prompt,
#: a non-text gold and the verdict's detail as JSON text)
CSV_COLUMNS = ["run_id", "item", "subset", "sample", "turn", "role", "prompt", "gold", "response", "reasoning",
               "finish_reason", "prompt_tokens", "completion_tokens", "reasoning_tokens", "latency_s", "ttft_s",
               "error", "outcome", "extracted", "method", "verdict_detail"]


def export_format(path: Path) -> str:
    """The format ``path`` asks for; a device or pipe (``/dev/stdout``) without a known suffix gets JSON lines.
    Raises :class:`~reasoneval.core.outfile.OutputError` for any other suffix."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is not None:
        return fmt
    if path.exists() and not path.is_file() and not path.is_dir():
        return "jsonl"
    raise OutputError(f"cannot export to {path}: unknown format {path.suffix or '(no suffix)'!r}; "
                      "name the file .jsonl, .json, .csv or .parquet")


def _json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def csv_row(r: dict[str, Any]) -> list[Any]:
    v = r["verdict"] or {}
    gold = r["gold"]
    flat = {**r, "prompt": _json(r["prompt"]), "gold": gold if gold is None or isinstance(gold, str) else _json(gold),
            "outcome": v.get("outcome"), "extracted": v.get("extracted"), "method": v.get("method"),
            "verdict_detail": _json(v["detail"]) if v.get("detail") else None}
    return ["" if flat[c] is None else flat[c] for c in CSV_COLUMNS]


def export(store: RunStore, run_id: str, scorer: str, path: Path, golds: dict[str, Any] | None = None) -> int:
    """Write the run's rows to ``path`` in the format its suffix names, all or nothing
    (:mod:`reasoneval.core.outfile`); returns the number of rows."""
    check_target(path)
    fmt = export_format(path)
    data = rows(store, run_id, scorer, golds)
    with output_path(path) as tmp:
        if fmt == "parquet":
            _write_parquet(data, tmp)
        elif fmt == "csv":
            with tmp.open("w", encoding="utf-8", errors="backslashreplace", newline="") as f:
                w = csv.writer(f)
                w.writerow(CSV_COLUMNS)
                w.writerows(csv_row(r) for r in data)
        elif fmt == "json":  # one JSON array of the same rows
            with tmp.open("w", encoding="utf-8", errors="backslashreplace") as f:
                f.write("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in data) + "\n]\n")
        else:
            with tmp.open("w", encoding="utf-8", errors="backslashreplace") as f:
                for r in data:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return len(data)


def _write_parquet(data: list[dict[str, Any]], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise RuntimeError("Parquet export needs pyarrow: pip install 'reasoneval[parquet]'") from e
    flat = [{**r, "prompt": _json(r["prompt"]), "gold": _json(r["gold"]), "verdict": _json(r["verdict"])}
            for r in data]
    pq.write_table(pa.Table.from_pylist(flat), path)
