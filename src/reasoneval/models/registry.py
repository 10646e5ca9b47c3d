"""``--model`` strings to backends."""

from __future__ import annotations

from typing import Any

from .base import ModelBackend, ModelError

KINDS = ("openai", "openai-compat", "anthropic", "llamacpp", "hf", "vllm")


def load_model(spec: str, concurrency: int = 32, seed: int = 0, http: Any = None) -> ModelBackend:
    """``http``: :class:`~reasoneval.models.openai_compat.HTTPOptions` for HTTP backends (timeouts, ...)."""
    kind, sep, rest = spec.partition("/")
    if not sep or not rest:
        raise ModelError(f"unknown model {spec!r}: expected one of {', '.join(k + '/...' for k in KINDS)}")
    if kind in ("openai", "openai-compat"):
        from .openai_compat import from_spec

        return from_spec(spec, concurrency, http)
    if kind == "anthropic":
        from .anthropic import from_spec as anthropic_from_spec

        return anthropic_from_spec(spec, concurrency, http)
    if kind == "llamacpp":
        from .llamacpp import from_spec as llama_from_spec

        return llama_from_spec(spec, seed=seed)
    if kind == "hf":
        from .hf import HFBackend

        return HFBackend(spec, rest)
    if kind == "vllm":
        from .vllm_offline import from_spec as vllm_from_spec

        return vllm_from_spec(spec)
    raise ModelError(f"unknown model kind {kind!r} in {spec!r}: expected one of {', '.join(KINDS)}")
