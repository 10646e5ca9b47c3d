"""Helpers for the published numbers each benchmark keeps beside its own tables (``benchmarks/<name>/
paper_numbers.py``): a paper table transcribed as text, and model ids as the papers name them.

``normalize_model_id(spec)`` turns a ``--model`` string (``openai/gpt-4o``, ``hf/Qwen/Qwen2.5-7B-Instruct``,
``vllm/meta-llama/Meta-Llama-3.1-8B``...) into the bare lower-cased model name a paper's row is looked up by.
"""

from __future__ import annotations

import re


def published_rows(text: str, columns: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """``name v1 v2 ...`` lines (a paper table as transcribed) -> name -> column -> value."""
    out: dict[str, dict[str, float]] = {}
    for line in text.strip().splitlines():
        name, *vals = line.split()
        assert len(vals) == len(columns), line
        out[name] = dict(zip(columns, (float(v) for v in vals), strict=True))
    return out


_BACKENDS = ("openai-compat", "openai", "llamacpp", "hf", "vllm")
#: a date suffix of a model name (``-2024-05-13``, ``-20240513``)
DATE = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")
_QUANT = re.compile(r"(?:[-.](?:gguf|awq|gptq|fp16|bf16|fp8|int4|int8|q\d(?:_[a-z0-9]+)*))+$")


def normalize_model_id(spec: str) -> str:
    """``openai-compat/gpt-4o@http://h:1/v1`` -> ``gpt-4o``; ``hf/Qwen/Qwen2.5-7B-Instruct`` -> ``qwen2.5-7b-instruct``."""
    s = spec.strip()
    kind, sep, rest = s.partition("/")
    if sep and kind in _BACKENDS:
        s = rest
    s = s.split("@", 1)[0].rstrip("/")
    s = s.rsplit("/", 1)[-1].lower()
    return _QUANT.sub("", s)
