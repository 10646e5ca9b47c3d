"""The public releases reasoneval can fetch from the Hugging Face Hub, with their pinned revisions.

REVISION PINS: each ``revision`` below must be filled with the full 40-hex commit sha of the release that
was evaluated, read from the real Hub (``https://huggingface.co/datasets/<repo>/commits/main``). The machine
this module was written on could not reach huggingface.co, so the pins are ``"main"``; every run records the
commit sha the Hub resolved ``main`` to (the ``X-Repo-Commit`` / API ``sha``), so a run is always tied to
exact bytes even before the pins are filled in.

Benchmark plugins declare their own release: their module adds a ``ReleaseSpec`` to ``RELEASES`` when it is
imported, and ``release(name)`` imports the benchmark named ``name`` (through the registry) before giving up. Override per run with ``-O revision=REV`` (a benchmark
option, part of the run id) or per pull with ``reasoneval data pull --revision REV``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ReleaseSpec:
    benchmark: str
    repo_id: str
    revision: str  # pinned revision: a commit sha (preferred) or a branch/tag name
    configs: tuple[str, ...]  # HF dataset configs; ("default",) for a single-config dataset
    homepage: str
    pull_all: bool = True  # pulled by a bare `reasoneval data pull` (training sets are pulled only by name)
    split: str | None = None  # only this split's files of each config (None: every file of the config)

    def revision_for(self, override: str | None = None) -> str:
        return override or self.revision

    def config_for(self, config: str | None) -> str:
        if config is None:
            if len(self.configs) != 1:
                raise ValueError(f"{self.repo_id} has several configs ({', '.join(self.configs)}); name one")
            return self.configs[0]
        if config not in self.configs:
            raise ValueError(f"{self.repo_id} has no config {config!r}; known: {', '.join(self.configs)}")
        return config


RELEASES: dict[str, ReleaseSpec] = {
    "rbench": ReleaseSpec(
        "rbench", "R-Bench/R-Bench",
        revision="main",  # TODO(pin): full commit sha from the real Hub (last seen short id c0e92a6, unverified)
        configs=("rbench-t_en", "rbench-t_zh", "rbench-m_en", "rbench-m_zh"),
        homepage="https://huggingface.co/datasets/R-Bench/R-Bench"),
    "general365": ReleaseSpec(
        "general365", "meituan-longcat/General365_Public",
        revision="main",  # TODO(pin): full commit sha from the real Hub
        configs=("default",),
        homepage="https://huggingface.co/datasets/meituan-longcat/General365_Public"),
    # training data, not a benchmark: the math half of FineReason's mix (`finereason export hub:metamathqa`)
    "metamathqa": ReleaseSpec(
        "metamathqa", "meta-math/MetaMathQA",
        revision="main",  # TODO(pin): full commit sha from the real Hub
        configs=("default",),
        homepage="https://huggingface.co/datasets/meta-math/MetaMathQA", pull_all=False),
}


def release(benchmark: str) -> ReleaseSpec:
    if benchmark not in RELEASES:  # a benchmark plugin adds its release to RELEASES when it is imported
        from ..core import registry

        with contextlib.suppress(KeyError, ImportError):  # an unknown benchmark: the error below
            registry.get(benchmark)
    try:
        return RELEASES[benchmark]
    except KeyError:
        raise ValueError(f"no Hub release known for {benchmark!r}; known: {', '.join(sorted(RELEASES))}") from None
