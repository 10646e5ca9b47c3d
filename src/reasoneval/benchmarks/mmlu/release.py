"""MMLU's Hub release, added to ``reasoneval.hub.RELEASES`` when this plugin is imported: ``cais/mmlu``, config
``all``, only its test split's files (the config also holds the 99,842-row auxiliary_train split).

The pin is ``main`` for the reason given in ``reasoneval/hub/releases.py``; every run records the commit
``main`` resolved to, and ``-O revision=SHA`` pins one.
"""

from __future__ import annotations

from ...hub.releases import RELEASES, ReleaseSpec

RELEASE = ReleaseSpec(
    "mmlu", "cais/mmlu",
    revision="main",  # TODO(pin): full commit sha from the real Hub
    configs=("all",), homepage="https://huggingface.co/datasets/cais/mmlu", split="test")
RELEASES.setdefault(RELEASE.benchmark, RELEASE)
