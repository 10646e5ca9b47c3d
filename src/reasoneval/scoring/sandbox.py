"""A time-bounded worker-process pool for work that may hang or blow up (SymPy on model output, ...).

* ``submit(fn, *args, timeout=...)`` returns a :class:`concurrent.futures.Future`; ``fn`` and ``args`` must be
  picklable (module-level functions of an importable module). The future resolves to the return value, or
  raises :class:`SandboxTimeout` (the worker ran past ``timeout``: it is killed and a fresh one takes its
  place), :class:`WorkerCrashed` (the process died, e.g. out of memory) or :class:`RemoteError` (``fn`` raised).
* Timeouts are enforced from the parent by killing the process: no ``signal.alarm``, so it works from any
  thread and against C code that never returns to the interpreter.
* Each worker is a clean interpreter of our own module (``python -m reasoneval.scoring.sandbox_worker``,
  talking over its stdin/stdout pipes), as the engine host does (``models/worker.py``). Nothing of the caller's
  ``__main__`` is imported or run there: a reward called from ``python -`` (stdin), a notebook or a script
  without an ``if __name__ == "__main__":`` guard works, its top-level code runs once, and a training script's
  torch/TRL imports are not repeated in every worker. The worker gets the caller's ``sys.path``, so ``fn`` may
  live in any module the caller can import.
* A worker imports its pool's ``preload`` modules, runs its ``warmup`` functions and ``initializer`` (math-verify,
  the LaTeX parser, ...) before it reports ready. A task is sent only to a ready worker and its time limit
  starts then, so import and warm-up time never count against a task's timeout; a worker that does not
  become ready within ``startup_timeout`` is killed and replaced (the pool fails after
  ``MAX_STARTUP_FAILURES`` in a row, so callers never wait for ever). A replacement after a kill is a fresh
  interpreter: it costs its imports again (about a second for SymPy), on that worker slot only.
* ``shared_imports=True``: the set-up is done once, in a :class:`Zygote` (the same module, ``--zygote``), and the
  workers are forked from it (one SymPy import per pool; a killed worker is replaced at once); where the zygote
  cannot start, each worker is a fresh interpreter as above.
* One dispatcher thread per pool; ``submit`` is thread-safe.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, Pipe, wait
from pathlib import Path
from typing import Any

WORKER_MODULE = "reasoneval.scoring.sandbox_worker"  # run as ``python -m`` for each worker
READY = "ready"  # a worker's first message: imports and initializer done
MAX_STARTUP_FAILURES = 3  # workers in a row that die or hang before ready: the pool gives up


class SandboxTimeout(TimeoutError):
    """The task ran past its time limit; its worker was killed."""


class BudgetExhausted(SandboxTimeout):
    """The caller's overall deadline passed before the task ran or finished (see ``submit(deadline=)``)."""


class WorkerCrashed(RuntimeError):
    """The worker process died while running the task."""


class RemoteError(RuntimeError):
    """The task raised inside the worker; ``args[0]`` is the formatted exception."""


@dataclass
class _Task:
    id: int
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    timeout: float | None
    future: Future[Any]
    deadline: float | None = None  # time.monotonic() after which the task is not worth running any more
    group: object = None  # the verdict this task is a part of (queued tasks are served round-robin by group)


class _FairQueue:
    """Queued tasks, served round-robin across verdicts: the parts of one verdict share its ``group``, and a
    verdict of 400 parts (an "or"-separated bomb) takes one turn in each round like any other, so it cannot
    starve a verdict queued behind it. Tasks without a group are each a verdict of their own (FIFO)."""

    def __init__(self) -> None:
        self._groups: OrderedDict[Any, deque[_Task]] = OrderedDict()
        self._n = 0

    @staticmethod
    def _key(task: _Task) -> Any:
        return ("group", id(task.group)) if task.group is not None else ("task", task.id)

    def append(self, task: _Task) -> None:
        self._groups.setdefault(self._key(task), deque()).append(task)
        self._n += 1

    def popleft(self) -> _Task:
        key, group = next(iter(self._groups.items()))  # IndexError-free: callers check len() first
        task = group.popleft()
        self._n -= 1
        if group:
            self._groups.move_to_end(key)  # this verdict's next part waits for the others' turns
        else:
            del self._groups[key]
        return task

    def clear(self) -> None:
        self._groups.clear()
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[_Task]:
        return (t for g in self._groups.values() for t in g)


class _Proc:
    """A worker's process (:class:`subprocess.Popen`), as the pool uses it."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid

    def is_alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.popen.kill()

    def join(self, timeout: float | None = None) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout)

    def close(self) -> None:
        pass


class _ForkedProc:
    """A worker forked by the pool's :class:`Zygote`, known by its pidfd: signalled and watched through it, so
    a pid the kernel gave to another process since can never be killed by mistake."""

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid = pid
        self._fd: int | None = pidfd

    def _exited(self, timeout: float | None) -> bool:
        """Whether the process has exited, waiting up to ``timeout`` s (None: until it does). ``poll``, not
        ``select``: a run with many connections open may have fds past ``select``'s limit of 1024."""
        if self._fd is None:
            return True
        p = select.poll()
        p.register(self._fd, select.POLLIN)  # readable once it exited
        return bool(p.poll(None if timeout is None else max(0, int(timeout * 1000))))

    def is_alive(self) -> bool:
        return not self._exited(0)

    def kill(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._fd, signal.SIGKILL)

    def join(self, timeout: float | None = None) -> None:
        self._exited(timeout)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


class Zygote:
    """One clean worker interpreter that does the pool's set-up (``preload``: SymPy, ...) once and then forks
    ready workers on request (``SandboxPool(shared_imports=True)``): the workers share its imports, so a pool of
    N costs one import instead of N, and a worker killed at its time limit is replaced at once. It is still our
    own module's interpreter (``python -m``), never a fork of the caller (its ``__main__``, threads, imports).
    Linux only (pidfds); the pool falls back to one fresh interpreter per worker wherever it cannot start."""

    def __init__(self, limit_mb: int | None, initializer: Callable[[], Any] | None, preload: Sequence[str],
                 warmup: Sequence[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            popen = subprocess.Popen([sys.executable, "-P", "-m", WORKER_MODULE, "--zygote", str(theirs.fileno())],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_worker_env(),
                                     close_fds=True, pass_fds=(theirs.fileno(),))
        finally:
            theirs.close()
        self.sock = ours
        self.proc, self.conn, self.wconn = _started(popen, limit_mb, initializer, preload, warmup)

    def ready(self, timeout: float, closed: Callable[[], bool]) -> bool:
        """Wait (at most ``timeout`` s, less if ``closed()`` turns true) for its set-up to be done."""
        end = time.monotonic() + timeout
        while not closed():
            left = end - time.monotonic()
            if left <= 0:
                return False
            if self.conn.poll(min(left, 0.1)):
                try:
                    return bool(self.conn.recv() == READY)
                except (EOFError, OSError):
                    return False
        return False

    def fork(self) -> tuple[_ForkedProc, Connection, Connection]:
        """A new worker (it says :data:`READY` at once): its process, the connection to read its replies from
        and the one to send it tasks."""
        task_r, task_w = os.pipe()
        reply_r, reply_w = os.pipe()
        try:
            self.wconn.send("fork")
            socket.send_fds(self.sock, [b"f"], [task_r, reply_w])
        except BaseException:
            for fd in (task_r, task_w, reply_r, reply_w):
                os.close(fd)
            raise
        os.close(task_r)
        os.close(reply_w)
        self.sock.settimeout(10.0)
        try:
            msg, fds, _, _ = socket.recv_fds(self.sock, 32, 1)
        except BaseException:
            os.close(task_w)
            os.close(reply_r)
            raise
        if len(fds) != 1 or not msg:
            for fd in (task_w, reply_r, *fds):
                os.close(fd)
            raise OSError("the zygote did not fork a worker")
        return _ForkedProc(int(msg), fds[0]), Connection(reply_r, writable=False), Connection(task_w, readable=False)

    def stop(self) -> None:
        for c in (self.wconn, self.conn, self.sock):  # its stdin closed: it ends (and its workers with it)
            with contextlib.suppress(Exception):
                c.close()
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5)


def _worker_env() -> dict[str, str]:
    """The caller's environment, with this package's parent first on ``PYTHONPATH`` (so ``python -m`` finds the
    same reasoneval the caller imported, even one put on ``sys.path`` by hand)."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    parts = [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def start_worker(limit_mb: int | None, initializer: Callable[[], Any] | None, preload: Sequence[str] = (),
                 warmup: Sequence[str] = ()) -> tuple[_Proc, Connection, Connection]:
    """Start one worker interpreter; returns (process, connection to read from, connection to write to). The
    set-up (the caller's ``sys.path``, memory limit, modules, warm-ups, initializer) is sent at once; the
    worker answers :data:`READY` when done."""
    # -P: the working directory is not put first on the path (a json.py there must not replace the stdlib's
    # before the worker has the caller's own path)
    popen = subprocess.Popen([sys.executable, "-P", "-m", WORKER_MODULE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=_worker_env(), close_fds=True)
    return _started(popen, limit_mb, initializer, preload, warmup)


def _started(popen: subprocess.Popen[bytes], limit_mb: int | None, initializer: Callable[[], Any] | None,
             preload: Sequence[str], warmup: Sequence[str]) -> tuple[_Proc, Connection, Connection]:
    """A started worker interpreter's connections, its set-up sent."""
    assert popen.stdin is not None and popen.stdout is not None
    rconn = Connection(os.dup(popen.stdout.fileno()), writable=False)
    wconn = Connection(os.dup(popen.stdin.fileno()), readable=False)
    popen.stdin.close()
    popen.stdout.close()
    with contextlib.suppress(OSError):  # a worker that died at once is seen as not starting
        wconn.send({"sys_path": list(sys.path), "limit_mb": limit_mb, "preload": list(preload),
                    "warmup": list(warmup)})
        wconn.send(initializer)
    return _Proc(popen), rconn, wconn


@dataclass
class _Worker:
    proc: _Proc | _ForkedProc
    conn: Connection  # the worker's replies
    wconn: Connection  # its tasks
    task: _Task | None = None
    deadline: float = float("inf")
    started: float = field(default_factory=time.monotonic)
    started_task: float = 0.0
    ready: bool = False  # imports and initializer done: tasks may be sent


class SandboxPool:
    def __init__(
        self,
        workers: int | None = None,
        *,
        preload: Sequence[str] = (),
        initializer: Callable[[], Any] | None = None,
        memory_limit_mb: int | None = 4096,
        default_timeout: float | None = 10.0,
        warmup: Sequence[str] = (),
        startup_timeout: float = 60.0,
        shared_imports: bool = False,
    ) -> None:
        """``preload``: modules every worker imports before it is ready; ``warmup``: ``"module:function"`` each
        worker runs then; ``initializer``: a module-level function each worker runs last (errors ignored in
        all three); ``startup_timeout``: seconds a worker may take to get ready. ``shared_imports``: the set-up
        is done once, in a :class:`Zygote` the workers are forked from (one import of SymPy for the pool, a
        killed worker replaced at once); where that fails, each worker is a fresh interpreter as without it."""
        self._shared_imports = shared_imports and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")
        self._zygote: Zygote | None = None
        self.size = max(1, workers or os.cpu_count() or 1)
        self._preload = tuple(preload)
        self._warmup = tuple(warmup)
        self._initializer = initializer
        self._limit_mb = memory_limit_mb
        self.default_timeout = default_timeout
        self.startup_timeout = startup_timeout
        self._startup_failures = 0  # in a row
        self._pending = _FairQueue()
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = Pipe(duplex=False)
        self._ids = itertools.count()
        self._closed = False
        self._thread: threading.Thread | None = None
        self.stats = {"tasks": 0, "timeouts": 0, "crashes": 0, "respawns": 0, "startup_failures": 0}
        self.broken: str | None = None

    # -- public API ---------------------------------------------------------------------------------
    def submit(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None,
               deadline: float | None = None, group: object = None) -> Future[Any]:
        """``timeout``: seconds the task may run; ``deadline`` (``time.monotonic()``): an overall limit shared
        by several tasks (one verdict's budget) -- a task still queued then fails at once with
        :class:`BudgetExhausted`, a running one is killed then. ``group``: any object naming the verdict the
        task belongs to; queued tasks are served round-robin by group, so one verdict with many parts cannot
        make the others wait behind all of them (and run out of their own budget)."""
        fut: Future[Any] = Future()
        task = _Task(next(self._ids), fn, args, self.default_timeout if timeout is None else timeout, fut, deadline,
                     group)
        with self._lock:
            if self._closed:
                raise RuntimeError(f"pool is shut down{': ' + self.broken if self.broken else ''}")
            self._pending.append(task)
            self.stats["tasks"] += 1
            self._ensure_thread()
        self._wake()
        return fut

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        return self.submit(fn, *args, timeout=timeout).result()

    def map(self, fn: Callable[..., Any], items: Iterable[Any], timeout: float | None = None) -> list[Any]:
        """Run ``fn(item)`` for each item; each result is the value or the exception instance."""
        futs = [self.submit(fn, it, timeout=timeout) for it in items]
        out: list[Any] = []
        for f in futs:
            try:
                out.append(f.result())
            except Exception as e:  # noqa: BLE001
                out.append(e)
        return out

    def start(self) -> None:
        """Start the workers now (otherwise they start on the first submit)."""
        with self._lock:
            if not self._closed:
                self._ensure_thread()
        self._wake()

    def shutdown(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=10)
        for w in self._workers:
            if w.task is not None and not w.task.future.done():
                w.task.future.set_exception(RuntimeError("pool shut down"))
            self._stop(w, graceful=True)
        self._workers.clear()
        self._stop_zygote()
        while self._pending:
            t = self._pending.popleft()
            t.future.cancel()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # -- internals ----------------------------------------------------------------------------------
    def _ensure_thread(self) -> None:  # called with the lock held
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="sandbox-dispatch", daemon=True)
        self._thread.start()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send_bytes(b"x")

    def _spawn(self) -> _Worker:
        if self._shared_imports:
            try:
                return _Worker(*self._from_zygote())
            except Exception:  # noqa: BLE001 - no zygote here: one fresh interpreter per worker, as without it
                self._shared_imports = False
                self._stop_zygote()
        proc, rconn, wconn = start_worker(self._limit_mb, self._initializer, self._preload, self._warmup)
        return _Worker(proc, rconn, wconn)

    def _from_zygote(self) -> tuple[_ForkedProc, Connection, Connection]:
        if self._zygote is None:
            self._zygote = Zygote(self._limit_mb, self._initializer, self._preload, self._warmup)
            if not self._zygote.ready(self.startup_timeout, lambda: self._closed):
                raise RuntimeError("the zygote did not get ready")
        return self._zygote.fork()

    def _stop_zygote(self) -> None:
        zygote, self._zygote = self._zygote, None
        if zygote is not None:
            zygote.stop()

    def _stop(self, w: _Worker, graceful: bool = False) -> None:
        if graceful and w.task is None:
            with contextlib.suppress(Exception):
                w.wconn.send(None)
            w.proc.join(timeout=0.5)
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(timeout=5)  # reaped, never left a zombie
        w.proc.close()
        for c in (w.conn, w.wconn):
            with contextlib.suppress(Exception):
                c.close()

    def _replace(self, w: _Worker) -> None:
        self._stop(w)
        i = self._workers.index(w)
        self._workers[i] = self._spawn()
        self.stats["respawns"] += 1

    def _run(self) -> None:
        try:
            self._run_loop()
        finally:
            # the zygote dies with the thread that started it (its PR_SET_PDEATHSIG names this thread): it is
            # ended here, and waits for its workers, rather than killed with them left to init
            self._stop_zygote()

    def _run_loop(self) -> None:
        try:
            self._loop()
        except BaseException as e:  # noqa: BLE001 - never leave a caller waiting on a dead dispatcher
            with self._lock:
                self._closed = True
                self.broken = f"{type(e).__name__}: {e}"
                pending = list(self._pending)
                self._pending.clear()
            inflight = [w.task for w in self._workers if w.task is not None]
            for t in pending + inflight:
                if not t.future.done():
                    t.future.set_exception(WorkerCrashed(f"sandbox pool failed: {self.broken}"))
            for w in self._workers:
                self._stop(w)
            self._stop_zygote()

    def _loop(self) -> None:
        while len(self._workers) < self.size:
            self._workers.append(self._spawn())
        while True:
            with self._lock:
                closed = self._closed
            if closed:
                return
            self._assign()
            busy = [w for w in self._workers if w.task is not None]
            starting = [w for w in self._workers if not w.ready]
            now = time.monotonic()
            wait_s = min([w.deadline - now for w in busy] + [w.started + self.startup_timeout - now for w in starting],
                         default=None)
            ready = wait([self._wake_r] + [w.conn for w in busy + starting],
                         timeout=None if wait_s is None else max(0, wait_s))
            if self._wake_r in ready:
                while self._wake_r.poll():
                    self._wake_r.recv_bytes()
            for w in busy:
                if w.conn in ready:
                    self._collect(w)
            now = time.monotonic()
            for w in starting:
                if w.conn in ready:
                    self._hello(w)
                elif now >= w.started + self.startup_timeout:
                    self._startup_failed(w, f"no ready signal within {self.startup_timeout}s")
            for w in list(self._workers):
                if w.task is not None and now >= w.deadline:
                    task = w.task
                    w.task = None
                    self.stats["timeouts"] += 1
                    self._replace(w)
                    if task.deadline is not None and now >= task.deadline and (
                            not task.timeout or now < w.started_task + task.timeout):
                        task.future.set_exception(BudgetExhausted("the verdict's time budget ran out"))
                    else:
                        task.future.set_exception(SandboxTimeout(f"task exceeded {task.timeout}s"))

    def _next_task(self) -> _Task | None:
        """The next task worth running; cancelled ones are dropped, those past their deadline failed."""
        while True:
            with self._lock:
                if not self._pending:
                    return None
                task = self._pending.popleft()
            if not task.future.set_running_or_notify_cancel():
                continue
            if task.deadline is not None and time.monotonic() >= task.deadline:
                task.future.set_exception(BudgetExhausted("the verdict's time budget ran out before this part ran"))
                continue
            return task

    def _hello(self, w: _Worker) -> None:
        """A starting worker spoke: it is ready, or it died during its imports/initializer."""
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            self._startup_failed(w, "the worker died before it was ready")
            return
        if msg != READY:
            self._startup_failed(w, f"unexpected first message {msg!r}")
            return
        w.ready = True
        self._startup_failures = 0

    def _startup_failed(self, w: _Worker, why: str) -> None:
        self.stats["startup_failures"] += 1
        self._startup_failures += 1
        if self._startup_failures >= MAX_STARTUP_FAILURES:
            raise RuntimeError(f"workers do not start ({why})")  # -> _run fails every task
        self._replace(w)

    def _assign(self) -> None:
        for w in self._workers:
            if not w.ready:
                continue
            while w.task is None:
                task = self._next_task()
                if task is None:
                    return
                try:
                    w.wconn.send((task.id, task.fn, task.args))
                except Exception as e:  # unpicklable task or dead worker
                    task.future.set_exception(RemoteError(f"could not send task: {e!r}"))
                    if not w.proc.is_alive():
                        self._replace(w)
                        break
                    continue
                now = time.monotonic()
                w.task = task
                w.started_task = now
                w.deadline = min(now + task.timeout if task.timeout else float("inf"),
                                 task.deadline if task.deadline is not None else float("inf"))

    def _collect(self, w: _Worker) -> None:
        task = w.task
        assert task is not None
        try:
            task_id, ok, value = w.conn.recv()
        except (EOFError, OSError):
            w.task = None
            self.stats["crashes"] += 1
            self._replace(w)
            task.future.set_exception(WorkerCrashed("worker process died"))
            return
        w.task = None
        if ok:
            task.future.set_result(value)
        else:
            task.future.set_exception(RemoteError(value))

