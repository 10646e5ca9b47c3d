"""R-Bench's Hub release (``Benchmark.releases``)."""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "rbench", "R-Bench/R-Bench",
    revision="main",  # TODO(pin): full commit sha from the real Hub (last seen short id c0e92a6, unverified)
    configs=("rbench-t_en", "rbench-t_zh", "rbench-m_en", "rbench-m_zh"),
    homepage="https://huggingface.co/datasets/R-Bench/R-Bench")
