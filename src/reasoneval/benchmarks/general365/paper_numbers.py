"""General365 (2025) Table 1 as printed: accuracy (%) per challenge category and overall, 26 models.

Transcribed from ``shared/specs/general365.md`` §5.1 and checked against the paper text (``shared/seeds/general365.md``).
Columns are the paper's Table 1 order (short names as in ``benchmarks/general365/paper_meta.CATEGORIES``), then
Overall. Reasoning models and chat (non-reasoning) models are the paper's two groups.

Also: the seed counts the paper states (§1.1 of the spec) and the per-category item counts the spec back-solves
from Table 1's rounding (INFERRED; only four categories are pinned down, the rest are lower bounds).
"""

from __future__ import annotations

import re

from ...report.paper_numbers import normalize_model_id, published_rows

TABLE1_COLUMNS: tuple[str, ...] = ("Complex Constraints", "Branching & Enumeration", "Spatial & Temporal",
                                   "Recursive & Backtracking", "Semantic Interference", "Implicit Information",
                                   "Optimal Strategy", "Probability & Uncertainty", "Overall")

# Model  CC  B&E  S&T  R&B  SI  II  OS  P&U  Overall
GENERAL365_TABLE1_REASONING: dict[str, dict[str, float]] = published_rows("""
Gemini-3-Pro                 65.3 64.3 57.6 66.8 55.7 68.8 50.8 54.5 62.8
Gemini-3-Flash               62.9 64.5 56.5 69.3 55.7 62.7 48.3 60.2 60.8
GLM-5-Thinking               63.5 69.1 52.9 68.2 49.2 55.4 51.7 56.8 59.9
GPT-5-Thinking               61.7 65.4 48.6 65.2 57.2 58.5 47.5 59.1 58.6
GPT-5.1-Thinking             61.1 62.9 48.6 64.4 53.4 61.5 47.5 47.7 58.2
Qwen3.5-397B-A17B-Thinking   60.1 62.1 50.0 67.9 50.8 59.2 43.3 59.1 57.7
DeepSeek-V3.2-Speciale       60.4 63.6 52.2 65.8 51.5 51.9 50.0 55.7 57.5
GLM-4.7-Thinking             59.1 63.8 49.7 68.8 49.6 57.3 49.2 58.0 57.4
Qwen3-Max-Thinking           59.4 65.3 51.4 66.8 46.2 60.0 48.3 53.4 57.2
Kimi-K2.5-Thinking           60.0 64.3 46.5 65.2 47.0 54.6 48.3 54.5 56.4
DeepSeek-V3.2-Thinking       57.1 62.5 45.1 64.9 49.2 52.3 48.3 53.4 54.9
Grok-4.1-Fast-Reasoning      56.6 59.9 43.8 62.5 50.8 50.0 39.2 46.6 53.1
Kimi-K2-Thinking             54.9 61.9 44.6 62.5 42.8 53.1 46.7 52.3 53.0
GLM-4.6-Thinking             57.2 59.9 40.8 64.1 48.5 55.4 38.3 43.2 52.9
o4-mini                      54.2 57.7 38.6 62.8 45.5 53.5 40.8 47.7 51.0
LongCat-Flash-Thinking-2601  54.1 61.4 38.3 59.5 45.1 46.2 39.2 51.1 50.8
Gemini-2.5-Pro               50.9 56.1 35.9 57.6 48.1 48.1 34.2 44.3 48.7
Claude-Sonnet-4.5            51.9 55.7 37.2 58.2 47.3 47.7 37.5 35.2 48.6
DeepSeek-V3.1-Thinking       51.3 56.8 38.3 58.4 43.6 42.3 45.8 50.0 48.1
Qwen3-235B-Thinking-2507     50.8 55.1 32.3 60.9 49.2 46.5 41.7 45.5 47.9
LongCat-Flash-Thinking-2509  48.5 54.2 30.7 54.3 44.7 37.3 38.3 39.8 44.4
o3-mini                      47.4 51.1 32.9 54.6 38.6 47.3 28.3 30.7 44.4
Gemini-2.5-Flash             42.8 46.5 28.3 47.8 35.6 33.8 35.8 34.1 39.6
""", TABLE1_COLUMNS)

GENERAL365_TABLE1_CHAT: dict[str, dict[str, float]] = published_rows("""
Qwen3-Max-Instruct           52.0 56.3 33.2 58.2 47.7 48.1 40.8 47.7 48.5
LongCat-Flash-2512           45.3 51.8 26.6 57.6 40.9 34.6 27.5 44.3 41.7
DeepSeek-V3.2-Chat           40.7 46.9 26.1 50.3 37.1 29.6 22.5 35.2 37.6
""", TABLE1_COLUMNS)

GENERAL365_TABLE1: dict[str, dict[str, float]] = {**GENERAL365_TABLE1_REASONING, **GENERAL365_TABLE1_CHAT}

#: stated counts: 365 seeds, 1,095 variants; seeds by answer type
SEEDS, VARIANTS = 365, 1095
SEED_ANSWER_TYPES: dict[str, int] = {"numerical": 238, "select": 46, "text": 81}
#: items per category back-solved from Table 1's rounding (4 items per seed); None: not pinned down
INFERRED_ITEMS: dict[str, int | None] = {
    "Complex Constraints": None, "Branching & Enumeration": None, "Spatial & Temporal": None,
    "Recursive & Backtracking": None, "Semantic Interference": 264, "Implicit Information": 260,
    "Optimal Strategy": 120, "Probability & Uncertainty": 88,
}
#: lower bounds on seeds for the categories the rounding leaves open
INFERRED_MIN_SEEDS: dict[str, int] = {"Recursive & Backtracking": 92, "Branching & Enumeration": 136,
                                      "Spatial & Temporal": 184, "Complex Constraints": 200}

_TAIL = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2})$")


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", _TAIL.sub("", name.strip().lower()))


_KEYS = {_key(n): n for n in GENERAL365_TABLE1}


def general365_model(spec: str) -> str | None:
    """The Table 1 row name for a model id (case, punctuation and a date suffix ignored), or None."""
    for cand in (spec, normalize_model_id(spec)):
        hit = _KEYS.get(_key(cand))
        if hit is not None:
            return hit
    return None
