"""MATH's Hub release, declared by ``Benchmark.releases``.

Which MATH: **MATH-500** (``HuggingFaceH4/MATH-500``, 500 test problems, OpenAI's "Let's Verify Step by Step"
subset, with ``level`` and ``subject``). FineReason (Sec. 5, App. A.6) trains with open-r1 and does not name
its MATH split; open-r1's evaluation at the time (``src/open_r1/evaluate.py``, Feb. 2025) has MATH only as
lighteval's ``math_500`` task on this dataset, scored with math-verify on the boxed answer, and MATH-500 is also
the MATH number DeepSeek reports for the R1-Distill-Qwen models the paper trains. The full 5,000-problem test
set (``EleutherAI/hendrycks_math``, fields ``problem``/``solution``/``level``/``type``) runs with
``--data PATH``.

Pinned commit: the MATH-500 revision pinned by several public evaluation repositories. This machine cannot
reach huggingface.co, so the sha was not checked against the Hub here; ``-O revision=REV`` (``data pull
--revision``) picks another revision (a branch is resolved to its commit, which the run records).
"""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "math", "HuggingFaceH4/MATH-500",
    revision="6e4ed1a2a79af7d8630a6b768ec859cb5af4d3be",
    configs=("default",), homepage="https://huggingface.co/datasets/HuggingFaceH4/MATH-500", split="test")
