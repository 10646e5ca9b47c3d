"""The llama.cpp model inside an engine process (``LlamaEngine``, with ``AlignedPrefix``: the same text whatever
ran before), shared by the one-request and the batched engines (``llamacpp.py``, ``llamacpp_batched.py``)."""

from __future__ import annotations

import os
import time
from typing import Any

from ..core.values import Completion, GenParams, Prompt, Usage
from .base import ModelError, sampling_kwargs

#: prompt tokens evaluated per llama.cpp call, and so the unit of KV-cache reuse between requests (AlignedPrefix):
#: KOR-Bench prompts of one rule share 200-830 tokens, so 64 keeps nearly all of it where llama-cpp-python's 512
#: would keep none of an Operation prompt's ~200; on CPUs chunks of 48-256 tokens prefill at the same rate
CHUNK = 64


class AlignedPrefix:
    """``Llama.generate`` reusing only the KV cache a fresh evaluation of the prompt would compute bit for bit.

    llama-cpp-python keeps the longest common prefix of the previous request in the KV cache and evaluates the
    rest of the prompt from there. The rest is then cut into other ``n_batch`` chunks than a fresh evaluation's,
    chunks of other sizes round differently, and greedy text came to depend on the request before (7 of 10
    KOR-Bench prompts changed; a resumed run stored other text than an uninterrupted one). Here the prefix kept
    is cut down to whole ``n_batch`` chunks that the previous prompt itself evaluated from position 0: the same
    tokens at the same positions in the same chunk shapes over the same cache, so the same bits, and the rest is
    evaluated in exactly the chunks a fresh evaluation uses. Generated tokens (decoded one at a time) are never
    reused.
    """

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self._generate = llm.generate  # the class's own (bound) method
        self._whole = 0  # positions [0, _whole) of the cache hold the last prompt's whole chunks
        self.kept = 0  # prompt tokens reused by the last request (tests, benchmarks)

    def __call__(self, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        llm, toks = self._llm, list(tokens)
        step = max(1, int(llm.n_batch))
        limit = min(self._whole, int(llm.n_tokens), len(toks) - 1)
        ids = llm.input_ids
        same = 0
        while same < limit and int(ids[same]) == toks[same]:
            same += 1
        self.kept = same // step * step
        llm.n_tokens = self.kept  # Llama.generate keeps at most this (all of it: the prompt matches that far)
        self._whole = len(toks) // step * step
        return self._generate(toks, *args, **kwargs)


class LlamaEngine:
    """Runs inside the engine process: the llama.cpp model itself."""

    def __init__(self, path: str, n_ctx: int = 8192, seed: int = 0, n_threads: int | None = None,
                 n_batch: int = CHUNK) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ModelError("llamacpp backend needs llama-cpp-python: pip install 'reasoneval[local]'") from e
        self._llm: Any = Llama(model_path=path, n_ctx=n_ctx, seed=seed, verbose=False, n_batch=n_batch,
                               n_threads=n_threads or os.cpu_count() or 1)
        self._llm.generate = AlignedPrefix(self._llm)  # type: ignore[method-assign]  # same text whatever ran before

    def generate(self, prompt: Prompt, params: GenParams, llm: Any = None) -> Completion:
        """One request; ``llm`` stands in for the ``Llama`` (the batched engine passes a proxy of it)."""
        t0 = time.monotonic()
        llm = self._llm if llm is None else llm
        try:
            if prompt.is_chat:
                msgs = [{"role": m.role, "content": m.content} for m in prompt.messages]
                out = llm.create_chat_completion(messages=msgs, **sampling_kwargs(params))
                choice = out["choices"][0]
                text = choice["message"].get("content") or ""
            else:
                out = llm.create_completion(prompt=prompt.text, **sampling_kwargs(params))
                choice = out["choices"][0]
                text = choice.get("text") or ""
        except (ValueError, RuntimeError) as e:  # e.g. prompt longer than the context window
            return Completion(error=f"llama.cpp: {e}", latency_s=time.monotonic() - t0)
        u = out.get("usage") or {}
        return Completion(text=text, finish_reason=choice.get("finish_reason"),
                          usage=Usage(int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0))),
                          latency_s=time.monotonic() - t0)
