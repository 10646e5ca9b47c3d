"""Where the math half of a training mix comes from: a local file, or a math set on the Hugging Face Hub.

``hub:metamathqa`` (optionally ``hub:metamathqa@REV``) is MetaMathQA (``meta-math/MetaMathQA``) through the
same Hub code as the benchmark releases (``reasoneval.hub``): pinned revision, downloaded once into the HF
cache with a manifest of sha256s, usable offline afterwards (``--offline`` / ``HF_HUB_OFFLINE=1``). Any other
value is a local JSON lines / JSON / Parquet file. Either way the provenance (commit or file sha256) goes
into a sweep's manifests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import DataError
from ...hub import pull
from ...hub.cache import sha256_file
from .export import load_math

HUB_PREFIX = "hub:"
HUB_MATH = ("metamathqa",)  # releases (``hub.releases.release``) that are math training sets


@dataclass
class MathSource:
    spec: str  # what the user wrote
    paths: list[Path]
    provenance: dict[str, Any] = field(default_factory=dict)  # source, commit / sha256 of every file

    def load(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for p in self.paths:
            out.extend(load_math(p))
        return out


def resolve_math(spec: str, offline: bool | None = None) -> MathSource:
    """``hub:NAME[@REV]`` -> the cached (or freshly pulled) release files; anything else: a local file."""
    if spec.startswith(HUB_PREFIX):
        name, _, rev = spec[len(HUB_PREFIX):].partition("@")
        if name not in HUB_MATH:
            raise DataError(f"unknown Hub math set {name!r}; known: {', '.join(HUB_MATH)} (or give a local file)")
        rel = pull(name, revision=rev or None, offline=offline)
        return MathSource(spec, list(rel.paths), {
            "source": rel.describe(), "revision": rel.revision,
            "files": [{"path": p, "sha256": h} for p, h in rel.files]})
    path = Path(spec)
    if not path.is_file():
        raise DataError(f"{spec}: no such math file (a JSON lines / JSON / Parquet file, or hub:metamathqa)")
    return MathSource(spec, [path], {"source": str(path), "files": [{"path": str(path), "sha256": sha256_file(path)}]})
