"""FineReason's training data on the Hub (``Benchmark.releases``): the math half of its mix
(``finereason export hub:metamathqa``); pulled only by name."""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "metamathqa", "meta-math/MetaMathQA",
    revision="main",  # TODO(pin): full commit sha from the real Hub
    configs=("default",),
    homepage="https://huggingface.co/datasets/meta-math/MetaMathQA", pull_all=False)
