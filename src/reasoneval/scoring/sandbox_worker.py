"""A sandbox worker: ``python -m reasoneval.scoring.sandbox_worker``, started by :class:`~.sandbox.SandboxPool`.

A clean interpreter that never imports the caller's ``__main__``. It talks to the pool over its stdin/stdout
(pickled messages, :class:`multiprocessing.connection.Connection` framing); file descriptors 0 and 1 are then
pointed elsewhere, so whatever a task or a native library prints never corrupts the protocol.

    pool -> worker   {"sys_path", "limit_mb", "preload", "warmup"}, then the initializer (or None)
    worker -> pool   "ready"
    pool -> worker   (task_id, fn, args) ...   | None (stop)
    worker -> pool   (task_id, ok, value)      (value: the result, or the formatted exception)

The worker ends when the pool closes its stdin (or dies: the worker asks the kernel for SIGKILL then), and
ignores SIGINT (a Ctrl-C in the caller's terminal is the caller's to handle).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import traceback
from multiprocessing.connection import Connection

READY = "ready"  # the same value as sandbox.READY (not imported: the worker loads nothing it does not need)


def _limit_memory(limit_mb: int | None) -> None:
    if not limit_mb:
        return
    with contextlib.suppress(Exception):
        import resource

        soft = limit_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (soft, soft))


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when the pool's process dies (a task stuck in C code never reads EOF)."""
    parent = os.getppid()
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the request
        os._exit(0)


def _protocol() -> tuple[Connection, Connection]:
    """The pool's connections on copies of fds 0/1; fd 0 then reads nothing and fd 1 goes to stderr."""
    rconn = Connection(os.dup(0), writable=False)
    wconn = Connection(os.dup(1), readable=False)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return rconn, wconn


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    rconn, wconn = _protocol()
    try:
        setup = rconn.recv()
        sys.path[:] = [p for p in setup["sys_path"] if isinstance(p, str)]
        _limit_memory(setup.get("limit_mb"))
        for mod in setup.get("preload") or ():
            with contextlib.suppress(Exception):
                importlib.import_module(mod)
        for item in setup.get("warmup") or ():
            mod, _, func = item.partition(":")
            with contextlib.suppress(Exception):
                getattr(importlib.import_module(mod), func)()
        try:
            initializer = rconn.recv()
        except (EOFError, OSError):
            raise
        except Exception:  # noqa: BLE001 - not importable here: as an initializer that failed
            initializer = None
        if initializer is not None:
            with contextlib.suppress(Exception):
                initializer()
        wconn.send(READY)
    except (EOFError, OSError):
        return
    while True:
        try:
            msg = rconn.recv()
        except (EOFError, OSError):
            return
        except Exception as e:  # noqa: BLE001 - the task's function or arguments cannot be loaded here
            wconn.send((None, False, f"could not load the task in the worker: {type(e).__name__}: {e}"))
            continue
        if msg is None:
            return
        task_id, fn, args = msg
        try:
            reply = (task_id, True, fn(*args))
        except BaseException as e:  # noqa: BLE001 - everything is reported back
            reply = (task_id, False, "".join(traceback.format_exception_only(type(e), e)).strip())
        try:
            wconn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as e:  # noqa: BLE001 - an unpicklable result
            wconn.send((task_id, False, f"unpicklable result: {e!r}"))


if __name__ == "__main__":
    main()
