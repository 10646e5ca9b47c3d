"""Micro-batching for engines that want the whole request list at once (vLLM, HF batch)."""

from __future__ import annotations

import asyncio

from ..core.values import Completion, GenParams, Prompt
from ..models.base import BatchBackend


class Batcher:
    def __init__(self, backend: BatchBackend, max_batch: int = 4096, window_s: float = 0.05) -> None:
        self.backend = backend
        self.max_batch = max_batch
        self.window_s = window_s
        self._pending: list[tuple[Prompt, GenParams, asyncio.Future[Completion]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        fut: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._pending.append((prompt, params, fut))
        if len(self._pending) >= self.max_batch:
            await self._flush()
        elif self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._delayed())
        return await fut

    async def _delayed(self) -> None:
        await asyncio.sleep(self.window_s)
        await self._flush()

    async def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            outs = await self.backend.generate_batch([(p, g) for p, g, _ in batch])
        except Exception as e:  # the engine failed: every request of the batch is an error, none is lost
            outs = [Completion(error=f"{e.__class__.__name__}: {e}") for _ in batch]
        for (_, _, fut), out in zip(batch, outs, strict=True):
            if not fut.done():
                fut.set_result(out)
