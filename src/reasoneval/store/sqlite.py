"""SQLite run store: one row per (run, item, sample, turn, role); completions are written before scoring.

Tables
  runs         one row per run (what makes it reproducible)
  completions  model outputs, role 'answer' or 'judge'
  verdicts     scores of completions, one per scorer (re-scoring adds / replaces rows, never regenerates)
  cache        response cache keyed on hash(model spec, prompt, params, sample) shared by all runs
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.types import Completion, Prompt, Usage, Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, created REAL, updated REAL, benchmark TEXT, subset TEXT, mode TEXT,
  model TEXT, spec_json TEXT, status TEXT
);
CREATE TABLE IF NOT EXISTS completions (
  run_id TEXT, item_key TEXT, sample INTEGER, turn INTEGER, role TEXT,
  subset TEXT, prompt_json TEXT, cache_key TEXT, text TEXT, finish_reason TEXT,
  prompt_tokens INTEGER, completion_tokens INTEGER, latency_s REAL, error TEXT, created REAL,
  PRIMARY KEY (run_id, item_key, sample, turn, role)
);
CREATE TABLE IF NOT EXISTS verdicts (
  run_id TEXT, item_key TEXT, sample INTEGER, turn INTEGER, scorer TEXT,
  outcome TEXT, extracted TEXT, method TEXT, detail_json TEXT, created REAL,
  PRIMARY KEY (run_id, item_key, sample, turn, scorer)
);
CREATE TABLE IF NOT EXISTS cache (
  key TEXT PRIMARY KEY, text TEXT, finish_reason TEXT, prompt_tokens INTEGER,
  completion_tokens INTEGER, latency_s REAL, created REAL
);
"""


@dataclass
class StoredCompletion:
    run_id: str
    item_key: str
    sample: int
    turn: int
    role: str
    subset: str
    prompt: Prompt
    completion: Completion


class RunStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.executescript(SCHEMA)
        self._verdict_buf: list[tuple[Any, ...]] = []
        self._writer: Any = None

    def close(self) -> None:
        self.flush()
        self.close_writer()
        self.db.close()

    # ---- runs
    def upsert_run(self, run_id: str, benchmark: str, subset: str, mode: str, model: str,
                   spec: dict[str, Any]) -> bool:
        """Create the run if new; returns True when it already existed (a resume)."""
        now = time.time()
        cur = self.db.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,))
        existed = cur.fetchone() is not None
        if existed:
            self.db.execute("UPDATE runs SET updated=?, status='running' WHERE run_id=?", (now, run_id))
        else:
            self.db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
                            (run_id, now, now, benchmark, subset, mode, model, json.dumps(spec), "running"))
        return existed

    def set_status(self, run_id: str, status: str) -> None:
        self.db.execute("UPDATE runs SET status=?, updated=? WHERE run_id=?", (status, time.time(), run_id))

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        rows = self.find_runs(run_id)
        return rows[0] if len(rows) == 1 else None

    def find_runs(self, prefix: str = "") -> list[dict[str, Any]]:
        cur = self.db.execute(
            "SELECT run_id, created, updated, benchmark, subset, mode, model, spec_json, status FROM runs "
            "WHERE run_id LIKE ? ORDER BY created", (prefix + "%",))
        keys = ["run_id", "created", "updated", "benchmark", "subset", "mode", "model", "spec", "status"]
        out = []
        for r in cur.fetchall():
            d = dict(zip(keys, r, strict=True))
            d["spec"] = json.loads(d["spec"])
            out.append(d)
        return out

    # ---- completions
    @staticmethod
    def _rows(run_id: str, item_key: str, sample: int, turn: int, role: str, subset: str, prompt: Prompt,
              cache_key: str, c: Completion, cache: bool) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
        now = time.time()
        row = (run_id, item_key, sample, turn, role, subset, json.dumps(prompt.to_json(), ensure_ascii=False),
               cache_key, c.text, c.finish_reason, c.usage.prompt_tokens, c.usage.completion_tokens,
               c.latency_s, c.error, now)
        cache_row = ((cache_key, c.text, c.finish_reason, c.usage.prompt_tokens, c.usage.completion_tokens,
                      c.latency_s, now) if cache and c.error is None else None)
        return row, cache_row

    def put_completion(self, run_id: str, item_key: str, sample: int, turn: int, role: str, subset: str,
                       prompt: Prompt, cache_key: str, c: Completion, cache: bool = False) -> None:
        """Durably store a completion (one transaction, with its response-cache entry when ``cache``)."""
        row, cache_row = self._rows(run_id, item_key, sample, turn, role, subset, prompt, cache_key, c, cache)
        with self.db:  # BEGIN ... COMMIT
            self.db.execute("BEGIN")
            self.db.execute("INSERT OR REPLACE INTO completions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
            if cache_row is not None:
                self.db.execute("INSERT OR REPLACE INTO cache VALUES (?,?,?,?,?,?,?)", cache_row)

    async def aput_completion(self, run_id: str, item_key: str, sample: int, turn: int, role: str,
                              subset: str, prompt: Prompt, cache_key: str, c: Completion,
                              cache: bool = False) -> None:
        """``put_completion`` through the group-commit writer thread; returns once it is committed."""
        if self._writer is None:
            from .writer import AsyncWriter

            self._writer = AsyncWriter(self.path)
        row, cache_row = self._rows(run_id, item_key, sample, turn, role, subset, prompt, cache_key, c, cache)
        await self._writer.put_completion(row, cache_row)

    def close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def completions(self, run_id: str, role: str | None = None) -> Iterator[StoredCompletion]:
        q = ("SELECT run_id, item_key, sample, turn, role, subset, prompt_json, text, finish_reason, "
             "prompt_tokens, completion_tokens, latency_s, error FROM completions WHERE run_id=?")
        args: list[Any] = [run_id]
        if role:
            q += " AND role=?"
            args.append(role)
        q += " ORDER BY rowid"
        for r in self.db.execute(q, args):
            yield StoredCompletion(r[0], r[1], r[2], r[3], r[4], r[5], Prompt.from_json(json.loads(r[6])),
                                   Completion(r[7] or "", r[8], Usage(r[9] or 0, r[10] or 0), r[11] or 0.0,
                                              r[12]))

    def count(self, run_id: str) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM completions WHERE run_id=?", (run_id,)).fetchone()[0])

    # ---- verdicts
    def put_verdict(self, run_id: str, item_key: str, sample: int, turn: int, scorer: str, v: Verdict,
                    buffered: bool = False) -> None:
        """Store a verdict. ``buffered`` verdicts are written in batches (``flush``): they are derived data,
        re-computed from the stored completion on resume, so a crash between batches loses nothing."""
        self._verdict_buf.append(
            (run_id, item_key, sample, turn, scorer, v.outcome.value, v.extracted, v.method,
             json.dumps(v.detail, ensure_ascii=False, default=str), time.time()))
        if not buffered or len(self._verdict_buf) >= 256:
            self.flush()

    def flush(self) -> None:
        if not self._verdict_buf:
            return
        buf, self._verdict_buf = self._verdict_buf, []
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?,?,?,?,?,?,?,?,?,?)", buf)

    def verdicts(self, run_id: str, scorer: str) -> dict[tuple[str, int, int], Verdict]:
        self.flush()
        out = {}
        for r in self.db.execute(
                "SELECT item_key, sample, turn, outcome, extracted, method, detail_json FROM verdicts "
                "WHERE run_id=? AND scorer=?", (run_id, scorer)):
            out[(r[0], r[1], r[2])] = Verdict.from_json(
                {"outcome": r[3], "extracted": r[4], "method": r[5], "detail": json.loads(r[6] or "{}")})
        return out

    def delete_errors(self, run_id: str) -> int:
        """Forget failed calls (and their verdicts) so ``--retry-errors`` re-asks only those."""
        keys = self.db.execute("SELECT item_key, sample FROM completions WHERE run_id=? AND error IS NOT NULL",
                               (run_id,)).fetchall()
        for item_key, sample in keys:
            # a failed turn invalidates it and every later turn of that item/sample
            self.db.execute("DELETE FROM completions WHERE run_id=? AND item_key=? AND sample=?",
                            (run_id, item_key, sample))
            self.db.execute("DELETE FROM verdicts WHERE run_id=? AND item_key=? AND sample=?",
                            (run_id, item_key, sample))
        return len(keys)

    # ---- response cache
    def cache_get(self, key: str) -> Completion | None:
        r = self.db.execute("SELECT text, finish_reason, prompt_tokens, completion_tokens, latency_s FROM cache "
                            "WHERE key=?", (key,)).fetchone()
        if r is None:
            return None
        return Completion(r[0], r[1], Usage(r[2], r[3]), r[4])

