"""General365's Hub release (``Benchmark.releases``)."""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "general365", "meituan-longcat/General365_Public",
    revision="main",  # TODO(pin): full commit sha from the real Hub
    configs=("default",),
    homepage="https://huggingface.co/datasets/meituan-longcat/General365_Public")
