"""MMLU's Hub release, declared by ``Benchmark.releases``: ``cais/mmlu``, config
``all``, only its test split's files (the config also holds the 99,842-row auxiliary_train split).

Pinned commit: lighteval's own hf_revision for cais/mmlu, also pinned by several public repositories (14,042
test rows). This machine cannot reach huggingface.co, so the sha was not checked against the Hub here; ``-O
revision=REV`` (``data pull --revision``) picks another revision (a branch is resolved to its commit, which
the run records).
"""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "mmlu", "cais/mmlu",
    revision="c30699e8356da336a370243923dbaf21066bb9fe",
    configs=("all",), homepage="https://huggingface.co/datasets/cais/mmlu", split="test")
