"""One exception for every way a store can fail, with a message a user can act on."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path


class StoreError(RuntimeError):
    """The run store cannot be opened, read or written; ``str(e)`` is one line for the user."""


def read_only_fs(path: Path | str) -> bool:
    """Whether ``path`` (or its nearest existing parent) lies on a file system mounted read-only."""
    p = Path(path).absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        return bool(os.statvfs(p).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def one_line(msg: str, limit: int = 200) -> str:
    """``msg`` as one short printable line (SQLite quotes undecodable bytes of a corrupted file in its messages)."""
    first = msg.strip().splitlines()[0] if msg.strip() else ""
    clean = "".join(ch if ch.isprintable() else "?" for ch in first)
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


def corrupted(path: Path | str, why: str) -> StoreError:
    return StoreError(f"store {path} is corrupted or not a reasoneval store ({one_line(why)})")


def describe(path: Path | str, e: BaseException) -> StoreError:
    """A :class:`StoreError` for a sqlite3/OS error met while using the store at ``path``."""
    if isinstance(e, StoreError):
        return e
    msg = one_line(str(e)) or e.__class__.__name__
    low = msg.lower()
    ro_fs = "unable to open" in low or "readonly" in low or "read-only" in low
    if ro_fs and read_only_fs(path):
        text = (f"store {path} is on a read-only file system ({msg}); `report` and `export` can read it, "
                "runs and re-scoring need a writable --store")
    elif "readonly" in low or "read-only" in low or "permission denied" in low:
        text = (f"store {path} is read-only ({msg}); `report` and `export` can read it, "
                "runs and re-scoring need a writable --store")
    elif "full" in low or "no space" in low:
        text = f"store {path}: the disk is full ({msg}); everything committed before is kept, free space and re-run"
    elif "not a database" in low or "malformed" in low or "corrupt" in low:
        text = f"store {path} is corrupted or not a reasoneval store ({msg})"
    elif "could not decode" in low:  # a text value that is not UTF-8: its bytes were overwritten
        text = f"store {path} is corrupted or not a reasoneval store (a stored text is not valid UTF-8)"
    elif "locked" in low or "busy" in low:
        text = f"store {path} is locked by another process ({msg})"
    elif "unable to open" in low or "no such file" in low:
        text = f"cannot open store {path} ({msg})"
    elif "no such table" in low:
        text = f"store {path} is not a reasoneval store ({msg})"
    else:
        text = f"store {path}: {msg}"
    return StoreError(text)


STORE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, OSError)

#: what decoding a row whose bytes were overwritten (but still pass SQLite's own checks) can raise
DECODE_ERRORS: tuple[type[BaseException], ...] = (ValueError, KeyError, TypeError, AttributeError, IndexError)
