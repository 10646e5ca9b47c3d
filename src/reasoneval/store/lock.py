"""One process per (store, run): an advisory ``flock`` on ``<store>.<run_id>.lock`` holding the owner's pid.

``store`` is the store's real path (links resolved), so every name of the store shares the lock.

A second ``reasoneval run`` of the same run on the same store refuses with one line naming the run and the
holder's pid. The lock goes away with the process (even on SIGKILL); the file is removed on release.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreError


def lock_path(store: Path, run_id: str) -> Path:
    return store.with_name(f"{store.name}.{run_id}.lock")


@contextlib.contextmanager
def run_lock(store: Path, run_id: str, shown: Path | None = None) -> Iterator[None]:
    """``store``: the real path; ``shown``: the name messages give (default ``store``)."""
    path = lock_path(store, run_id)
    shown = shown or store
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot create the run lock {path}: {e.strerror or e}") from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = "?"
            with contextlib.suppress(OSError):
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise StoreError(f"run {run_id} is already running on store {shown} (pid {holder}); "
                             "wait for it to finish, or stop it") from None
        try:  # the file we locked may have been removed by the previous holder's release: lock the new one
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)
