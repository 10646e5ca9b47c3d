"""vLLM offline backend (optional extra ``[vllm]``): the whole request list goes to the engine at once
and continuous batching does the rest. ``vllm/<path>[?tp=2&max_model_len=8192]``."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import parse_qsl

from ..core.types import Completion, GenParams, Prompt, Usage
from .base import ModelError, prompt_has_images


def _sampling(params: GenParams, sp_cls: Any) -> Any:
    kw: dict[str, Any] = {"max_tokens": params.max_tokens,
                          "temperature": 0.0 if params.temperature is None else params.temperature}
    if params.top_p is not None:
        kw["top_p"] = params.top_p
    if params.stop:
        kw["stop"] = list(params.stop)
    if params.seed is not None:
        kw["seed"] = params.seed
    return sp_cls(**kw)


class VLLMBackend:
    batched = True
    supports_images = False
    max_concurrency = 1_000_000

    def __init__(self, spec: str, path: str, engine: Any = None, sampling_cls: Any = None,
                 **engine_kw: Any) -> None:
        self.spec = spec
        if engine is None:
            try:
                from vllm import LLM, SamplingParams
            except ImportError as e:
                raise ModelError("vllm backend needs vLLM on a GPU machine: pip install 'reasoneval[vllm]'") from e
            engine = LLM(model=path, **engine_kw)
            sampling_cls = SamplingParams
        self.engine = engine
        self.sampling_cls = sampling_cls

    def _run_batch(self, requests: list[tuple[Prompt, GenParams]]) -> list[Completion]:
        t0 = time.monotonic()
        out: list[Completion | None] = [None] * len(requests)
        chat_idx = [i for i, (p, _) in enumerate(requests) if p.is_chat]
        raw_idx = [i for i, (p, _) in enumerate(requests) if not p.is_chat]
        results: dict[int, Any] = {}
        if chat_idx:
            convs = [[{"role": m.role, "content": m.content} for m in requests[i][0].messages] for i in chat_idx]
            sps = [_sampling(requests[i][1], self.sampling_cls) for i in chat_idx]
            for i, r in zip(chat_idx, self.engine.chat(convs, sps, use_tqdm=False), strict=True):
                results[i] = r
        if raw_idx:
            texts = [requests[i][0].text for i in raw_idx]
            sps = [_sampling(requests[i][1], self.sampling_cls) for i in raw_idx]
            for i, r in zip(raw_idx, self.engine.generate(texts, sps, use_tqdm=False), strict=True):
                results[i] = r
        dt = time.monotonic() - t0
        for i, r in results.items():
            o = r.outputs[0]
            out[i] = Completion(text=o.text, finish_reason=o.finish_reason,
                                usage=Usage(len(r.prompt_token_ids or []), len(o.token_ids or [])),
                                latency_s=dt)
        return [c if c is not None else Completion(error="vllm returned no output") for c in out]

    async def generate_batch(self, requests: list[tuple[Prompt, GenParams]]) -> list[Completion]:
        bad = {i for i, (p, _) in enumerate(requests) if prompt_has_images(p)}
        ok = [r for i, r in enumerate(requests) if i not in bad]
        done = iter(await asyncio.get_running_loop().run_in_executor(None, self._run_batch, ok) if ok else [])
        return [Completion(error=f"{self.spec} is text-only here; this item has images") if i in bad
                else next(done) for i in range(len(requests))]

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        return (await self.generate_batch([(prompt, params)]))[0]

    async def aclose(self) -> None:
        return None


def from_spec(spec: str) -> VLLMBackend:
    _, _, rest = spec.partition("/")
    path, _, query = rest.partition("?")
    kw: dict[str, Any] = {}
    for k, v in parse_qsl(query):
        if k in ("tp", "tensor_parallel_size"):
            kw["tensor_parallel_size"] = int(v)
        elif k in ("max_model_len", "pipeline_parallel_size"):
            kw[k] = int(v)
        elif k == "gpu_memory_utilization":
            kw[k] = float(v)
        elif k == "dtype":
            kw[k] = v
        else:
            raise ModelError(f"{spec}: unknown vllm option {k!r}")
    return VLLMBackend(spec, path, **kw)
