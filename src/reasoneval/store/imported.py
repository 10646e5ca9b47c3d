"""Bulk writes for imported runs, and the items an imported run was scored against.

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
from typing import Any

from ..core.safetext import storable_json
from ..core.types import Completion, Item, Prompt, Verdict
from .sqlite import INSERT_COMPLETION, INSERT_VERDICT, RunStore, _detail_json, _text

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


def put_imported(store: RunStore, run_id: str, rows: Iterable[ImportRow], scorer: str,
                 prompt_cache: dict[Prompt, str] | None = None) -> int:
    """Completions, verdicts and items of one imported run in one transaction (all or nothing).
    ``prompt_cache``: prompt -> its stored JSON, shared by the runs of one import (a release's models were sent the
    same prompts)."""
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
    db = store.db
    db.executescript(ITEMS_SCHEMA)
    with db:
        db.execute("BEGIN")
        db.executemany(INSERT_COMPLETION, comps)
        db.executemany(INSERT_VERDICT, verdicts)
        db.executemany("INSERT OR REPLACE INTO items VALUES (?,?,?)", [(run_id, k, j) for k, j in items.items()])
    return len(comps)


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
