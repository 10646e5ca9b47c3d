"""GSM8K's Hub release, declared by ``Benchmark.releases``.

Pinned commit: inspect_evals' GSM8K pin; seen as a Hub snapshot folder in several public repositories. This
machine cannot reach huggingface.co, so the sha was not checked against the Hub here; ``-O revision=REV``
(``data pull --revision``) picks another revision (a branch is resolved to its commit, which the run records).
"""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "gsm8k", "openai/gsm8k",
    revision="cc7b047b6e5bb11b4f1af84efc572db110a51b3c",
    configs=("main",), homepage="https://huggingface.co/datasets/openai/gsm8k", split="test")
