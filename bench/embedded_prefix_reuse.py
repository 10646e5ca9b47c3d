"""What the embedded engine's deterministic prefix reuse costs: prompt tokens evaluated on a job's prompts.

llama-cpp-python reuses the longest prefix the previous request left in the KV cache, which made greedy text
depend on the request before (the rest of the prompt is cut into other chunks). ``LlamaEngine`` keeps only whole
``CHUNK``-token chunks the previous prompt evaluated from position 0 (``AlignedPrefix``). This prints, for the
first N prompts of a KOR-Bench subset run one after another (the README's job: ``korbench:operation --limit 10``),
the prompt tokens evaluated with no reuse, with llama-cpp-python's reuse and with the aligned reuse; each
request generates one token, so only prefill is measured, and the counts do not depend on the machine's load.

    python bench/embedded_prefix_reuse.py [--subset operation] [--items 10]

Measured 2026-12-02 (operation, 10 items): 2,960 prompt tokens; llama-cpp-python's reuse evaluated 890, the
aligned reuse 1,168 (192-256 of each prompt's ~220 shared tokens kept), no reuse all 2,960. At the ~200 prompt
tokens/s of 2 vCPUs that is +1.4 s against the old engine on a job whose 2,560 generated tokens take ~49 s
(19 ms each): about 2%; no reuse at all would cost +10.4 s (about 18%).
"""

from __future__ import annotations

import argparse
from typing import Any

from reasoneval.core import registry
from reasoneval.core.values import GenParams
from reasoneval.models.llamacpp import CHUNK, LlamaEngine, default_gguf


def _common(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subset", default="operation")
    ap.add_argument("--items", type=int, default=10)
    a = ap.parse_args()
    bench = registry.get("korbench")
    prompts = [bench.prompt(it, "zero-shot") for it in bench.load(a.subset, "zero-shot")[:a.items]]
    engine = LlamaEngine(str(default_gguf()))
    aligned = engine._llm.generate
    seen: list[list[int]] = []
    kept: list[int] = []

    def record(tokens: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(list(tokens))
        out = aligned(tokens, *args, **kwargs)
        kept.append(aligned.kept)
        return out

    engine._llm.generate = record
    for p in prompts:
        engine.generate(p, GenParams(max_tokens=1, temperature=0.0))
    total = sum(map(len, seen))
    anyprefix = [0] + [min(_common(seen[i - 1], seen[i][:-1]), len(seen[i]) - 1) for i in range(1, len(seen))]
    print(f"korbench:{a.subset}, {len(seen)} prompts, {total} prompt tokens")
    print(f"  no reuse:                      {total:6d} evaluated")
    print(f"  llama-cpp-python (any prefix): {total - sum(anyprefix):6d} evaluated (kept {anyprefix})")
    print(f"  aligned to {CHUNK}-token chunks:     {total - sum(kept):6d} evaluated (kept {kept})")


if __name__ == "__main__":
    main()
