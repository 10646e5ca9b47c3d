"""Stable hashes for caching and reproducibility records."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()  # model text may hold lone surrogates


def hash_obj(obj: Any) -> str:
    return sha256_text(canonical_json(obj))


def hash_files(paths: Iterable[Path]) -> str:
    """Hash of file names + contents, order-independent (used as a data version)."""
    h = hashlib.sha256()
    for p in sorted(Path(x) for x in paths):
        h.update(p.name.encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def cache_key(model_spec: str, prompt_json: dict[str, Any], params_json: dict[str, Any], sample: int) -> str:
    return hash_obj({"model": model_spec, "prompt": prompt_json, "params": params_json, "sample": sample})
