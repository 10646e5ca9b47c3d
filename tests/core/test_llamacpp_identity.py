"""The embedded engine's greedy text depends only on the request: the same prompt and settings give the same
text whatever ran before it (a resumed run stores what an uninterrupted one stores).

llama-cpp-python reuses the KV-cache prefix the previous request left behind; a prompt evaluated from another
position is cut into other chunks, which round differently, so on these KOR-Bench prompts 7 of 10 greedy
answers changed with the request before them. Both engines now evaluate every prompt from an empty cache.
"""

from __future__ import annotations

import pytest

pytest.importorskip("llama_cpp")

from reasoneval.core import registry  # noqa: E402
from reasoneval.core.values import GenParams, Prompt  # noqa: E402
from reasoneval.models.base import ModelError  # noqa: E402
from reasoneval.models.llamacpp import CHUNK, LlamaEngine, default_gguf  # noqa: E402

pytestmark = pytest.mark.llamacpp

PARAMS = GenParams(max_tokens=48, temperature=0.0)


def _gguf() -> str:
    try:
        return str(default_gguf())
    except ModelError as e:
        pytest.skip(str(e))


def _prompts() -> list[Prompt]:
    # operation/2-5 share their rule's long instruction prefix; before the fix all four changed with the order
    bench = registry.get("korbench")
    return [bench.prompt(it, "zero-shot") for it in bench.load("operation", "zero-shot")[1:5]]


def test_same_prompt_same_text_whatever_ran_before() -> None:
    prompts = _prompts()
    engine = LlamaEngine(_gguf(), n_threads=2)
    forward = []
    for p in prompts:  # each after the one before it
        forward.append(engine.generate(p, PARAMS).text)
        kept = engine._llm.generate.kept
        assert kept % CHUNK == 0 and (kept >= 3 * CHUNK or len(forward) == 1)  # the rule's ~200 tokens reused
    backward = [engine.generate(p, PARAMS).text for p in reversed(prompts)][::-1]  # each after the one after it
    assert backward == forward
    alone = LlamaEngine(_gguf(), n_threads=2).generate(prompts[1], PARAMS)  # B alone, on a fresh engine
    assert alone.text == forward[1]  # and after A (forward) and after C (backward)
    assert all(t.strip() for t in forward)


def test_batched_engine_alone_after_another_request_is_the_fresh_one_stream_text() -> None:
    from reasoneval.models.llamacpp_batched import BatchedLlamaEngine

    a, b = _prompts()[:2]
    fresh = LlamaEngine(_gguf(), n_threads=2).generate(b, PARAMS)
    batched = BatchedLlamaEngine(_gguf(), n_threads=2, slots=2, slot_ctx=2048)
    batched.generate(a, PARAMS)
    got = batched.generate(b, PARAMS)  # the slot A used (and its prefix) is emptied first
    assert (got.text, got.finish_reason, got.usage) == (fresh.text, fresh.finish_reason, fresh.usage)
