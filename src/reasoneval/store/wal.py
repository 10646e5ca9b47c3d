"""A store whose write-ahead log vanished while another process holds it open is refused, never written.

SQLite keeps a store's recent commits in ``<store>-wal`` and their index in ``<store>-shm``, shared by every
process that has the store open. When the ``-wal`` file is deleted while one process (a run) holds the store,
that process goes on writing into the deleted file, and a process that opens the store afterwards creates a
new, empty log under the old index: its commits are read through an index that points into another file, and
the first process's checkpoint can overwrite them. Before, such a second run reported success (exit code 0) and
was absent from the store.

:func:`check_log_present` finds the case before a connection is made: no ``-wal`` file while another process
holds the ``-shm`` index (SQLite's unix VFS keeps a shared lock on its "dead man switch" byte,
:data:`DMS_BYTE`, for as long as a connection is open; the ``-wal`` file is made before it and removed after
it). The store is then refused with one line naming the holder's pid. A store that is not open elsewhere (an
``-shm`` file left by a crash, no lock) is opened as usual: SQLite rebuilds the index from what the file holds.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import time
from pathlib import Path

from .errors import StoreError

#: SQLite's unix VFS: byte 128 of the ``-shm`` file (``UNIX_SHM_BASE + SQLITE_SHM_NLOCK`` = 120 + 8), read-locked
#: by every process with a connection to the store
DMS_BYTE = 128
#: a vanished log is confirmed this many times, this far apart, before the store is refused
_CONFIRMATIONS = 3
_CONFIRM_INTERVAL_S = 0.02
_FLOCK = "hhqqi4x"  # struct flock on Linux (l_type, l_whence, l_start, l_len, l_pid)


def index_holder(shm: Path) -> int | None:
    """The pid of another process that holds the store's ``-shm`` index open, or None (no such process, no file,
    or a platform where this cannot be asked)."""
    try:
        fd = os.open(shm, os.O_RDONLY)
    except OSError:
        return None
    try:
        query = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, DMS_BYTE, 1, 0)
        with contextlib.suppress(OSError, struct.error):
            got = struct.unpack(_FLOCK, fcntl.fcntl(fd, fcntl.F_GETLK, query))
            if got[0] != fcntl.F_UNLCK:
                return int(got[4])
        return None
    finally:
        os.close(fd)


def _vanished_under(wal: Path, shm: Path) -> int | None:
    """The pid holding the index while the log is missing, read in an order no open or close can fake.

    A connection creates ``-wal`` before it locks the index and unlocks the index before the last one deletes
    ``-wal``. Reading the log's absence between two sightings of the same holder therefore means the log went
    away under that holder; reading it the other way round (log first) can see an opener that was not there
    yet and report a store another process is creating as damaged."""
    pid = index_holder(shm)
    if pid is None or wal.exists():
        return None
    return pid if index_holder(shm) == pid and not wal.exists() else None


def check_log_present(real: Path, shown: Path) -> None:
    """Refuse the store when its ``-wal`` file is gone while another process has it open (see the module)."""
    wal = real.with_name(real.name + "-wal")
    shm = real.with_name(real.name + "-shm")
    pid = None
    for attempt in range(_CONFIRMATIONS):
        pid = _vanished_under(wal, shm)
        if pid is None:
            return
        if attempt + 1 < _CONFIRMATIONS:
            time.sleep(_CONFIRM_INTERVAL_S)  # a deleted log stays deleted; a process opening or closing moves on
    raise StoreError(
        f"store {shown}: its write-ahead log {wal.name} was deleted while process {pid} has the store open; "
        "writing now would lose rows (the log holds that process's recent commits and this one would start "
        f"another): let process {pid} finish (its rows reach {real.name} when it closes), then run again")
