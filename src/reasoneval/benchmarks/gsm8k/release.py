"""GSM8K's Hub release, added to ``reasoneval.hub.RELEASES`` when this plugin is imported.

The pin is ``main`` for the reason given in ``reasoneval/hub/releases.py`` (this machine cannot reach
huggingface.co); every run records the commit ``main`` resolved to, and ``-O revision=SHA`` pins one.
"""

from __future__ import annotations

from ...hub.releases import RELEASES, ReleaseSpec

RELEASE = ReleaseSpec(
    "gsm8k", "openai/gsm8k",
    revision="main",  # TODO(pin): full commit sha from the real Hub
    configs=("main",), homepage="https://huggingface.co/datasets/openai/gsm8k", split="test")
RELEASES.setdefault(RELEASE.benchmark, RELEASE)
