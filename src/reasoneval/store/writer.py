"""Group commit off the event loop: completions are durable before they are scored, at high rates.

Coroutines hand rows to one writer thread with its own SQLite connection; it commits everything that
queued up meanwhile in one transaction and then wakes the waiting coroutines. SQLite's C code runs
without the GIL, so the event loop keeps serving HTTP while the disk work happens.

Woken by a first hand-over, the thread waits :data:`GATHER_S` before it takes the queue: when answers arrive one
at a time (a run bound by the server's latency), the next few loop turns' completions join the same commit and
the same wake-up of the loop, instead of one commit, one thread switch and one wake-up each (at concurrency 64
against a 200 ms server: ~6x fewer commits, ~8% less client CPU per request; a completion is durable ~2 ms later,
1% of such a request).
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import STORE_ERRORS, describe
from .statements import INSERT_CACHE as _INSERT_CACHE
from .statements import INSERT_COMPLETION as _INSERT_COMPLETION
from .statements import INSERT_PROMPT, PromptHashes, shared_prompt

#: one completion's writes (statement, values) and its waiter (None: nobody waits)
_Entry = tuple[list[tuple[str, tuple[Any, ...]]], "asyncio.Future[None] | None"]


#: seconds the writer gathers hand-overs after the first before it commits (see the module's docstring)
GATHER_S = 0.002


class AsyncWriter:
    def __init__(self, path: Path, shown: Path | None = None, gather_s: float | None = None) -> None:
        """``path``: the store's real file; ``shown``: the name error messages give (default ``path``);
        ``gather_s``: default :data:`GATHER_S`."""
        #: entries: the rows of one completion (its own and its cache row), committed in one batch, and its waiter
        #: (verdict rows have no waiter: they are derived data, and a failure is raised by ``close``)
        #: (the queue carries lists of entries: a loop hands over what its iteration produced in one put)
        self._q: queue.SimpleQueue[list[_Entry] | None] = queue.SimpleQueue()
        #: per event loop, the entries made during its current iteration, handed to the thread at its next one
        #: (one queue put and one wake-up of the thread per loop iteration, not one per completion)
        self._pending: dict[asyncio.AbstractEventLoop, list[_Entry]] = {}
        self._path = path
        self._shown = shown or path
        self._error: BaseException | None = None
        self._gather_s = GATHER_S if gather_s is None else gather_s
        #: transactions committed so far (one per batch of hand-overs)
        self.batches = 0
        self._thread = threading.Thread(target=self._loop, name="sqlite-writer", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        db: sqlite3.Connection | None = None
        open_err: BaseException | None = None
        try:
            db = sqlite3.connect("file:" + quote(str(self._path)) + "?mode=rw", uri=True, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=30000")
        except STORE_ERRORS as e:
            open_err = describe(self._shown, e)
        stop = False
        hashes = PromptHashes()
        while not stop:
            got = [self._q.get()]
            if got[0] is not None and self._gather_s > 0:
                time.sleep(self._gather_s)  # the next few loop turns' completions join this commit
            while True:
                try:
                    got.append(self._q.get_nowait())
                except queue.Empty:
                    break
            rows = [e for part in got if part is not None for e in part]
            stop = any(part is None for part in got)
            err: BaseException | None = open_err
            if db is not None and rows:
                try:
                    with db:
                        db.execute("BEGIN")
                        for sql, args in _by_statement(rows, hashes):  # one executemany per statement
                            db.executemany(sql, args)
                    self.batches += 1
                except STORE_ERRORS as e:  # disk full, read-only, ...: one clear error for every waiter
                    err = describe(self._shown, e)
                except BaseException as e:  # reported to every waiter of this batch
                    err = e
            by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
            for _, fut in rows:
                if fut is not None:
                    by_loop.setdefault(fut.get_loop(), []).append(fut)
            if err is not None and any(fut is None for _, fut in rows) and self._error is None:
                self._error = err  # raised by close(): nobody awaits these rows
            for loop, futs in by_loop.items():  # one wake-up of each loop per batch, not one per row
                try:
                    loop.call_soon_threadsafe(_resolve_all, futs, err)
                except RuntimeError:  # that loop is closed: nobody waits any more
                    pass
        if db is not None:
            db.close()

    async def put_completion(self, row: tuple[Any, ...], cache_row: tuple[Any, ...] | None) -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        writes = [(_INSERT_COMPLETION, row)]
        if cache_row is not None:
            writes.append((_INSERT_CACHE, cache_row))
        pending = self._pending.get(loop)
        if pending is None:  # the first of this iteration: handed over once the iteration's callbacks have run
            pending = self._pending[loop] = []
            loop.call_soon(self._hand_over, loop)
        pending.append((writes, fut))
        await fut

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        pending = self._pending.pop(loop, None)
        if pending:
            self._q.put(pending)

    def put_rows(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Rows to commit with the next batch; nobody waits for them (a failure is raised by :meth:`close`)."""
        self._q.put([([(sql, r) for r in rows], None)])

    def close(self) -> None:
        """Commit what is queued and stop; raises the error of a row nobody waited for, if one failed."""
        for loop in list(self._pending):  # made in this iteration, not handed over yet
            self._hand_over(loop)
        self._q.put(None)
        self._thread.join()
        if self._error is not None:
            err, self._error = self._error, None
            raise err


def _by_statement(entries: list[_Entry], hashes: PromptHashes | None = None) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The batch's rows grouped by statement, each group in queue order. Each statement writes its own table
    (``INSERT OR REPLACE``), so only the order within a statement can matter (the last of two equal keys wins)."""
    by: dict[str, list[tuple[Any, ...]]] = {}
    for writes, _ in entries:
        for sql, args in writes:
            if sql == _INSERT_COMPLETION:  # its prompt stored once (hashed here, off the event loop)
                args, prompt_row = shared_prompt(args, hashes)
                by.setdefault(INSERT_PROMPT, []).append(prompt_row)
            by.setdefault(sql, []).append(args)
    return list(by.items())


def _resolve_all(futs: list[asyncio.Future[None]], err: BaseException | None) -> None:
    for fut in futs:
        if fut.done():
            continue
        if err is None:
            fut.set_result(None)
        else:
            fut.set_exception(err)
