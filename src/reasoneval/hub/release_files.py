"""A fetched release (``Release``: its local files, commit and file hashes) and the error of the Hub layer,
shared by ``fetch`` (what the Hub serves) and ``pinned`` (what a stored run recorded)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.errors import DataError


class HubError(DataError):
    """A release could not be fetched or found; the message says what to do (one line)."""


@dataclass(frozen=True)
class Release:
    benchmark: str
    repo_id: str
    revision: str
    commit: str
    config: str
    paths: tuple[Path, ...]  # local files, in the order of ``files``
    files: tuple[tuple[str, str], ...]  # (repo path, sha256)

    def describe(self) -> str:
        return f"hf:{self.repo_id}@{self.commit}"
