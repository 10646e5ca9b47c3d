"""One exception for every way a store can fail, with a message a user can act on."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class StoreError(RuntimeError):
    """The run store cannot be opened, read or written; ``str(e)`` is one line for the user."""


def describe(path: Path | str, e: BaseException) -> StoreError:
    """A :class:`StoreError` for a sqlite3/OS error met while using the store at ``path``."""
    if isinstance(e, StoreError):
        return e
    msg = str(e).strip().splitlines()[0] if str(e).strip() else e.__class__.__name__
    low = msg.lower()
    if "readonly" in low or "read-only" in low or "permission denied" in low:
        text = (f"store {path} is read-only ({msg}); `report` and `export` can read it, "
                "runs and re-scoring need a writable --store")
    elif "full" in low or "no space" in low:
        text = f"store {path}: the disk is full ({msg}); everything committed before is kept, free space and re-run"
    elif "not a database" in low or "malformed" in low or "corrupt" in low:
        text = f"store {path} is corrupted or not a reasoneval store ({msg})"
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
