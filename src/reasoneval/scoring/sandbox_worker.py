"""A sandbox worker: ``python -m reasoneval.scoring.sandbox_worker``, started by :class:`~.sandbox.SandboxPool`.

A clean interpreter that never imports the caller's ``__main__``. It talks to the pool over its stdin/stdout
(pickled messages, :class:`multiprocessing.connection.Connection` framing); file descriptors 0 and 1 are then
pointed elsewhere, so whatever a task or a native library prints never corrupts the protocol.

    pool -> worker   {"sys_path", "limit_mb", "preload", "warmup"}, then the initializer (or None)
    worker -> pool   "ready"
    pool -> worker   (task_id, fn, args) ...   | None (stop)
    worker -> pool   (task_id, ok, value)      (value: the result, or the formatted exception)

With ``--zygote FD`` the interpreter is a *zygote* (``SandboxPool(shared_imports=True)``): after the set-up it
forks ready workers on request, which share its imports (:class:`~.sandbox.Zygote`).

The worker ends when the pool closes its stdin (or dies: the worker asks the kernel for SIGKILL then), and
ignores SIGINT (a Ctrl-C in the caller's terminal is the caller's to handle).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import socket
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


def _setup(rconn: Connection) -> None:
    """The pool's set-up: its ``sys.path``, memory limit, modules, warm-ups, then the initializer."""
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


def _serve(rconn: Connection, wconn: Connection) -> None:
    """Run tasks until the pool says stop (None) or goes away."""
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


_CHILDREN: set[int] = set()  # the zygote's workers not waited for yet


def _reap(*_: object) -> None:
    """The zygote's SIGCHLD: its finished workers are waited for (no zombie; their CPU time is counted)."""
    with contextlib.suppress(ChildProcessError):
        while True:
            pid = os.waitpid(-1, os.WNOHANG)[0]
            if pid <= 0:
                return
            _CHILDREN.discard(pid)


def _end_children() -> None:
    """The zygote is leaving: its workers still there are ended and waited for (never left to init)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for pid in list(_CHILDREN):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)  # (not waited for yet: the pid is still this worker's)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    _CHILDREN.clear()


def _zygote(rconn: Connection, wconn: Connection, sock: socket.socket) -> None:
    """Set up once, then fork a ready worker for each ``"fork"`` the pool sends (:class:`~.sandbox.Zygote`): the
    pool passes the worker's two pipe ends over ``sock``, and gets back a pidfd of the worker (which stands for
    that process whatever happens to its pid) with the pid."""
    signal.signal(signal.SIGCHLD, _reap)
    try:
        while True:
            try:
                msg = rconn.recv()
            except (EOFError, OSError):
                return
            if msg != "fork":
                return
            _, fds, _, _ = socket.recv_fds(sock, 16, 2)
            if len(fds) != 2:
                return
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not reaped before its pidfd is open
            try:
                pid = os.fork()
                if pid == 0:
                    _forked(fds[0], fds[1], rconn, wconn, sock)
                _CHILDREN.add(pid)
                pidfd = os.pidfd_open(pid)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
            for fd in fds:
                os.close(fd)
            socket.send_fds(sock, [str(pid).encode()], [pidfd])
            os.close(pidfd)
    finally:
        _end_children()


def _forked(task_fd: int, reply_fd: int, *zygote: Connection | socket.socket) -> None:
    """A worker forked by the zygote: the zygote's set-up is already done; it serves tasks on its own pipes."""
    code = 0
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        for c in zygote:
            c.close()
        _die_with_parent()  # (the zygote)
        rconn, wconn = Connection(task_fd, writable=False), Connection(reply_fd, readable=False)
        wconn.send(READY)
        _serve(rconn, wconn)
    except BaseException:  # noqa: BLE001 - never return into the zygote's loop
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    rconn, wconn = _protocol()
    try:
        _setup(rconn)
        wconn.send(READY)
    except (EOFError, OSError):
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--zygote":
        _zygote(rconn, wconn, socket.socket(fileno=int(sys.argv[2])))
    else:
        _serve(rconn, wconn)


if __name__ == "__main__":
    main()
