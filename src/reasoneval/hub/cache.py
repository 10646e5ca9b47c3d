"""Where releases live: the standard Hugging Face cache, plus one small manifest per pulled config.

The manifest (``<cache>/datasets--<org>--<name>/reasoneval/<commit>/<config>.json``, inside the repo's own
cache folder, which ``hf cache`` tools leave alone) lists the config's files with their sha256, so offline
runs know the file list and ``reasoneval data verify`` can check every byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")
_TRUE = {"1", "true", "yes", "on"}


def hf_cache_dir() -> Path:
    """The Hub cache, resolved from the environment at call time (as huggingface_hub documents it)."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.environ[var]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


def endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


_OFFLINE = False  # set for the whole process by ``reasoneval run --offline`` (see ``set_offline``)


def set_offline(on: bool) -> None:
    """``reasoneval run --offline``: every Hub lookup of this process uses the cache only."""
    global _OFFLINE
    _OFFLINE = on


def offline_mode(explicit: bool | None = None) -> bool:
    """Offline when asked explicitly (``data pull --offline``), for the process (``run --offline``), or
    through Hugging Face's own standard variable ``HF_HUB_OFFLINE``."""
    if explicit is not None:
        return explicit
    return _OFFLINE or os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def repo_folder(repo_id: str, cache: Path | None = None) -> Path:
    return (cache or hf_cache_dir()) / ("datasets--" + repo_id.replace("/", "--"))


def read_ref(repo_id: str, revision: str, cache: Path | None = None) -> str | None:
    """The commit a branch/tag name pointed to when it was last pulled (a commit sha is itself)."""
    if COMMIT_RE.match(revision):
        return revision
    ref = repo_folder(repo_id, cache) / "refs" / revision
    try:
        sha = ref.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return sha if COMMIT_RE.match(sha) else None


def write_ref(repo_id: str, revision: str, commit: str, cache: Path | None = None) -> None:
    if revision == commit:
        return
    ref = repo_folder(repo_id, cache) / "refs" / revision
    ref.parent.mkdir(parents=True, exist_ok=True)
    tmp = ref.with_name(ref.name + ".tmp")
    tmp.write_text(commit, encoding="utf-8")
    tmp.replace(ref)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def git_blob_sha1(path: Path) -> str:
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Manifest:
    repo_id: str
    revision: str
    commit: str
    config: str
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # repo path -> {sha256, size, etag}

    def path(self, cache: Path | None = None) -> Path:
        return repo_folder(self.repo_id, cache) / "reasoneval" / self.commit / f"{self.config}.json"

    def local(self, rel: str, cache: Path | None = None) -> Path:
        return repo_folder(self.repo_id, cache) / "snapshots" / self.commit / rel

    def save(self, cache: Path | None = None) -> None:
        p = self.path(cache)
        p.parent.mkdir(parents=True, exist_ok=True)
        body = {"repo_id": self.repo_id, "revision": self.revision, "commit": self.commit,
                "config": self.config, "files": self.files}
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(body, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(p)

    @classmethod
    def load(cls, repo_id: str, commit: str, config: str, cache: Path | None = None) -> Manifest | None:
        p = repo_folder(repo_id, cache) / "reasoneval" / commit / f"{config}.json"
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return cls(d["repo_id"], d.get("revision", commit), d["commit"], d["config"], dict(d.get("files") or {}))


def manifests(repo_id: str, cache: Path | None = None) -> list[Manifest]:
    root = repo_folder(repo_id, cache) / "reasoneval"
    out = []
    for p in sorted(root.glob("*/*.json")) if root.is_dir() else []:
        m = Manifest.load(repo_id, p.parent.name, p.stem, cache)
        if m is not None:
            out.append(m)
    return out


def check_file(m: Manifest, rel: str, cache: Path | None = None) -> str | None:
    """None when the cached file matches its manifest entry (and its blob name), else what is wrong."""
    p = m.local(rel, cache)
    if not p.is_file():
        return "missing"
    want = m.files[rel].get("sha256")
    got = sha256_file(p)
    if want and got != want:
        return f"sha256 {got[:12]}... != recorded {str(want)[:12]}..."
    blob = Path(os.path.realpath(p)).name
    if len(blob) == 64 and blob != got:
        return f"content does not match its blob name {blob[:12]}... (LFS sha256)"
    if len(blob) == 40 and COMMIT_RE.match(blob) and blob != git_blob_sha1(p):
        return f"content does not match its blob name {blob[:12]}... (git blob sha1)"
    return None
