"""R-Bench's published generation settings (``--settings paper``)."""

from __future__ import annotations

from ...core.presets import Preset

SETTINGS = {
    "paper": Preset(
        "paper", {"temperature": 0.0, "max_tokens": 8192},
        "paper Sec. 3.2: open-source models on vLLM / VLMEvalKit, temperature 0, other parameters default",
        ("Max output tokens are not stated in the paper; 8,192 is this harness's choice (raise it with "
         "--max-tokens for long-reasoning models: the report's truncation rate shows when the limit decided).",
         "One greedy run per question is implied; seeds are not stated.",
         "API models used 'official interfaces with default hyperparameters': use --settings paper-api."),
    ),
    "paper-api": Preset(
        "paper-api", {"temperature": None, "max_tokens": 8192},
        "paper Sec. 3.2: API models with default hyperparameters (temperature, reasoning effort not sent)",
        ("Max output tokens are not stated; 8,192 is this harness's choice.",),
    ),
}
