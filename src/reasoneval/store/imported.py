"""Bulk writes for imported runs, and the items an imported run was scored against.

An imported run is written in **one transaction** (:func:`put_imported_run`): its ``runs`` row (status
``complete``), completions, verdicts, items and judge calls commit together or not at all, so an import killed
(``kill -9``) or stopped by a full disk leaves nothing of that run, and the next import writes it whole. A run
an older version left half-written (status ``running``: the run row committed before its rows) is replaced
whole by the next import of the same files.

A run made here is re-read against its benchmark's data; a run imported from outside files keeps the items
(release record and gold) its rows carried, because a release's golds can differ from the packaged data
(a release may change a few answers after its raw outputs were made). ``score`` re-grades an imported run
against these stored items, so its numbers stay the ones the import gave.

Table
  items   (run_id, item_key) -> the Item as JSON (benchmark, subset, id, data, gold)
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..core.hashing import canonical_json
from ..core.safetext import storable_json
from ..core.values import Completion, Item, Prompt, Verdict
from .errors import STORE_ERRORS, describe
from .sqlite import INSERT_COMPLETION, INSERT_VERDICT, RunStore, _detail_json, _text
from .statements import INSERT_PROMPT, PROMPT_HASH, PROMPT_JSON, shared_prompt

_EMPTY = Prompt()
_EMPTY_JSON = canonical_json(_EMPTY.to_json())  # a row's prompt until its own is put in (made once, not per row)
ITEMS_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
  run_id TEXT, item_key TEXT, item_json TEXT,
  PRIMARY KEY (run_id, item_key)
);
"""

#: one imported row: (item, sample, [(prompt or None, completion, verdict) per turn])
ImportRow = tuple[Item, int, list[tuple[Prompt | None, Completion, Verdict]]]


def _item_json(item: Item) -> str:
    return json.dumps({"benchmark": item.benchmark, "subset": item.subset, "id": item.id, "data": item.data,
                       "gold": item.gold}, ensure_ascii=False)


#: a judge's call kept with an imported row: (item key, sample, turn, subset, prompt, completion)
JudgeRow = tuple[str, int, int, str, Prompt, Completion]


@dataclass(frozen=True)
class ImportedRunRow:
    """The ``runs`` row of an imported run."""

    run_id: str
    benchmark: str
    subset: str
    mode: str
    model: str
    record: dict[str, Any]


def _run_rows(run_id: str, rows: Iterable[ImportRow], scorer: str, prompt_hashes: dict[Prompt, str],
              prompts: dict[str, str], items: dict[str, str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The completion and verdict rows of ``rows``; each distinct prompt goes to ``prompts`` (hash -> JSON) once
    and the rows refer to it by hash (:func:`~.statements.shared_prompt`), the items to ``items`` (key -> JSON).
    ``prompt_hashes``: prompt -> its hash, shared by the runs of one import (a release's models were sent the same
    prompts: each is encoded and hashed once)."""
    comps: list[tuple[Any, ...]] = []
    verdicts: list[tuple[Any, ...]] = []
    now = time.time()
    for item, sample, turns in rows:
        if item.key not in items:
            items[item.key] = _item_json(item)
        for t, (p, c, v) in enumerate(turns):
            row, _ = RunStore._rows(run_id, item.key, sample, t, "answer", item.subset, _EMPTY, "", c, False,
                                    _EMPTY_JSON)
            if p is not None and p != _EMPTY:  # the same prompt recurs across a release's models: stored once
                try:
                    h = prompt_hashes.get(p)
                except TypeError:  # content parts (images) are not hashable: encoded as they come
                    h = None
                if h is None:
                    pj = storable_json(json.dumps(p.to_json(), ensure_ascii=False))
                    row, (h, _) = shared_prompt((*row[:PROMPT_JSON], pj, *row[PROMPT_JSON + 1:]))
                    prompts.setdefault(h, pj)
                    with contextlib.suppress(TypeError):
                        prompt_hashes[p] = h
                else:
                    row = (*row[:PROMPT_JSON], None, *row[PROMPT_JSON + 1:PROMPT_HASH], h, *row[PROMPT_HASH + 1:])
                    if h not in prompts:
                        prompts[h] = _NEEDED
            comps.append(row)
            verdicts.append((run_id, item.key, sample, t, scorer, v.outcome.value, _text(v.extracted), v.method,
                             _detail_json(v.detail), now))
    return comps, verdicts


#: a prompt the run refers to whose JSON an earlier run of the same import already stored (or staged)
_NEEDED = ""


def _replace_run(db: sqlite3.Connection, run_id: str, run: ImportedRunRow, now: float) -> None:
    for table in ("completions", "verdicts", "items", "runs"):  # fixed names: an earlier half import
        db.execute(f"DELETE FROM {table} WHERE run_id=?", (run_id,))
    db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
               (run_id, now, now, run.benchmark, run.subset, run.mode, run.model, json.dumps(run.record),
                "complete"))


def _in_one_transaction(store: RunStore, write: Callable[[sqlite3.Connection], None]) -> None:
    db = store.db
    try:
        db.executescript(ITEMS_SCHEMA)
        db.execute("BEGIN IMMEDIATE")
        try:
            write(db)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(*STORE_ERRORS):
                    db.execute("ROLLBACK")
            raise
    except STORE_ERRORS as e:
        raise describe(store.path, e) from e


def put_imported_run(store: RunStore, run: ImportedRunRow, rows: Iterable[ImportRow], scorer: str,
                     prompt_cache: dict[Prompt, str] | None = None, judged: Iterable[JudgeRow] = ()) -> int:
    """The run row (status ``complete``), completions, verdicts, items and judge calls of one imported run in one
    transaction: all or nothing (what an earlier, interrupted import left of the run is replaced). Returns the
    number of completions. Each distinct prompt is stored once (the ``prompts`` table, as runs made here store
    theirs). ``prompt_cache``: prompt -> its hash, shared by the runs of one import (a release's models were sent
    the same prompts). A store error (a full disk, ...) is one :class:`~reasoneval.store.errors.StoreError` line,
    and the store keeps what it held before."""
    run_id = run.run_id
    prompts: dict[str, str] = {}
    items: dict[str, str] = {}
    comps, verdicts = _run_rows(run_id, rows, scorer, {} if prompt_cache is None else prompt_cache, prompts, items)
    judge_rows = [shared_prompt(RunStore._rows(run_id, key, sample, turn, "judge", subset, p, "", c, False)[0])
                  for key, sample, turn, subset, p, c in judged]
    now = time.time()

    def write(db: sqlite3.Connection) -> None:
        _replace_run(db, run_id, run, now)
        db.executemany(INSERT_PROMPT, [(h, pj) for h, pj in prompts.items() if pj is not _NEEDED])
        db.executemany(INSERT_COMPLETION, comps)
        db.executemany(INSERT_VERDICT, verdicts)
        db.executemany("INSERT OR REPLACE INTO items VALUES (?,?,?)", [(run_id, k, j) for k, j in items.items()])
        for row, prompt_row in judge_rows:
            db.execute(INSERT_PROMPT, prompt_row)
            db.execute(INSERT_COMPLETION, row)

    _in_one_transaction(store, write)
    return len(comps) + len(judge_rows)


_COLS = ",".join(f"c{i}" for i in range(1, 19))  # a completion row's columns after run_id
_VCOLS = ",".join(f"v{i}" for i in range(1, 10))
STAGE_SCHEMA = f"""
CREATE TEMP TABLE IF NOT EXISTS stage_c (g INTEGER, {_COLS});
CREATE TEMP TABLE IF NOT EXISTS stage_v (g INTEGER, {_VCOLS});
CREATE TEMP TABLE IF NOT EXISTS stage_i (g INTEGER, item_key TEXT, item_json TEXT, PRIMARY KEY (g, item_key));
CREATE TEMP TABLE IF NOT EXISTS stage_p (hash TEXT PRIMARY KEY, json TEXT);
CREATE INDEX IF NOT EXISTS temp.stage_c_g ON stage_c (g);
CREATE INDEX IF NOT EXISTS temp.stage_v_g ON stage_v (g);
"""


class ImportStaging:
    """The rows of an import's runs held on disk until each run is written whole, so an import of any size runs
    in bounded memory (rows are scored in chunks, as they are read) and each run is still **one transaction**
    (:func:`put_imported_run`'s guarantee): the rows wait in ``TEMP`` tables of the store's connection (a
    temporary file SQLite deletes when the connection closes, or when the process dies: a killed import leaves
    nothing in the store), then :meth:`write_run` copies a run's rows in one transaction with its ``runs`` row.
    A group's run id is known only once all its rows are read (it names its files), hence the staging."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        db = store.db
        self._temp_store = db.execute("PRAGMA temp_store").fetchone()[0]
        db.execute("PRAGMA temp_store=FILE")  # on disk (beyond the temp cache), never in memory
        db.executescript(STAGE_SCHEMA)
        self.prompt_hashes: dict[Prompt, str] = {}

    def add(self, g: int, rows: Iterable[ImportRow], scorer: str) -> int:
        """Stage ``rows`` of group ``g``; returns the completions staged."""
        prompts: dict[str, str] = {}
        items: dict[str, str] = {}
        comps, verdicts = _run_rows("", rows, scorer, self.prompt_hashes, prompts, items)
        db = self.store.db
        try:
            db.execute("BEGIN")  # (the TEMP tables only: the store's file is not locked)
            db.executemany("INSERT OR IGNORE INTO stage_p VALUES (?,?)",
                           [(h, pj) for h, pj in prompts.items() if pj is not _NEEDED])
            db.executemany(f"INSERT INTO stage_c VALUES (?,{','.join('?' * 18)})", [(g, *r[1:]) for r in comps])
            db.executemany(f"INSERT INTO stage_v VALUES (?,{','.join('?' * 9)})", [(g, *r[1:]) for r in verdicts])
            db.executemany("INSERT OR IGNORE INTO stage_i VALUES (?,?,?)", [(g, k, j) for k, j in items.items()])
            db.execute("COMMIT")
        except STORE_ERRORS as e:
            if db.in_transaction:
                with contextlib.suppress(*STORE_ERRORS):
                    db.execute("ROLLBACK")
            raise describe(self.store.path, e) from e
        return len(comps)

    def write_run(self, g: int, run: ImportedRunRow) -> int:
        """Group ``g``'s staged rows as run ``run``, in one transaction (its prompts, completions, verdicts, items
        and ``runs`` row); returns its completions."""
        run_id = run.run_id
        now = time.time()
        n = self.store.db.execute("SELECT COUNT(*) FROM stage_c WHERE g=?", (g,)).fetchone()[0]

        def write(db: sqlite3.Connection) -> None:
            _replace_run(db, run_id, run, now)
            db.execute("INSERT OR IGNORE INTO prompts SELECT hash, json FROM stage_p WHERE hash IN "
                       "(SELECT c18 FROM stage_c WHERE g=? AND c18 IS NOT NULL)", (g,))
            db.execute(f"INSERT OR REPLACE INTO completions SELECT ?,{_COLS} FROM stage_c WHERE g=? ORDER BY rowid",
                       (run_id, g))
            db.execute(f"INSERT OR REPLACE INTO verdicts SELECT ?,{_VCOLS} FROM stage_v WHERE g=? ORDER BY rowid",
                       (run_id, g))
            db.execute("INSERT OR REPLACE INTO items SELECT ?, item_key, item_json FROM stage_i WHERE g=?",
                       (run_id, g))

        _in_one_transaction(self.store, write)
        return int(n)

    def close(self) -> None:
        db = self.store.db
        with contextlib.suppress(*STORE_ERRORS):
            db.executescript("DROP TABLE IF EXISTS temp.stage_c; DROP TABLE IF EXISTS temp.stage_v; "
                             "DROP TABLE IF EXISTS temp.stage_i; DROP TABLE IF EXISTS temp.stage_p;")
            db.execute(f"PRAGMA temp_store={int(self._temp_store)}")


def stored_items(store: RunStore, run_id: str) -> list[Item] | None:
    """The items an imported run was scored against; None for a run that stored none (a run made here)."""
    have = store.db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='items'").fetchone()
    if have is None:
        return None
    out = []
    for (j,) in store.db.execute("SELECT item_json FROM items WHERE run_id=?", (run_id,)):
        d = json.loads(j)
        out.append(Item(d["benchmark"], d["subset"], d["id"], d["data"], d["gold"]))
    return out or None


def set_protocol(store: RunStore, run_id: str, protocol: str) -> None:
    """Record the outside protocol of a run imported before runs recorded it (``spec.protocol``; not in the id)."""
    row = store.db.execute("SELECT spec_json FROM runs WHERE run_id=?", (run_id,)).fetchone()
    if row is None:
        return
    spec = json.loads(row[0] or "{}")
    if spec.get("protocol") != protocol:
        spec["protocol"] = protocol
        store.db.execute("UPDATE runs SET spec_json=? WHERE run_id=?", (json.dumps(spec), run_id))


def delete_items(store: RunStore, run_id: str) -> None:
    have = store.db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='items'").fetchone()
    if have is not None:
        store.db.execute("DELETE FROM items WHERE run_id=?", (run_id,))
