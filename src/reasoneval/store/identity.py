"""Which file a store is, how a new one comes into being, and whether an SQLite file is one of ours.

* **One file, one name.** A store is opened, written and locked by its real path (links resolved), so a
  symlinked ``--store`` shares the per-run lock and the write-ahead log of the file it points to. A store
  file with more than one hard link is refused for writing: SQLite names its ``-wal`` file after the path it
  was opened by, so two names of one file give two logs and corrupt it.
* **Atomic creation.** A missing store is built complete (schema and marker) in a temporary file in the same
  folder and linked into place, which fails if the name exists meanwhile (O_EXCL semantics): processes that
  start on the same missing store all end up using the one complete file, and none ever sees an empty file.
  Where the file system has no hard links, the rename is done under an advisory lock of the folder.
* **Our marker.** New stores carry ``PRAGMA application_id`` = :data:`APP_ID`. A non-empty SQLite file
  without it is refused, unless it is a store made before the marker (our ``runs`` and ``completions``
  tables), which is stamped when opened for writing.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from .errors import StoreError

#: ``PRAGMA application_id`` of a reasoneval store (the bytes ``REVL``)
APP_ID = int.from_bytes(b"REVL", "big")

#: our tables' columns as the first stores had them (an unmarked SQLite file with these is an old store)
_OLD_RUNS = {"run_id", "created", "updated", "benchmark", "subset", "mode", "model", "spec_json", "status"}
_OLD_COMPLETIONS = {"run_id", "item_key", "sample", "turn", "role", "subset", "prompt_json", "cache_key", "text"}

#: how long a second link of a new store may be seen: between the link into place and the removal of the
#: temporary name (microseconds in practice) another process can find two links
_LINK_SETTLE_S = 1.0


def real_path(path: Path) -> Path:
    """``path`` with every symbolic link resolved (the file the name stands for, existing or not)."""
    return Path(os.path.realpath(path))


def check_single_link(real: Path, shown: Path) -> None:
    """Refuse a store file that has other names (hard links); a link count above one that disappears within
    :data:`_LINK_SETTLE_S` is a store being created by another process, not a second name. The temporary name
    of a creator that died between linking and unlinking it is removed."""
    deadline = time.monotonic() + _LINK_SETTLE_S
    while True:
        try:
            links = os.stat(real).st_nlink
        except FileNotFoundError:
            return  # gone meanwhile: opening it reports that
        if links <= 1:
            return
        if time.monotonic() >= deadline:
            if _remove_dead_creators_names(real):
                continue
            break
        time.sleep(0.01)
    raise StoreError(
        f"store {shown} has {links} hard links (other names for the same file); SQLite keeps one write-ahead log "
        "per name, so writing it by two names corrupts it: remove the other names, or copy the file (cp) to get "
        "an independent store")


def _temp_name(real: Path) -> Path:
    return real.with_name(f".{real.name}.{os.getpid()}.{secrets.token_hex(4)}.new")


def _remove_dead_creators_names(real: Path) -> bool:
    """Remove temporary names (:func:`_temp_name`) of ``real``'s file left by creators no longer alive;
    returns whether one was removed."""
    st = os.stat(real)
    removed = False
    for p in real.parent.glob(f".{glob.escape(real.name)}.*.new"):
        pid = p.name[len(real.name) + 2:].split(".")[0]
        try:
            other = os.stat(p)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) != (st.st_dev, st.st_ino) or not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
            removed = True
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def create(real: Path, init: Callable[[sqlite3.Connection], None]) -> bool:
    """Create the store ``real`` if it does not exist, atomically: ``init`` builds it in a temporary file
    beside it, which then takes the name unless another process has created it meanwhile. Returns whether
    this call created it."""
    if real.exists():
        return False
    tmp = _temp_name(real)
    try:
        db = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            init(db)
        finally:
            db.close()  # the last connection: a log, if any, is checkpointed into the file and removed
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # complete on disk before it takes the name
        finally:
            os.close(fd)
        return _link_into_place(tmp, real)
    finally:
        for p in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()


_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK, errno.EXDEV}


def _link_into_place(tmp: Path, real: Path) -> bool:
    try:
        os.link(tmp, real)  # fails when the name exists: never replaces a store another process made
        return True
    except FileExistsError:
        return False
    except OSError as e:
        if e.errno not in _NO_LINKS:
            raise
    return _rename_under_folder_lock(tmp, real)


def _rename_under_folder_lock(tmp: Path, real: Path) -> bool:
    """For file systems without hard links: check and rename while holding a lock of the folder."""
    fd = os.open(real.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if real.exists():
            return False
        os.rename(tmp, real)
        return True
    finally:
        os.close(fd)  # releases the lock


def foreign(db: sqlite3.Connection) -> str | None:
    """Why the open SQLite file is not a reasoneval store, or None when it is one (marked, an old unmarked
    store, or an SQLite file with no tables at all)."""
    app_id = int(db.execute("PRAGMA application_id").fetchone()[0])
    if app_id == APP_ID:
        return None
    if app_id != 0:
        return f"its application id is {app_id:#010x}, not reasoneval's"
    tables = sorted(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"))
    if not tables:
        return None

    def columns(table: str) -> set[str]:
        return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}

    if "runs" in tables and "completions" in tables and _OLD_RUNS <= columns("runs") \
            and _OLD_COMPLETIONS <= columns("completions"):
        return None
    shown = ", ".join(tables[:5]) + (f" and {len(tables) - 5} more" if len(tables) > 5 else "")
    return f"it holds other tables ({shown})"


def check_ours(db: sqlite3.Connection, shown: Path) -> None:
    why = foreign(db)
    if why is not None:
        raise StoreError(f"{shown} is an SQLite database of another application ({why}); it is left alone: "
                         "choose another --store")


def stamp(db: sqlite3.Connection) -> None:
    """Mark a writable store as ours (old stores made before the marker get it here)."""
    if int(db.execute("PRAGMA application_id").fetchone()[0]) != APP_ID:
        db.execute(f"PRAGMA application_id={APP_ID}")
