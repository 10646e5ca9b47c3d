"""Hugging Face transformers backend (local path; optional extra ``[hf]``). Greedy by default."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..core.types import Completion, GenParams, Prompt, Usage
from .base import ModelError, prompt_has_images


class HFBackend:
    batched = False
    supports_images = False
    max_concurrency = 1

    def __init__(self, spec: str, path: str, model: Any = None, tokenizer: Any = None) -> None:
        self.spec = spec
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
        self.model, self.tok = model, tokenizer
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hf")

    def render(self, prompt: Prompt) -> str:
        if not prompt.is_chat:
            return prompt.text or ""
        msgs = [{"role": m.role, "content": m.content} for m in prompt.messages]
        return str(self.tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True))

    def _run(self, prompt: Prompt, params: GenParams) -> Completion:
        t0 = time.monotonic()
        enc = self.tok(self.render(prompt), return_tensors="pt")
        kw: dict[str, Any] = {"max_new_tokens": params.max_tokens}
        if params.temperature:
            kw.update(do_sample=True, temperature=params.temperature)
            if params.top_p is not None:
                kw["top_p"] = params.top_p
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
        if prompt_has_images(prompt):
            return Completion(error=f"{self.spec} is a text-only backend; this item has images")
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._run, prompt, params)

    async def aclose(self) -> None:
        self._pool.shutdown(wait=False)
