"""The public releases reasoneval can fetch from the Hugging Face Hub, with their pinned revisions.

REVISION PINS: each ``revision`` below must be filled with the full 40-hex commit sha of the release that
was evaluated, read from the real Hub (``https://huggingface.co/datasets/<repo>/commits/main``). The machine
this module was written on could not reach huggingface.co, so the pins are ``"main"``; every run records the
commit sha the Hub resolved ``main`` to (the ``X-Repo-Commit`` / API ``sha``), so a run is always tied to
exact bytes even before the pins are filled in.

Each benchmark declares its own releases (``Benchmark.releases()``, name -> ``ReleaseSpec``, in its folder's
``release.py``); ``release(name)`` and ``all_releases()`` ask the registered benchmarks. Override per run with
``-O revision=REV`` (a benchmark option, part of the run id) or per pull with
``reasoneval data pull --revision REV``.
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
    #: how to use a local copy instead, as the offline hint says it (None: ``reasoneval run NAME --data PATH``,
    #: right for a benchmark's test data; a training set names the command that reads it)
    local_hint: str | None = None

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


#: the releases known so far: each benchmark's ``Benchmark.releases()``, read by ``all_releases`` / ``release``
RELEASES: dict[str, ReleaseSpec] = {}


def all_releases() -> dict[str, ReleaseSpec]:
    """Every release the registered benchmarks declare (``Benchmark.releases()``), by name."""
    from ..core import registry

    for name in registry.names():
        with contextlib.suppress(Exception):  # a plugin that cannot load has no release to offer
            for key, spec in registry.get(name).releases().items():
                RELEASES.setdefault(key, spec)
    return RELEASES


def release(benchmark: str) -> ReleaseSpec:
    if benchmark not in RELEASES:
        all_releases()
    try:
        return RELEASES[benchmark]
    except KeyError:
        raise ValueError(f"no Hub release known for {benchmark!r}; known: {', '.join(sorted(RELEASES))}") from None
