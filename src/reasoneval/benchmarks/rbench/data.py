"""R-Bench data: the Hugging Face release ``R-Bench/R-Bench`` (configs ``rbench-{t,m}_{en,zh}``) from disk.

Layout looked for under the root (``--data`` / ``-O data=``)::

    ROOT/rbench-t_en/test-00000-of-00001.parquet     (the HF folder as downloaded)
    ROOT/rbench-m_zh/*.parquet | *.jsonl | *.json
    ROOT/t_en.jsonl, ROOT/rbench-m_en.parquet        (one file per config also works)

Release fields: ``index``, ``question``, ``A``..``F``, ``answer`` and, for R-Bench-M, ``image``
(HF Image struct ``{"bytes", "path"}``). Own data (JSONL) may use the same fields or::

    {"id": "17", "question": "...", "options": {"A": "...", ..., "F": "..."}, "answer": "D",
     "department": "Biology", "subject": "Genetics", "images": ["figs/17.png"]}

``images`` entries may be file paths (relative to the data file), ``data:`` URLs or raw bytes.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from typing import Any

from ...core.records import (
    DataError,
    Record,
    configured,
    data_files,
    data_path,
    opt_str,
    read_records,
    req_str,
)
from ...core.values import Item
from .paper_meta import department_of

SUBSETS = ("t_en", "t_zh", "m_en", "m_zh")
LETTERS = "ABCDEF"
LAYOUT_HELP = (
    "Expected layout: ROOT/rbench-t_en/, ROOT/rbench-t_zh/, ROOT/rbench-m_en/, ROOT/rbench-m_zh/ holding the "
    "Parquet (or JSONL/JSON) files of the Hugging Face dataset R-Bench/R-Bench, or one file per config named "
    "like rbench-t_en.jsonl. Fields: index|id, question, A..F (or options), answer, [department, subject], "
    "and image|images for rbench-m_*.")

_ID = ("index", "id")
_DEPT = ("department", "Department", "discipline", "dept")
_SUBJ = ("subject", "Subject", "course")
_IMAGE_KEYS = ("images", "image", "Image", "image_path", "image_paths")
_IMAGE_N = re.compile(r"^image_(\d+)$")


def normalize_subset(name: str) -> str:
    s = name.strip().lower().removeprefix("rbench-").removeprefix("rbench_").replace("-", "_")
    if s not in SUBSETS:
        raise DataError(f"unknown R-Bench subset {name!r}; known: {', '.join(SUBSETS)}")
    return s


def _subset_of_path(p: Path, root: Path) -> str | None:
    """Which config a file belongs to, from its own name or a parent folder's."""
    parts = [p.stem, *(q.name for q in p.relative_to(root).parents if q.name)] if p != root else [p.stem]
    for part in parts:
        m = re.search(r"(?:^|[^a-z])(?:rbench[-_])?([tm])[-_](en|zh)(?:$|[^a-z])", part.lower())
        if m:
            return f"{m.group(1)}_{m.group(2)}"
    return None


def subset_from_name(path: Path) -> str | None:
    """The config a file's own name points to (``rbench-t_zh.jsonl`` -> ``t_zh``), if any."""
    return _subset_of_path(path, path)


def subset_files(root: Path, subset: str) -> list[Path]:
    """Files of one config; a single file whose name names no config is offered to every config
    (its rows must then say which one they belong to in a ``subset`` field)."""
    if root.is_file():
        found = _subset_of_path(root, root)
        return [root] if found in (None, subset) else []
    return [p for p in data_files(root) if _subset_of_path(p, root) == subset]


def _options(rec: Record) -> dict[str, str]:
    raw: Any = rec.data.get("options")
    opts: dict[str, str] = {}
    if raw is None:
        for k in LETTERS:
            v = rec.data.get(k)
            if v is None:
                continue
            if not isinstance(v, str | int | float) or isinstance(v, bool):
                raise DataError(f"{rec.where(k)} must be a string, got {type(v).__name__}")
            opts[k] = str(v)
    elif isinstance(raw, dict):
        for k, v in raw.items():
            key = str(k).strip().upper()
            if key not in LETTERS or not isinstance(v, str | int | float):
                raise DataError(f"{rec.where('options')} must map letters A-F to strings (bad key {k!r})")
            opts[key] = str(v)
    elif isinstance(raw, list):
        if len(raw) > len(LETTERS):
            raise DataError(f"{rec.where('options')} has {len(raw)} entries; at most 6 (A-F)")
        opts = {LETTERS[i]: str(v) for i, v in enumerate(raw) if v is not None}
    else:
        raise DataError(f"{rec.where('options')} must be an object or a list, got {type(raw).__name__}")
    opts = {k: v for k, v in sorted(opts.items()) if v.strip()}
    if len(opts) < 2:
        raise DataError(f"{rec.where('A')} (options A-F): fewer than two non-empty options")
    return opts


def _image_source(rec: Record, field: str, v: Any) -> bytes | str:
    if isinstance(v, bytes | bytearray):
        return bytes(v)
    if isinstance(v, dict):
        if v.get("bytes"):
            return _image_source(rec, field, v["bytes"])
        if v.get("path"):
            return _image_source(rec, field, v["path"])
        raise DataError(f"{rec.where(field)}: image object has neither 'bytes' nor 'path'")
    if isinstance(v, str):
        s = v.strip()
        if s.startswith("data:"):
            return s
        p = Path(s).expanduser()
        if not p.is_absolute():
            p = rec.source.parent / p
        if p.is_file():
            return str(p.resolve())
        if len(s) > 64 and "/" not in s[:64].replace("+", ""):
            try:
                return base64.b64decode(s, validate=True)
            except (binascii.Error, ValueError):
                pass
        raise DataError(f"{rec.where(field)}: image file {s!r} not found (paths are relative to {rec.source.parent})")
    raise DataError(f"{rec.where(field)}: unsupported image value of type {type(v).__name__}")


def _images(rec: Record) -> list[bytes | str]:
    out: list[bytes | str] = []
    for key in _IMAGE_KEYS:
        v = rec.data.get(key)
        if v is None:
            continue
        for x in v if isinstance(v, list) else [v]:
            if x is not None:
                out.append(_image_source(rec, key, x))
    numbered = sorted((int(m.group(1)), k) for k in rec.data if (m := _IMAGE_N.match(k)))
    for _, k in numbered:
        if rec.data[k] is not None:
            out.append(_image_source(rec, k, rec.data[k]))
    return out


def record_to_item(rec: Record, subset: str, *, need_images: bool = True) -> Item:
    rid = req_str(rec, _ID, allow_number=True).strip()
    question = req_str(rec, ("question",))
    opts = _options(rec)
    answer = req_str(rec, ("answer",)).strip().strip("()（）.").upper()
    if answer not in opts:
        raise DataError(f"{rec.where('answer')} is {rec.data.get('answer')!r}; expected one of {''.join(opts)}")
    meta: dict[str, Any] = {
        "question": question,
        "options": opts,
        "department": opt_str(rec, _DEPT),
        "subject": opt_str(rec, _SUBJ),
        "department_from": None,
        "lang": subset.partition("_")[2],
        "split": subset.partition("_")[0].upper(),
        "images": [],
    }
    if meta["department"] is None and meta["subject"] is not None:  # the paper's unique subject -> department
        meta["department"] = department_of(meta["split"], meta["subject"])
        meta["department_from"] = "paper-table" if meta["department"] else None
    if subset.startswith("m") and need_images:
        meta["images"] = _images(rec)
        if not meta["images"]:
            raise DataError(f"{rec.where('image')} is missing: R-Bench-M rows need at least one image")
    data = dict(rec.data)
    data["_rbench"] = meta
    return Item("rbench", subset, rid, data, gold=answer)


def load_subset(subset: str, root_option: str | None = None, revision: str | None = None) -> list[Item]:
    """One config's items from ``root_option`` (``--data``), else from the Hub release at ``revision``."""
    subset = normalize_subset(subset)
    if not configured(root_option):  # no local copy: the pinned Hub release (reasoneval.hub)
        from ...hub import resolve_release

        return _load_files(list(resolve_release("rbench", f"rbench-{subset}", revision=revision).paths), subset, None)
    root = data_path(root_option, "R-Bench", LAYOUT_HELP, "rbench")
    files = subset_files(root, subset)
    if not files:
        raise DataError(f"{root}: no data files for config rbench-{subset}.\n{LAYOUT_HELP}")
    return _load_files(files, subset, root)


def _load_files(files: list[Path], subset: str, root: Path | None) -> list[Item]:
    items: list[Item] = []
    seen: dict[str, Record] = {}
    for f in files:
        for rec in read_records(f):
            if root is not None and root.is_file() and _subset_of_path(root, root) is None:
                declared = rec.data.get("subset") or rec.data.get("config")
                if declared is None:
                    raise DataError(f"{rec.where('subset')} is missing: {root.name} does not name its config "
                                    "(t_en, t_zh, m_en, m_zh), so each row must")
                if normalize_subset(str(declared)) != subset:
                    continue
            it = record_to_item(rec, subset)
            if it.id in seen:
                raise DataError(f"{rec.where('index')}: duplicate id {it.id!r} (first at {seen[it.id].where()})")
            seen[it.id] = rec
            items.append(it)
    return items


def sniff_mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM"):
        return "image/bmp"
    return "image/png"


def data_url(src: bytes | str) -> str:
    """An image source (bytes, file path or data URL) as a base64 ``data:`` URL."""
    if isinstance(src, str):
        if src.startswith("data:"):
            return src
        src = Path(src).read_bytes()
    return f"data:{sniff_mime(src)};base64,{base64.b64encode(src).decode('ascii')}"
