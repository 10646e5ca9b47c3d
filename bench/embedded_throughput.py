"""Embedded model throughput: one stream against batched decoding (and, optionally, several processes).

Runs the same KOR-Bench operation prompts greedily through ``LlamaCppBackend`` one at a time (the default
engine), then through the batched engine (``llamacpp/default?batch=B``: B sequences decoded together in one
llama.cpp context) for each B, and prints aggregate completion tokens/s of each, the speed-up over one
stream and how many greedy output texts are identical to the one-stream engine's. Every request is sent at
once (the batched backend admits B at a time and the next takes a slot the moment one frees).

    python bench/embedded_throughput.py [--items 16] [--max-tokens 128] [--batch 2,4,8] [--workers 0]
                                        [--rounds 1]

``--rounds`` repeats the whole comparison and keeps each engine's best time (the CPUs may be shared).
``--workers N`` (N > 1) also measures N single-threaded engine processes, the older multi-process approach.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from reasoneval.core import registry
from reasoneval.core.types import Completion, GenParams, Prompt
from reasoneval.models.llamacpp import LlamaCppBackend, default_gguf


async def measure(prompts: list[Prompt], params: GenParams, *, workers: int = 1,
                  batch: int = 0) -> tuple[float, int, list[Completion]]:
    backend = LlamaCppBackend("llamacpp/default", default_gguf(), workers=workers, batch=batch)
    await backend.start()
    try:
        t0 = time.perf_counter()
        outs = await asyncio.gather(*(backend.generate(p, params) for p in prompts))
        dt = time.perf_counter() - t0
    finally:
        await backend.aclose()
    errors = [c.error for c in outs if c.error]
    if errors:
        raise SystemExit(f"{len(errors)} requests failed: {errors[0]}")
    return dt, sum(c.usage.completion_tokens for c in outs), list(outs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--batch", default="2,4,8", help="comma-separated batch sizes")
    ap.add_argument("--workers", type=int, default=0, help="also N single-threaded engine processes (N > 1)")
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    bench = registry.get("korbench")
    items = bench.load("operation", "zero-shot")[: a.items]
    prompts = [bench.prompt(it, "zero-shot") for it in items]
    params = GenParams(max_tokens=a.max_tokens, temperature=0.0)
    print(f"{len(prompts)} KOR-Bench operation prompts, greedy, max {a.max_tokens} tokens, {os.cpu_count()} CPUs")
    configs: list[tuple[str, dict[str, int]]] = [("one stream", {})]
    configs += [(f"batch={b}", {"batch": int(b)}) for b in a.batch.split(",") if b.strip()]
    if a.workers > 1:
        configs.append((f"workers={a.workers}", {"workers": a.workers}))
    best: dict[str, tuple[float, int, list[Completion]]] = {}
    for _ in range(max(1, a.rounds)):
        for name, kw in configs:
            got = asyncio.run(measure(prompts, params, **kw))
            if name not in best or got[0] < best[name][0]:
                best[name] = got
    dt1, tok1, ref = best["one stream"]
    for name, _ in configs:
        dt, toks, outs = best[name]
        same = sum(x.text == y.text and x.finish_reason == y.finish_reason for x, y in zip(ref, outs, strict=True))
        differ = [i for i, (x, y) in enumerate(zip(ref, outs, strict=True)) if x.text != y.text]
        print(f"{name:>12}: {toks:5d} tokens in {dt:6.1f}s = {toks / dt:6.1f} tokens/s ({toks / dt / (tok1 / dt1):.2f}x); identical to one stream {same}/{len(outs)}"
              + (f", differ: items {differ}" if differ else ""))


if __name__ == "__main__":
    main()
