"""vLLM offline backend (optional extra ``[vllm]``): the whole request list goes to the engine at once
and continuous batching does the rest. ``vllm/<path>[?tp=2&max_model_len=8192&max_images=4]``.

Vision-language models (the engine's model config says so) take R-Bench-M items: the OpenAI content parts
(``image_url`` with ``data:`` URLs) go to ``LLM.chat`` as they are, which vLLM reads natively;
``max_images`` sets ``limit_mm_per_prompt``. Text-only models refuse image items before any call."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import parse_qsl

from ..core.values import Completion, GenParams, Prompt, Usage
from .base import ModelError, prompt_has_images, sampling_kwargs
from .multimodal import image_count, vllm_is_multimodal


def _sampling(params: GenParams, sp_cls: Any) -> Any:
    return sp_cls(**sampling_kwargs(params))


class VLLMBackend:
    batched = True
    max_concurrency = 1_000_000

    def __init__(self, spec: str, path: str, engine: Any = None, sampling_cls: Any = None,
                 images: bool | None = None, **engine_kw: Any) -> None:
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
        self.supports_images = vllm_is_multimodal(engine) if images is None else images
        mm = engine_kw.get("limit_mm_per_prompt") or {}
        self.max_images = int(mm.get("image", 0)) if isinstance(mm, dict) else 0

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
        bad: dict[int, str] = {}
        for i, (p, _) in enumerate(requests):
            if prompt_has_images(p) and not self.supports_images:
                bad[i] = f"{self.spec} is text-only here; this item has images"
            elif self.max_images and image_count(p) > self.max_images:
                bad[i] = f"{self.spec}: {image_count(p)} images exceed max_images={self.max_images}"
        ok = [r for i, r in enumerate(requests) if i not in bad]
        done = iter(await asyncio.get_running_loop().run_in_executor(None, self._run_batch, ok) if ok else [])
        return [Completion(error=bad[i]) if i in bad else next(done) for i in range(len(requests))]

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
        elif k == "max_images":
            kw["limit_mm_per_prompt"] = {"image": int(v)}
        else:
            raise ModelError(f"{spec}: unknown vllm option {k!r}")
    return VLLMBackend(spec, path, **kw)
