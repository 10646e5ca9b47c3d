"""Stored runs read their data from the release they recorded, never from what the Hub serves today.

A run of a Hub release records ``hf:<repo>@<commit> (revision <rev>); <file> sha256:<hex>, ...`` as its data
version. Inside ``pinned_to(run)`` every ``resolve_release`` of that run's benchmark is answered from the local
Hugging Face cache at exactly that commit, each file re-hashed against the manifest and the recorded sha256; the
network is never used. If the commit or a file is gone from the cache (or its bytes changed), the
:class:`~reasoneval.hub.fetch.HubError` is one line saying so and how to bring it back: re-scoring against
other data would silently change verdicts (33.33 became 0.00 when the dataset's ``main`` moved).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .cache import COMMIT_RE, Manifest, check_file, hf_cache_dir
from .release_files import HubError, Release
from .releases import release

_HEAD = re.compile(r"^hf:(?P<repo>[^@\s]+)@(?P<commit>[0-9a-f]{40})(?: \(revision (?P<rev>[^)]*)\))?")
_FILE = re.compile(r"(?:^|, )(?P<path>[^,]+?) sha256:(?P<sha>[0-9a-f]{64})")


@dataclass(frozen=True)
class Recorded:
    """What a run recorded about its Hub data."""

    benchmark: str
    repo_id: str
    commit: str
    revision: str
    files: Mapping[str, str] = field(default_factory=dict)  # repo path -> sha256

    def describe(self) -> str:
        return f"{self.repo_id}@{self.commit}"


def parse(benchmark: str, data_version: str) -> Recorded | None:
    """The recorded release of a data version, or None when the run's data did not come from the Hub."""
    m = _HEAD.match(data_version or "")
    if m is None:
        return None
    _, _, tail = data_version.partition("; ")
    files = {f["path"]: f["sha"] for f in _FILE.finditer(tail)}
    return Recorded(benchmark, m["repo"], m["commit"], m["rev"] or m["commit"], files)


_PINS: dict[str, Recorded] = {}


@contextmanager
def pinned_to(run: Mapping[str, Any]) -> Iterator[Recorded | None]:
    """Within: ``run``'s benchmark loads the release the run recorded, from the cache only (a no-op for runs
    whose data is not a Hub release)."""
    spec = run.get("spec") or {}
    bench = str(run.get("benchmark") or spec.get("benchmark") or "")
    rec = parse(bench, str(spec.get("data_version") or ""))
    if rec is None:
        yield None
        return
    before = _PINS.get(bench)
    _PINS[bench] = rec
    try:
        yield rec
    finally:
        if before is None:
            _PINS.pop(bench, None)
        else:
            _PINS[bench] = before


def pin_of(benchmark: str) -> Recorded | None:
    return _PINS.get(benchmark)


_SERVED: dict[tuple[str, str, str, str], Release] = {}  # (cache, repo, commit, config) -> Release, checked once


def recorded_release(rec: Recorded, config: str | None) -> Release:
    """The :class:`~reasoneval.hub.fetch.Release` of ``config`` at the recorded commit, from the cache only
    (its bytes checked once per process)."""
    config = release(rec.benchmark).config_for(config)
    key = (str(hf_cache_dir()), rec.repo_id, rec.commit, config)
    if key not in _SERVED:
        _SERVED[key] = _load(rec, config)
    return _SERVED[key]


def _load(rec: Recorded, config: str) -> Release:

    spec = release(rec.benchmark)
    cache = hf_cache_dir()
    again = (f"bring it back with `reasoneval data pull {rec.benchmark} --revision {rec.commit}` "
             f"(or copy that Hugging Face cache here)")
    if rec.repo_id != spec.repo_id or not COMMIT_RE.match(rec.commit):
        raise HubError(f"the run recorded {rec.describe()}, not a commit of {spec.repo_id}: cannot re-score it")
    m = Manifest.load(rec.repo_id, rec.commit, config, cache)
    if m is None:
        raise HubError(f"the run's data, {rec.describe()} config {config}, is not in the local Hub cache ({cache}); "
                       f"{again}")
    rels = sorted(m.files)
    for rel in rels:
        want = rec.files.get(rel)
        if want is not None and m.files[rel].get("sha256") != want:
            raise HubError(f"{rec.describe()} {rel} in the cache is not the file the run recorded (sha256 "
                           f"{str(m.files[rel].get('sha256'))[:12]}... != {want[:12]}...); {again}")
        problem = check_file(m, rel, cache)
        if problem:
            raise HubError(f"the run's data, {rec.describe()} {rel}, is {problem} in the local Hub cache "
                           f"({cache}); {again}")
    return Release(rec.benchmark, rec.repo_id, rec.revision, rec.commit, config,
                   tuple(m.local(r, cache) for r in rels), tuple((r, str(m.files[r]["sha256"])) for r in rels))
