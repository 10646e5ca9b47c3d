"""The content fingerprint of local model weights: what a run of ``hf/``, ``llamacpp/`` or ``vllm/`` evaluated.

A checkpoint directory (or one GGUF file) is identified by the files that define the model -- weights, config,
tokenizer, chat template, adapter files, custom modelling code -- by their names relative to the directory, their
sizes and their bytes; never by where the directory is. New bytes at the same path are another model; the same
bytes at another path are the same model. Training state (optimizer, scheduler, RNG state, trainer state,
training arguments) and nested ``checkpoint-*`` folders are not the model and are left out.

Two methods:

* ``sampled`` (the default): a file up to :data:`FULL_BELOW` bytes is hashed whole; a larger one by its size
  and :data:`BLOCKS` blocks of :data:`BLOCK` bytes spread evenly over it, first and last included (4 MiB read
  per file whatever its size). Any training step rewrites every weight, so every block changes; a change
  confined to bytes between the blocks of a large file (a hand-edit of one tensor) goes unseen: use ``full``.
* ``full``: every byte of every file (SHA-256). Another digest than ``sampled``, so another run id.

Each file's digest is memoised by (path, size, mtime, ctime, inode) in ``fingerprints.json`` in the cache folder
(``$REASONEVAL_CACHE_DIR`` or ``~/.cache/reasoneval``): a second run on an unchanged checkpoint reads no weights.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

METHODS = ("sampled", "full")
#: files up to this size are hashed whole even by the sampled method
FULL_BELOW = 8 << 20
#: blocks read of a larger file by the sampled method, and their size
BLOCKS, BLOCK = 64, 64 << 10
#: what the sampled method is: part of its digest, so a change of the sampling is another fingerprint
SAMPLED_VERSION = f"sampled-v1:{FULL_BELOW}:{BLOCKS}:{BLOCK}"

#: files of a checkpoint folder that define the model (by suffix)
MODEL_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".ggml", ".msgpack", ".h5", ".ckpt", ".npz",
                  ".npy", ".json", ".model", ".tiktoken", ".txt", ".jinja", ".py", ".spm", ".vocab")
#: files that are training state, not the model
TRAINING_STATE = ("optimizer.pt", "optimizer.bin", "scheduler.pt", "training_args.bin", "trainer_state.json",
                  "scaler.pt")
TRAINING_PREFIXES = ("rng_state", "global_step", "events.out.tfevents")
#: folders never entered
SKIPPED_DIRS = ("checkpoint-", ".", "__pycache__", "runs", "logs", "wandb")

#: files remembered in the memo (the oldest are forgotten first)
MEMO_ENTRIES = 20_000

_lock = threading.Lock()
_memo: dict[str, Any] | None = None


@dataclass(frozen=True)
class Fingerprint:
    """``digest``: hex SHA-256 over the files' names and digests; ``method``: sampled or full."""

    digest: str
    method: str
    files: int
    bytes: int
    #: bytes read to make it (0 when every file's digest was memoised)
    read: int = 0

    @property
    def short(self) -> str:
        """What the run id and cache key carry: ``s:`` or ``f:`` and 24 hex digits."""
        return f"{self.method[0]}:{self.digest[:24]}"

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.digest, "method": self.method, "files": self.files, "bytes": self.bytes}


def model_files(root: Path) -> list[Path]:
    """The files of ``root`` (a folder, or one file) that define the model, sorted by their relative name."""
    if root.is_file():
        return [root]
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(SKIPPED_DIRS))
        for f in filenames:
            if (f.endswith(MODEL_SUFFIXES) and f not in TRAINING_STATE
                    and not f.startswith(TRAINING_PREFIXES) and not f.startswith(".")):
                out.append(Path(dirpath) / f)
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def _file_digest(path: Path, size: int, method: str) -> tuple[str, int]:
    """The digest of one file and the bytes read for it."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        if method == "full" or size <= FULL_BELOW:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
            return h.hexdigest(), size
        h.update(f"{SAMPLED_VERSION}:{size}".encode())
        step = (size - BLOCK) / (BLOCKS - 1)
        read = 0
        for i in range(BLOCKS):
            off = int(i * step)
            f.seek(off)
            block = f.read(BLOCK)
            read += len(block)
            h.update(off.to_bytes(8, "little"))
            h.update(block)
        return h.hexdigest(), read


def memo_path() -> Path:
    env = os.environ.get("REASONEVAL_CACHE_DIR")
    return (Path(env) if env else Path.home() / ".cache" / "reasoneval") / "fingerprints.json"


def _load_memo() -> dict[str, Any]:
    global _memo
    if _memo is None:
        try:
            got = json.loads(memo_path().read_text(encoding="utf-8"))
            _memo = got if isinstance(got, dict) else {}
        except (OSError, ValueError):
            _memo = {}
    return _memo


def _save_memo(memo: dict[str, Any]) -> None:
    """Written to a temporary file and renamed into place; a cache folder that cannot be written only costs the
    next run a new read."""
    p = memo_path()
    with contextlib.suppress(OSError):
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(memo, sort_keys=True), encoding="utf-8")
        os.replace(tmp, p)


def _memo_key(path: Path, st: os.stat_result, method: str) -> str:
    return f"{method}|{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}|{st.st_ino}"


def fingerprint(root: str | Path, method: str = "sampled") -> Fingerprint:
    """The fingerprint of the model files under ``root`` (a folder or one file). ``FileNotFoundError`` when
    ``root`` is missing or holds no model file."""
    if method not in METHODS:
        raise ValueError(f"unknown fingerprint method {method!r}: {' or '.join(METHODS)}")
    root = Path(root).expanduser()
    if not root.exists():
        raise FileNotFoundError(f"{root}: no such file or folder")
    files = model_files(root)
    if not files:
        raise FileNotFoundError(f"{root}: no model files (weights, config, tokenizer) in it")
    h = hashlib.sha256(f"reasoneval-model:{method}".encode())
    total = read = 0
    with _lock:
        memo = _load_memo()
        changed = False
        for p in files:
            st = p.stat()
            key = _memo_key(p, st, method)
            digest = memo.get(key)
            if not isinstance(digest, str):
                digest, n = _file_digest(p, st.st_size, method)
                memo[key] = digest
                read += n
                changed = True
            rel = "" if root.is_file() else p.relative_to(root).as_posix()  # a lone file: its name is not identity
            h.update(f"{rel}\0{st.st_size}\0{digest}\n".encode("utf-8", "surrogatepass"))
            total += st.st_size
        if changed:
            for old in list(memo)[:max(0, len(memo) - MEMO_ENTRIES)]:  # oldest first
                del memo[old]
            _save_memo(memo)
    return Fingerprint(h.hexdigest(), method, len(files), total, read)


def forget_memo() -> None:
    """Drop the in-process copy of the memo (tests; a process that changed ``REASONEVAL_CACHE_DIR``)."""
    global _memo
    with _lock:
        _memo = None
