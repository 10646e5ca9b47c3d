"""Embedded model throughput: one engine process with all threads vs several single-threaded ones.

Runs the same KOR-Bench prompts greedily through ``LlamaCppBackend(workers=1)`` and ``(workers=N)``,
prints aggregate completion tokens/s of each and whether every output text is identical.

    python bench/embedded_throughput.py [--items 8] [--max-tokens 96] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from reasoneval.core import registry
from reasoneval.core.types import Completion, GenParams
from reasoneval.models.llamacpp import LlamaCppBackend, default_gguf


async def measure(workers: int, prompts: list, params: GenParams) -> tuple[float, int, list[Completion]]:
    backend = LlamaCppBackend("llamacpp/default", default_gguf(), workers=workers)
    await backend.start()
    try:
        t0 = time.perf_counter()
        outs = await asyncio.gather(*(backend.generate(p, params) for p in prompts))
        dt = time.perf_counter() - t0
    finally:
        await backend.aclose()
    toks = sum(c.usage.completion_tokens for c in outs)
    return dt, toks, list(outs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 2))
    a = ap.parse_args()
    bench = registry.get("korbench")
    items = bench.load("operation", "zero-shot")[: a.items]
    prompts = [bench.prompt(it, "zero-shot") for it in items]
    params = GenParams(max_tokens=a.max_tokens, temperature=0.0)
    print(f"{len(prompts)} KOR-Bench operation prompts, greedy, max {a.max_tokens} tokens, {os.cpu_count()} CPUs")
    results = {}
    for w in (1, a.workers):
        dt, toks, outs = asyncio.run(measure(w, prompts, params))
        results[w] = outs
        print(f"workers={w} (threads each {max(1, (os.cpu_count() or 1) // w)}): {toks} tokens in {dt:.1f}s "
              f"= {toks / dt:.1f} tokens/s")
    same = [x.text == y.text for x, y in zip(results[1], results[a.workers], strict=True)]
    print(f"identical greedy outputs: {sum(same)}/{len(same)}")


if __name__ == "__main__":
    main()
