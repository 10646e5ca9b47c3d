"""KOR-Bench's published generation settings (``--settings paper``)."""

from __future__ import annotations

from ...core.presets import Preset

SETTINGS = {
    "paper": Preset(
        "paper", {"max_tokens": 2000, "temperature": 0.0},
        "official repository config/config.yaml (max_tokens 2000, max_rounds 5); the paper gives none",
        ("The paper states no decoding settings; the official code sets only max_tokens=2000. Its API path "
         "sends no temperature (provider defaults) and its vLLM path leaves vLLM's defaults; its HF path is "
         "greedy. Greedy decoding (temperature 0) is used here for every backend.",
         "Self-correction keeps at most 5 rounds, as the official code (not a generation setting)."),
    ),
}
