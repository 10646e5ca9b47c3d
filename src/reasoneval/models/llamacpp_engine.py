"""The llama.cpp model inside an engine process (``LlamaEngine``), shared by the one-request and the batched
engines (``llamacpp.py``, ``llamacpp_batched.py``)."""

from __future__ import annotations

import os
import time
from typing import Any

from ..core.types import Completion, GenParams, Prompt, Usage
from .base import ModelError


class LlamaEngine:
    """Runs inside the engine process: the llama.cpp model itself."""

    def __init__(self, path: str, n_ctx: int = 8192, seed: int = 0, n_threads: int | None = None) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ModelError("llamacpp backend needs llama-cpp-python: pip install 'reasoneval[local]'") from e
        self._llm: Any = Llama(model_path=path, n_ctx=n_ctx, seed=seed, verbose=False,
                               n_threads=n_threads or os.cpu_count() or 1)

    @staticmethod
    def _kwargs(params: GenParams) -> dict[str, Any]:
        kw: dict[str, Any] = {"max_tokens": params.max_tokens,
                              "temperature": 0.0 if params.temperature is None else params.temperature}
        if params.top_p is not None:
            kw["top_p"] = params.top_p
        if params.stop:
            kw["stop"] = list(params.stop)
        if params.seed is not None:
            kw["seed"] = params.seed
        return kw

    def generate(self, prompt: Prompt, params: GenParams, llm: Any = None) -> Completion:
        """One request; ``llm`` stands in for the ``Llama`` (the batched engine passes a proxy of it)."""
        t0 = time.monotonic()
        llm = self._llm if llm is None else llm
        try:
            if prompt.is_chat:
                msgs = [{"role": m.role, "content": m.content} for m in prompt.messages]
                out = llm.create_chat_completion(messages=msgs, **self._kwargs(params))
                choice = out["choices"][0]
                text = choice["message"].get("content") or ""
            else:
                out = llm.create_completion(prompt=prompt.text, **self._kwargs(params))
                choice = out["choices"][0]
                text = choice.get("text") or ""
        except (ValueError, RuntimeError) as e:  # e.g. prompt longer than the context window
            return Completion(error=f"llama.cpp: {e}", latency_s=time.monotonic() - t0)
        u = out.get("usage") or {}
        return Completion(text=text, finish_reason=choice.get("finish_reason"),
                          usage=Usage(int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0))),
                          latency_s=time.monotonic() - t0)
