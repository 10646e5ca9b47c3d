"""FineReason's training data on the Hub (``Benchmark.releases``): the math half of its mix
(``finereason export hub:metamathqa``); pulled only by name.

Pinned commit: the MetaMathQA snapshot ``aa4f34d3...`` seen as the Hub cache folder
(``datasets--meta-math--MetaMathQA/snapshots/<sha>/MetaMathQA-395K.json``) in several independent public
repositories. This machine cannot reach huggingface.co, so the sha was not checked against the Hub here;
``hub:metamathqa@REV`` (``data pull metamathqa --revision REV``) picks another revision, and a sweep's manifests
record the commit used."""

from __future__ import annotations

from ...hub.releases import ReleaseSpec

RELEASE = ReleaseSpec(
    "metamathqa", "meta-math/MetaMathQA",
    revision="aa4f34d3d2d3231299b5b03d9b3e5a20da45aa18",
    configs=("default",),
    homepage="https://huggingface.co/datasets/meta-math/MetaMathQA", pull_all=False,
    local_hint="give `reasoneval finereason export` / `sweep --math` a local copy of MetaMathQA-395K.json "
               "in place of hub:metamathqa")
