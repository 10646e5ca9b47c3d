"""FineReason's published generation settings (``--settings paper``)."""

from __future__ import annotations

from ...core.presets import Preset

SETTINGS = {
    "paper": Preset(
        "paper", {"max_tokens": 2048, "temperature": 0.0},
        "official code: open models on vLLM, greedy; README example --max_output_length 2048",
        ("The paper states no decoding settings. The official code runs open models greedily (temperature 0) "
         "with max_tokens 512 by default, while its README example uses 2048 (used here).",
         "API models used the provider's default sampling (no temperature sent): use --settings paper-api."),
    ),
    "paper-api": Preset(
        "paper-api", {"max_tokens": 2048, "temperature": None},
        "official code: API models with provider default sampling",
        ("The official code never passes its temperature field to the API; max tokens as in 'paper'.",),
    ),
}
