"""MATH's generation settings as FineReason evaluated its checkpoints (``--settings paper``)."""

from __future__ import annotations

from ...core.presets import Preset

SETTINGS = {
    "paper": Preset(
        "paper", {"temperature": 0.6, "top_p": 0.95, "max_tokens": 1024},
        "FineReason Sec. 5.1 (max completion length 1024 in training and evaluation); temperature/top-p: "
        "open-r1's lighteval settings of Feb. 2025 (README), the framework the paper trains with (App. A.6)",
        ("The paper states only the 1,024-token limit; temperature 0.6 / top-p 0.95 are open-r1's evaluation "
         "defaults, an assumption.", "One sample per problem; the paper does not say how many were drawn."),
    ),
}
