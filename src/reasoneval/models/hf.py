"""Hugging Face transformers backend (local path; optional extra ``[hf]``). Greedy by default.

A model whose config has a ``vision_config`` is loaded with ``AutoProcessor`` and
``AutoModelForImageTextToText`` and takes image items (R-Bench-M): the chat template renders the image
placeholders, the processor encodes the images (decoded from the prompt's ``data:`` URLs)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..core.values import Completion, GenParams, Prompt, Usage
from .base import ModelError, prompt_has_images
from .multimodal import hf_messages


class HFBackend:
    batched = False
    max_concurrency = 1

    def __init__(self, spec: str, path: str, model: Any = None, tokenizer: Any = None,
                 processor: Any = None) -> None:
        self.spec = spec
        if model is None and _is_vision(path):
            model, processor = _load_vision(spec, path)
            tokenizer = getattr(processor, "tokenizer", processor)
        if processor is not None and tokenizer is None:
            tokenizer = getattr(processor, "tokenizer", processor)
        if model is None or tokenizer is None:
            try:
                from transformers import AutoModelForCausalLM, AutoTokenizer
            except ImportError as e:
                raise ModelError("hf backend needs transformers: pip install 'reasoneval[hf]'") from e
            try:
                tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
                model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
            except OSError as e:
                raise ModelError(f"{spec}: cannot load a local model from {path!r}: {e}") from e
        self.model, self.tok, self.processor = model, tokenizer, processor
        self.supports_images = processor is not None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hf")

    def render(self, prompt: Prompt) -> str:
        if not prompt.is_chat:
            return prompt.text or ""
        msgs = [{"role": m.role, "content": m.content} for m in prompt.messages]
        return str(self.tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True))

    def _encode(self, prompt: Prompt) -> Any:
        if self.processor is None:
            return self.tok(self.render(prompt), return_tensors="pt")
        msgs, images = hf_messages(prompt)
        text = self.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        return self.processor(text=[text], images=images or None, return_tensors="pt")

    def _run(self, prompt: Prompt, params: GenParams) -> Completion:
        t0 = time.monotonic()
        enc = self._encode(prompt)
        kw: dict[str, Any] = {"max_new_tokens": params.max_tokens}
        if params.temperature:
            kw.update(do_sample=True, temperature=params.temperature)
            if params.top_p is not None:
                kw["top_p"] = params.top_p
            if params.seed is not None:  # --seed: reproducible sampling (one generation at a time here)
                import torch

                torch.manual_seed(params.seed)
        else:
            kw["do_sample"] = False
        out = self.model.generate(**enc, **kw)
        n_in = int(enc["input_ids"].shape[1])
        new = out[0][n_in:]
        text = self.tok.decode(new, skip_special_tokens=True)
        for s in params.stop:
            if s in text:
                text = text.split(s, 1)[0]
        eos = getattr(self.tok, "eos_token_id", None)
        finished = len(new) < params.max_tokens or (eos is not None and int(new[-1]) == eos)
        return Completion(text=text, finish_reason="stop" if finished else "length",
                          usage=Usage(n_in, len(new)), latency_s=time.monotonic() - t0)

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        if prompt_has_images(prompt) and not self.supports_images:
            return Completion(error=f"{self.spec} is a text-only backend; this item has images")
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._run, prompt, params)

    async def aclose(self) -> None:
        self._pool.shutdown(wait=False)


def _is_vision(path: str) -> bool:
    try:
        from transformers import AutoConfig

        cfg = AutoConfig.from_pretrained(path, local_files_only=True)
    except (ImportError, OSError, ValueError):
        return False  # the text path below reports what is wrong
    return getattr(cfg, "vision_config", None) is not None


def _load_vision(spec: str, path: str) -> tuple[Any, Any]:
    try:
        from transformers import AutoModelForImageTextToText, AutoProcessor
    except ImportError as e:
        raise ModelError("vision models on the hf backend need transformers>=4.46") from e
    try:
        processor = AutoProcessor.from_pretrained(path, local_files_only=True)
        model = AutoModelForImageTextToText.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError) as e:
        raise ModelError(f"{spec}: cannot load a local vision model from {path!r}: {e}") from e
    return model, processor
