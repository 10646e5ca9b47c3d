"""General365's published generation settings (``--settings paper`` / ``paper-chat``)."""

from __future__ import annotations

from ...core.presets import Preset

_CAPACITY = ("The paper sets the maximum output length to each model's capacity; 65,536 tokens here (set "
             "--max-tokens to the model's real limit; a server may refuse a limit above its context).")

SETTINGS = {
    "paper": Preset(
        "paper", {"temperature": 1.0, "top_p": 1.0, "max_tokens": 65536, "reasoning_effort": "high"},
        "paper Sec. 3.1: reasoning models T=1.0, top-p 1.0, top-k unconstrained, highest reasoning effort",
        (_CAPACITY,
         "'Highest available reasoning effort' is sent as reasoning_effort=high (OpenAI-compatible) or the "
         "largest thinking budget below max_tokens (Anthropic); a model with a higher level needs --reasoning-effort.",
         "For non-reasoning (chat) models the paper uses T=0.7: use --settings paper-chat.",
         "Samples per item and the system prompt are not stated; one sample, no system prompt here."),
    ),
    "paper-chat": Preset(
        "paper-chat", {"temperature": 0.7, "top_p": 1.0, "max_tokens": 65536},
        "paper Sec. 3.1: non-reasoning models T=0.7, top-p 1.0, top-k unconstrained",
        (_CAPACITY, "Samples per item and the system prompt are not stated; one sample, no system prompt here."),
    ),
}
