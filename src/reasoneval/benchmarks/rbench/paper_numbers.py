"""R-Bench (Guo et al., 2025) published Top-1 accuracy (%), as printed; transcribed from ``shared/specs/rbench.md``
§4.3-4.5 and checked against the paper text (``shared/seeds/rbench.md``, Tables 5-7).

* Table 5: R-Bench-T and R-Bench-T(zh), zero-shot with CoT.
* Table 6: R-Bench-M and R-Bench-M(zh), zero-shot with CoT.
* Table 7: CoT ablation on R-Bench-T (English): with and without CoT.

``rbench_model(spec, table)`` maps a ``--model`` string to the row name of that table (or None). Names are
compared with punctuation, case, dates (``-20241120``) and version tags (``@0620``) removed, so
``openai/gpt-4o-2024-11-20``, ``gpt-4o`` and ``GPT-4o-20241120`` all meet; the paper's own spelling always works.
"""

from __future__ import annotations

import re

from ...report.paper_numbers import normalize_model_id, published_rows

T_COLUMNS: tuple[str, ...] = ("t_en", "t_zh")
M_COLUMNS: tuple[str, ...] = ("m_en", "m_zh")
COT_COLUMNS: tuple[str, ...] = ("cot", "no-cot")

# Model  R-Bench-T  R-Bench-T(zh)   (API models first; the divider falls before Deepseek-R1)
RBENCH_TABLE5: dict[str, dict[str, float]] = published_rows("""
o1-20241217                69.0 70.1
Gemini-2.0-flash-thinking  68.4 67.5
Doubao1.5pro-20250121      62.0 63.4
o1-preview@20240912        62.3 62.6
o1-mini@20240912           64.0 59.9
Doubao-pro-20241215        60.7 60.8
Claude3.5-sonnet@0620      57.5 57.0
GPT-4o-20241120            53.6 51.6
MiniMax-Text-01            53.8 53.6
GLM-Zero-Preview           53.6 48.6
ERNIE-4.0-8K-Latest        39.7 50.1
Deepseek-R1                61.2 59.3
Deepseek-V3                59.6 56.6
Qwen3-235B-A22B            58.0 58.4
Qwen3-32B                  52.3 54.3
Qwen2.5-72B-Instruct       53.7 52.0
Llama-3.3-70B-Instruct     49.5 47.6
Qwen2.5-32B-Instruct       50.8 49.9
Gemma-2-27b-it             36.0 38.9
Phi-4-14B                  55.3 47.3
Phi-3-14B                  29.5 24.4
Qwen3-8B                   47.5 45.9
InternLM3-8B-Instruct      41.1 45.8
Qwen2.5-7B-Instruct        43.6 44.5
GLM-4-9b-chat              25.6 32.4
Llama-3.1-8B-Instruct      26.1 23.6
Llama-3.2-3B-Instruct      24.2 24.0
""", T_COLUMNS)

# Model  R-Bench-M  R-Bench-M(zh)   (API models first; open-source from Qwen2-VL-72B)
RBENCH_TABLE6: dict[str, dict[str, float]] = published_rows("""
o1-20241217             53.2 55.0
Claude3.5-sonnet@1022   39.7 38.3
Doubao1.5pro-20250121   37.9 42.4
GPT-4o-20241120         33.4 33.2
Gemini-1.5-Pro          35.5 35.9
Qwen2-VL-72B            25.1 25.7
Qwen2-VL-7B             19.6 22.3
LLaVA-OneVision-7B      23.8 23.5
DeepSeek-VL2            21.8 24.4
Llama3.2V-11B-Instruct  20.0 18.6
InternVL-2.5-8B         15.9 17.1
""", M_COLUMNS)

# Model  w CoT  w/o CoT   (R-Bench-T, English)
RBENCH_TABLE7: dict[str, dict[str, float]] = published_rows("""
o1-mini@20240912       64.0 64.0
GPT-4o-20241120        53.6 51.5
LLAMA3.3-70B-Instruct  49.5 47.4
Qwen2.5-32B-Instruct   50.8 44.6
Qwen2.5-7B-Instruct    43.6 42.6
""", COT_COLUMNS)

TABLES: dict[int, dict[str, dict[str, float]]] = {5: RBENCH_TABLE5, 6: RBENCH_TABLE6, 7: RBENCH_TABLE7}

_TAIL = re.compile(r"(?:@\d{4,8}|-\d{8}|-\d{4}-\d{2}-\d{2})$")


def _key(name: str) -> str:
    """Case, punctuation, a trailing date or ``@version`` removed: ``Claude3.5-sonnet@0620`` -> ``claude35sonnet``."""
    s = _TAIL.sub("", name.strip().lower())
    s = re.sub(r"[^a-z0-9]", "", s)
    return s.replace("metallama", "llama")


def rbench_model(spec: str, table: int) -> str | None:
    """The row name in R-Bench Table ``table`` (5, 6 or 7) for a model id, or None."""
    rows = TABLES[table]
    keys = {_key(n): n for n in rows}
    for cand in (spec, normalize_model_id(spec)):
        hit = keys.get(_key(cand))
        if hit is not None:
            return hit
    return None
