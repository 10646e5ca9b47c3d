"""Bulk writes for imported runs, and the items an imported run was scored against.

An imported run is written in **one transaction** (:func:`put_imported_run`): its ``runs`` row (status
``complete``), completions, verdicts, items and judge calls commit together or not at all, so an import killed
(``kill -9``) or stopped by a full disk leaves nothing of that run, and the next import writes it whole. A run
an older version left half-written (status ``running``: the run row committed before its rows) is replaced
whole by the next import of the same files.

A run made here is re-read against its benchmark's data; a run imported from outside files keeps the items
(release record and gold) its rows carried, because a release's golds can differ from the packaged data
(KOR-Bench: a few answers changed after the raw outputs were made). ``score`` re-grades an imported run
against these stored items, so its numbers stay the ones the import gave.

Table
  items   (run_id, item_key) -> the Item as JSON (benchmark, subset, id, data, gold)
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.safetext import storable_json
from ..core.types import Completion, Item, Prompt, Verdict
from .errors import STORE_ERRORS, describe
from .sqlite import INSERT_COMPLETION, INSERT_VERDICT, RunStore, _detail_json, _text
from .statements import INSERT_PROMPT, shared_prompt

_EMPTY = Prompt()
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


def put_imported_run(store: RunStore, run: ImportedRunRow, rows: Iterable[ImportRow], scorer: str,
                     prompt_cache: dict[Prompt, str] | None = None, judged: Iterable[JudgeRow] = ()) -> int:
    """The run row (status ``complete``), completions, verdicts, items and judge calls of one imported run in one
    transaction: all or nothing (what an earlier, interrupted import left of the run is replaced). Returns the
    number of completions. ``prompt_cache``: prompt -> its stored JSON, shared by the runs of one import (a
    release's models were sent the same prompts). A store error (a full disk, ...) is one
    :class:`~reasoneval.store.errors.StoreError` line, and the store keeps what it held before."""
    run_id = run.run_id
    comps: list[tuple[Any, ...]] = []
    prompt_json: dict[Prompt, str] = {} if prompt_cache is None else prompt_cache
    verdicts: list[tuple[Any, ...]] = []
    items: dict[str, str] = {}
    now = time.time()
    for item, sample, turns in rows:
        items.setdefault(item.key, _item_json(item))
        for t, (p, c, v) in enumerate(turns):
            row, _ = RunStore._rows(run_id, item.key, sample, t, "answer", item.subset, _EMPTY, "", c, False)
            if p is not None and p != _EMPTY:  # the same prompt recurs across a release's models: encoded once
                try:
                    pj = prompt_json.get(p)
                except TypeError:  # content parts (images) are not hashable: encoded as they come
                    pj = None
                if pj is None:
                    pj = storable_json(json.dumps(p.to_json(), ensure_ascii=False))
                    with contextlib.suppress(TypeError):
                        prompt_json[p] = pj
                row = (*row[:6], pj, *row[7:])
            comps.append(row)
            verdicts.append((run_id, item.key, sample, t, scorer, v.outcome.value, _text(v.extracted), v.method,
                             _detail_json(v.detail), now))
    judge_rows = [shared_prompt(RunStore._rows(run_id, key, sample, turn, "judge", subset, p, "", c, False)[0])
                  for key, sample, turn, subset, p, c in judged]
    db = store.db
    try:
        db.executescript(ITEMS_SCHEMA)
        db.execute("BEGIN IMMEDIATE")
        try:
            for table in ("completions", "verdicts", "items", "runs"):  # fixed names: an earlier half import
                db.execute(f"DELETE FROM {table} WHERE run_id=?", (run_id,))
            db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
                       (run_id, now, now, run.benchmark, run.subset, run.mode, run.model, json.dumps(run.record),
                        "complete"))
            db.executemany(INSERT_COMPLETION, comps)
            db.executemany(INSERT_VERDICT, verdicts)
            db.executemany("INSERT OR REPLACE INTO items VALUES (?,?,?)", [(run_id, k, j) for k, j in items.items()])
            for row, prompt_row in judge_rows:
                db.execute(INSERT_PROMPT, prompt_row)
                db.execute(INSERT_COMPLETION, row)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(*STORE_ERRORS):
                    db.execute("ROLLBACK")
            raise
    except STORE_ERRORS as e:
        raise describe(store.path, e) from e
    return len(comps) + len(judge_rows)


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
