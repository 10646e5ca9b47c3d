"""KOR-Bench's published numbers, which the HTML report puts beside ours (:mod:`.paper_compare`) and the
real-life figure draws in grey.

Source: KOR-Bench (Ma et al., ICLR 2025), Table 2 (chat models zero-shot, base models three-shot) and Table 3
(complex tasks), as transcribed in ``shared/specs/korbench.md`` §7. Model names are spelled as in the paper.

* Table 2 columns: Overall, Operation, Logic, Cipher, Puzzle, Counterfactual, plus ``Counterfactual RL`` (the
  real-life rate printed in parentheses; lower is better).
* Table 3 columns: Overall, Multi-Q, Multi-R, Multi-RQ (accuracy), plus ``<col> pass`` (the sub-problem pass
  rate printed in parentheses; Multi-R has none).

``paper_model(spec)`` maps a ``--model`` string (``openai/gpt-4o``, ``hf/Qwen/Qwen2.5-7B-Instruct``,
``vllm/meta-llama/Meta-Llama-3.1-8B``...) to a paper row name, or None.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...report.paper_numbers import DATE, normalize_model_id, published_rows

TABLE2_COLUMNS: tuple[str, ...] = ("Overall", "Operation", "Logic", "Cipher", "Puzzle", "Counterfactual",
                                   "Counterfactual RL")
TABLE3_COLUMNS: tuple[str, ...] = ("Overall", "Overall pass", "Multi-Q", "Multi-Q pass", "Multi-R", "Multi-RQ",
                                   "Multi-RQ pass")


# name  Overall  Operation  Logic  Cipher  Puzzle  Counterfactual  (real-life rate)
KORBENCH_TABLE2_CHAT: dict[str, dict[str, float]] = published_rows("""
O1-preview-2024-09-12         72.88 88.80 63.20 82.80 36.80 92.80  5.20
O1-mini-2024-09-12            70.16 82.80 61.20 79.60 35.60 91.60  5.60
Claude-3.5-sonnet-20240620    58.96 88.40 67.20 33.20 14.80 91.20  6.00
GPT-4o-2024-05-13             58.00 86.00 52.40 42.80 16.80 92.00  4.80
Meta-Llama-3.1-405B-Instruct  55.36 87.82 56.80 31.20 13.93 87.60  9.20
Qwen2.5-32B-Instruct          54.72 93.20 56.80 26.80  8.00 88.80  7.60
GPT-4-Turbo-2024-04-09        53.52 90.40 54.00 23.20 12.80 87.20  9.60
Mistral-Large-Instruct-2407   53.12 86.80 51.20 22.80 15.60 89.20  6.80
Qwen2.5-72B-Instruct          52.16 83.60 53.20 26.40 10.40 87.20  8.40
Meta-Llama-3.1-70B-Instruct   50.00 84.80 49.20 20.40  7.60 88.00  8.40
Yi-Large                      50.00 84.00 47.60 20.80 11.20 86.40 11.20
Qwen2.5-14B-Instruct          49.36 84.40 50.00 14.40  9.20 88.80  7.60
Meta-Llama-3-70B-Instruct     49.20 82.40 46.40 20.40  7.20 89.60  5.20
Doubao-Pro-128k               48.08 85.20 46.40 11.20  7.60 90.00  5.60
DeepSeek-V2.5                 47.76 74.80 48.00 18.00 11.20 86.80 10.00
Qwen2-72B-Instruct            47.04 78.00 45.60 12.80  9.20 89.60  7.20
Gemma-2-27b-It                44.48 73.60 49.20  7.20  5.20 87.20  9.20
Phi-3.5-MoE-Instruct          43.92 76.40 39.60 10.80  4.80 88.00  6.40
Gemini-1.5-Pro                43.36 81.60 46.40  6.80 10.80 71.20  8.40
Gemma-2-9b-It                 41.60 70.00 39.60  6.40  6.40 85.60  9.20
Yi-1.5-34B-Chat               39.76 79.60 24.40  8.00  3.20 83.60  6.80
Phi-3.5-mini-Instruct         39.04 69.20 31.20  8.80  3.60 82.40  9.60
Qwen2.5-7B-Instruct           38.56 55.60 39.20  6.40  6.00 85.60  8.80
Meta-Llama-3.1-8B-Instruct    37.20 60.40 28.80  8.40  2.00 86.40  8.00
Yi-1.5-9B-Chat                35.20 60.40 23.60  7.60  3.60 80.80 10.00
Meta-Llama-3-8B-Instruct      32.80 46.00 20.00  7.60  4.00 86.40  6.40
C4ai-Command-R-Plus-08-2024   32.72 30.00 34.40  6.80  2.00 90.40  5.60
Yi-1.5-6B-Chat                32.48 67.20 10.80  4.40  2.80 77.20 12.80
C4ai-Command-R-08-2024        31.12 29.60 28.80  5.20  3.60 88.40  8.00
Qwen2-7B-Instruct             30.72 28.80 28.00  3.20  4.80 88.80  7.20
Gemma-2-2b-It                 24.32 19.20 15.20  3.60  0.40 83.20  6.80
Mistral-7B-Instruct-v0.3      24.16 13.20 19.20  4.80  2.40 81.20 11.20
Qwen2.5-1.5B-Instruct         20.40 14.80 10.00  0.80  0.80 75.60  9.60
OLMo-7B-0724-Instruct-hf      18.48 13.20  6.40  1.20  1.20 70.40  8.80
MAP-Neo-7B-Instruct-v0.1      18.16 38.40 10.40  2.00  1.60 38.40  9.20
Qwen2-1.5B-Instruct           14.32  6.80  6.80  0.40  0.80 56.80 14.40
Qwen2.5-0.5B-Instruct          9.04  4.40  3.20  0.00  0.80 36.80 14.00
Qwen2-0.5B-Instruct            3.52  0.80  2.00  1.60  0.40 12.80 14.40
""", TABLE2_COLUMNS)

KORBENCH_TABLE2_BASE: dict[str, dict[str, float]] = published_rows("""
Meta-Llama-3.1-405B  39.68 39.20 51.20 11.20 8.40 88.40  6.00
Qwen2.5-32B          37.28 38.40 50.00  9.20 6.80 82.00 11.60
Qwen2.5-72B          37.28 38.80 49.20 10.80 5.20 82.40 10.80
Meta-Llama-3-70B     35.20 30.00 44.40  7.60 8.00 86.00  6.00
Qwen2-72B            34.32 34.00 45.60  7.60 4.80 79.60 12.40
Meta-Llama-3.1-70B   33.84 24.80 46.40  7.20 7.60 83.20 10.00
Gemma-2-27b          33.36 26.40 42.40  7.60 5.60 84.80  7.60
Qwen2.5-14B          33.28 30.80 44.80  6.40 5.20 79.20 14.00
Yi-1.5-34B           30.08 24.80 39.20  7.20 3.20 76.00 14.40
Yi-1.5-9B            29.20 22.00 39.20  8.00 2.80 74.00 11.20
Qwen2.5-7B           28.80 24.40 34.00  8.00 2.00 75.60 13.60
Qwen2-7B             27.44 20.40 30.00  6.40 4.00 76.40 14.80
Meta-Llama-3.1-8B    26.00 14.00 32.00  5.20 3.20 75.60 12.40
Gemma-2-9b           25.52 16.80 35.20  6.00 2.80 66.80 14.80
Meta-Llama-3-8B      24.96 14.40 28.00  6.00 2.00 74.40 12.80
Mistral-7B-v0.1      21.60 11.20 28.80  2.80 2.40 62.80 18.80
Yi-1.5-6B            20.88 11.60 27.20  3.20 2.80 59.60 22.40
MAP-Neo-7B           15.60  7.20 22.00  4.00 0.80 44.00 31.60
Qwen2.5-1.5B         15.12 12.00 16.00  1.60 1.60 44.40 34.00
OLMo-7B-0724-hf      14.80  4.80 22.00  1.20 0.80 45.20 19.60
Gemma-2-2b           13.20  7.20 15.60  1.60 0.40 41.20 22.80
Qwen2-1.5B           12.32  8.80 15.20  0.80 1.20 35.60 36.80
Qwen2-0.5B            9.92  5.20 12.40  0.80 0.40 30.80 22.80
Qwen2.5-0.5B          9.12  6.00 10.80  0.40 1.20 27.20 26.40
""", TABLE2_COLUMNS)

# name  Overall (pass)  Multi-Q (pass)  Multi-R  Multi-RQ (pass)
KORBENCH_TABLE3: dict[str, dict[str, float]] = published_rows("""
Claude-3.5-sonnet-20240620   31.37 43.24 23.40 42.25 45.20 25.50 42.28
GPT-4o-2024-05-13            21.80 29.40 15.00 25.39 31.20 19.20 31.62
Yi-Large                     22.73 31.11 14.90 29.09 33.40 19.90 30.85
Deepseek-V2.5                21.23 31.12 16.50 31.88 28.70 18.50 32.77
Mistral-Large-Instruct-2407  18.27 26.31 14.80 27.91 25.10 14.90 25.92
C4ai-Command-R-Plus-08-2024   9.53 17.37 11.00 22.94  9.60  8.00 19.58
Qwen2-72B-Instruct           17.73 27.03 14.70 28.46 24.60 13.90 28.03
Qwen2.5-72B-Instruct         13.53 21.26 13.30 25.58 16.00 11.30 22.20
Meta-Llama-3.1-70B-Instruct  17.60 24.71 14.70 24.59 23.90 14.20 25.63
Qwen2.5-32B-Instruct         23.97 33.96 20.00 35.13 33.40 19.90 33.33
C4ai-Command-R-08-2024       16.13 23.64 10.40 21.79 26.10 11.90 23.03
Yi-1.5-9B-Chat                4.10  9.47  5.30 16.16  4.90  2.10  7.33
Meta-Llama-3.1-8B-Instruct    7.00  9.06  7.60 11.32  8.10  5.30  7.77
Qwen2.5-7B-Instruct           6.77 12.34  5.40 13.79  9.80  5.10 13.42
Qwen2-7B-Instruct             7.47 14.03  7.50 17.87  8.90  6.00 15.33
Mistral-7B-Instruct-v0.3      9.57 15.52  4.20 13.36 17.70  6.80 15.50
""", TABLE3_COLUMNS)

# Common API / hub model ids -> paper row names (lower-cased keys). Paper names themselves, names without the
# ``Meta-`` prefix and names without a date suffix are matched automatically (see ``paper_model``).
MODEL_ALIASES: dict[str, str] = {
    "gpt-4o": "GPT-4o-2024-05-13",
    "gpt-4o-2024-05-13": "GPT-4o-2024-05-13",
    "chatgpt-4o-latest": "GPT-4o-2024-05-13",
    "gpt-4-turbo": "GPT-4-Turbo-2024-04-09",
    "gpt-4-turbo-2024-04-09": "GPT-4-Turbo-2024-04-09",
    "o1-preview": "O1-preview-2024-09-12",
    "o1-mini": "O1-mini-2024-09-12",
    "claude-3-5-sonnet-20240620": "Claude-3.5-sonnet-20240620",
    "claude-3.5-sonnet-20240620": "Claude-3.5-sonnet-20240620",
    "anthropic.claude-3-5-sonnet-20240620-v1:0": "Claude-3.5-sonnet-20240620",
    "claude-3-5-sonnet": "Claude-3.5-sonnet-20240620",
    "qwen2.5-7b-instruct": "Qwen2.5-7B-Instruct",
    "qwen/qwen2.5-7b-instruct": "Qwen2.5-7B-Instruct",
    "meta-llama-3.1-8b-instruct": "Meta-Llama-3.1-8B-Instruct",
    "llama-3.1-8b-instruct": "Meta-Llama-3.1-8B-Instruct",
    "llama3.1-8b-instruct": "Meta-Llama-3.1-8B-Instruct",
    "llama3.1:8b-instruct": "Meta-Llama-3.1-8B-Instruct",
    "qwen2.5-7b": "Qwen2.5-7B",
    "meta-llama-3.1-8b": "Meta-Llama-3.1-8B",
    "llama-3.1-8b": "Meta-Llama-3.1-8B",
    "llama-3.1-405b-instruct": "Meta-Llama-3.1-405B-Instruct",
    "llama-3.1-70b-instruct": "Meta-Llama-3.1-70B-Instruct",
    "deepseek-chat": "DeepSeek-V2.5",
    "mistral-large-2407": "Mistral-Large-Instruct-2407",
    "command-r-plus-08-2024": "C4ai-Command-R-Plus-08-2024",
    "command-r-08-2024": "C4ai-Command-R-08-2024",
    "gemini-1.5-pro": "Gemini-1.5-Pro",
    "yi-large": "Yi-Large",
    "doubao-pro-128k": "Doubao-Pro-128k",
}

def _all_names() -> list[str]:
    return [*KORBENCH_TABLE2_CHAT, *KORBENCH_TABLE2_BASE, *KORBENCH_TABLE3]


def _lookup() -> dict[str, str]:
    table: dict[str, str] = {}
    for name in _all_names():
        low = name.lower()
        for k in (low, DATE.sub("", low), low.removeprefix("meta-")):
            table.setdefault(k, name)
    # Table 3 spells DeepSeek as "Deepseek": one canonical name across tables
    table["deepseek-v2.5"] = "DeepSeek-V2.5"
    table.update(MODEL_ALIASES)
    return table


_LOOKUP = _lookup()


def _same_snapshot(asked: str, name: str) -> bool:
    """A dated model id matches only a paper row of the same date (``gpt-4o-2024-08-06`` is not the paper's
    GPT-4o-2024-05-13); an undated id (``gpt-4o``) may stand for the paper's dated row."""
    d = DATE.search(asked)
    if d is None:
        return True
    mine = d.group(0).replace("-", "")
    theirs = DATE.search(name.lower())
    return theirs is not None and theirs.group(0).replace("-", "") == mine


def paper_model(spec: str) -> str | None:
    """The paper row name for a model id, or None. A dated snapshot matches only its own date."""
    full = spec.strip().lower()
    if full in _LOOKUP:
        return _LOOKUP[full] if _same_snapshot(full, _LOOKUP[full]) else None
    n = normalize_model_id(spec)
    got = _LOOKUP.get(n)
    if got is None:
        got = _LOOKUP.get(DATE.sub("", n))
    return got if got is not None and _same_snapshot(n, got) else None


@dataclass(frozen=True)
class PaperRow:
    table: str  # "Table 2 (chat, zero-shot)" | "Table 2 (base, three-shot)" | "Table 3"
    model: str
    values: dict[str, float]


def korbench_row(spec: str, table: int, base: bool | None = None) -> PaperRow | None:
    """The KOR-Bench paper row for a model: ``table`` 2 or 3; ``base`` picks Table 2's base (three-shot) half.

    With ``base=None`` either half of Table 2 is returned, whichever holds the model.
    """
    name = paper_model(spec)
    if name is None:
        return None
    if table == 3:
        hit = KORBENCH_TABLE3.get("Deepseek-V2.5" if name == "DeepSeek-V2.5" else name)
        return PaperRow("Table 3", name, hit) if hit else None
    if base is not True and name in KORBENCH_TABLE2_CHAT:
        return PaperRow("Table 2 (chat, zero-shot)", name, KORBENCH_TABLE2_CHAT[name])
    if base is not False and name in KORBENCH_TABLE2_BASE:
        return PaperRow("Table 2 (base, three-shot)", name, KORBENCH_TABLE2_BASE[name])
    return None
