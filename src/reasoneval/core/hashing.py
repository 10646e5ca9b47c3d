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
    """The definition of a response-cache key (stored caches hold these); the runner computes the same keys
    with :class:`CacheKeyer`, which is checked against this function."""
    return hash_obj({"model": model_spec, "prompt": prompt_json, "params": params_json, "sample": sample})


class CacheKeyer:
    """:func:`cache_key` for one model and one set of parameters, with what they add to every key hashed once.

    ``canonical_json`` sorts the keys (model, params, prompt, sample), so a key is the SHA-256 of
    ``{"model":M,"params":P,"prompt":`` + the prompt's canonical JSON + ``,"sample":S}``: the hash state after the
    fixed head is kept and copied for each prompt. Same keys as :func:`cache_key` (``tests/core/test_hashing.py``);
    at concurrency 256 the per-request key was a tenth of the event loop's time."""

    KEPT = 256  # prompts whose hash state is kept (the samples of an item are asked one after another)

    def __init__(self, model_spec: str, params_canonical: str) -> None:
        head = '{"model":' + canonical_json(model_spec) + ',"params":' + params_canonical + ',"prompt":'
        self._head = hashlib.sha256(head.encode("utf-8", "surrogatepass"))
        self._after: dict[str, Any] = {}  # prompt's canonical JSON -> the hash state after it

    def key(self, prompt_json: dict[str, Any], sample: int) -> str:
        return self.key_of(canonical_json(prompt_json), sample)

    def key_of(self, prompt_canonical: str, sample: int) -> str:
        """:meth:`key` from the prompt's ``canonical_json`` already made (the runner stores the same string). The
        state after the prompt is kept for the last :attr:`KEPT` prompts: each sample then hashes only its tail."""
        state = self._after.get(prompt_canonical)
        if state is None:
            state = self._head.copy()
            state.update(prompt_canonical.encode("utf-8", "surrogatepass"))
            if len(self._after) >= self.KEPT:
                del self._after[next(iter(self._after))]
            self._after[prompt_canonical] = state
        h = state.copy()
        tail = str(sample) if type(sample) is int else canonical_json(sample)
        h.update((',"sample":' + tail + "}").encode("utf-8", "surrogatepass"))
        return h.hexdigest()
