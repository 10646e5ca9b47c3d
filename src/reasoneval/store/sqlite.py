"""SQLite run store: one row per (run, item, sample, turn, role); completions are written before scoring.

Tables
  runs         one row per run (what makes it reproducible)
  completions  model outputs, role 'answer' or 'judge'
  verdicts     scores of completions, one per scorer (re-scoring adds / replaces rows, never regenerates)
  cache        response cache keyed on hash(model spec, prompt, params, sample) shared by all runs
  prompts      each distinct prompt once, keyed by its hash: a completion row refers to it (``prompt_hash``) and
               leaves ``prompt_json`` empty; rows written before, and imported ones, hold their JSON themselves
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import quote

from ..core.hashing import canonical_json
from ..core.safetext import redact, redact_secrets, storable, storable_json
from ..core.values import Completion, Outcome, Prompt, Usage, Verdict
from . import compact, identity
from .errors import DECODE_ERRORS, STORE_ERRORS, StoreError, corrupted, describe, one_line
from .identity import real_path
from .statements import INSERT_CACHE, INSERT_COMPLETION, INSERT_PROMPT, INSERT_VERDICT, shared_prompt
from .wal import check_log_present

P = ParamSpec("P")
R = TypeVar("R")
A = TypeVar("A")
_UNREAD = Prompt()  # the prompt of a completion read with prompts=False
_OUTCOMES = {outcome.value: outcome for outcome in Outcome}

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
CREATE TABLE IF NOT EXISTS prompts (hash TEXT PRIMARY KEY, json TEXT);
"""

#: columns added after the first stores: appended by ALTER TABLE to old stores (and, after the CREATE, to new
#: ones), so every store has them in the same place; a read-only old store reads them as NULL
LATER_COLUMNS = {
    "completions": (("reasoning", "TEXT"), ("reasoning_tokens", "INTEGER"), ("ttft_s", "REAL"),
                    ("prompt_hash", "TEXT")),
    "cache": (("reasoning", "TEXT"), ("reasoning_tokens", "INTEGER"), ("ttft_s", "REAL")),
}


def migrate(db: sqlite3.Connection) -> None:
    """Add the columns an older store lacks (``ALTER TABLE ... ADD COLUMN``; existing rows read NULL)."""
    for table, cols in LATER_COLUMNS.items():
        have = {column[1] for column in db.execute(f"PRAGMA table_info({table})")}
        for name, kind in cols:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


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


def _store_errors(decode: bool) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """sqlite3 / OS errors of a store method become one :class:`StoreError` naming the store; with ``decode``,
    so does a stored row that cannot be decoded (bytes overwritten inside a value SQLite's own checks accept:
    JSON that does not parse, a wrong type): a corrupted store, not a traceback."""
    caught = (*STORE_ERRORS, *DECODE_ERRORS) if decode else STORE_ERRORS

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return fn(*args, **kwargs)
            except caught as e:
                if isinstance(e, STORE_ERRORS):
                    raise describe(args[0].path, e) from e  # type: ignore[attr-defined]
                raise _undecodable(args[0].path, e) from e  # type: ignore[attr-defined]

        return wrapper

    return wrap


_guarded = _store_errors(decode=False)
_reading = _store_errors(decode=True)


def _undecodable(path: Path, e: BaseException) -> StoreError:
    return corrupted(path, f"a stored row cannot be decoded: {e.__class__.__name__}")


def check_integrity(db: sqlite3.Connection, path: Path) -> None:
    """``PRAGMA quick_check``: every page of the file (tables, indexes, free list) is structurally sound.
    Bytes overwritten anywhere in the file (not only the header) are found when the store is opened, whatever
    the command goes on to read (linear and cheap: ~0.2 s for a 280 MB store)."""
    rows = db.execute("PRAGMA quick_check(1)").fetchall()
    if not rows or rows[0][0] != "ok":
        found = [line for line in str(rows[0][0] if rows else "no answer").splitlines()
                 if line and not line.startswith("***")]
        raise corrupted(path, f"integrity check: {found[0] if found else rows}")


def _text(text: str | None) -> str | None:
    return None if text is None else storable(text)


def _detail_json(detail: dict[str, Any]) -> str:
    doc = storable_json(json.dumps(detail, ensure_ascii=False, default=str))
    red = redact(doc)
    if red != doc:
        try:
            json.loads(red)
        except ValueError:
            red = json.dumps({"redacted": red}, ensure_ascii=False)
    return red


def _init_new(db: sqlite3.Connection) -> None:
    """A new store's content, built before it takes its name (``identity.create``; a temporary file, so without
    a journal or syncs of its own: ``create`` syncs the finished file once)."""
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute(f"PRAGMA application_id={identity.APP_ID}")
    db.executescript(SCHEMA)
    migrate(db)
    db.execute("PRAGMA journal_mode=WAL")  # recorded in the file's header


def _connect_ro(path: Path, shown: Path) -> sqlite3.Connection:
    """Read-only (``path``: the real file; ``shown``: the name messages give): no WAL switch, no schema; on a
    read-only file system fall back to ``immutable`` (which ignores a write-ahead log, so it is refused when a
    non-empty ``-wal`` file holds committed rows)."""
    uri = "file:" + quote(str(path))
    last: BaseException | None = None
    for extra in ("?mode=ro", "?mode=ro&immutable=1"):
        if "immutable" in extra:
            wal = path.with_name(path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise StoreError(
                    f"store {shown} cannot be opened read-only here ({one_line(str(last))}) and reading it without "
                    f"its write-ahead log {wal.name} would miss committed rows: copy {path.name} with {wal.name} "
                    "to a writable place and read the copy")
        try:
            db = sqlite3.connect(uri + extra, uri=True, isolation_level=None, check_same_thread=False)
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as e:
            last = e
            continue
        try:
            check_integrity(db, shown)
            identity.check_ours(db, shown)
        except BaseException:
            db.close()
            raise
        return db
    assert last is not None
    raise last


def _batches(cur: sqlite3.Cursor, path: Path, n: int = 2000) -> Iterator[Any]:
    """The cursor's rows, ``n`` at a time (a store error while reading is the store's one-line error)."""
    while True:
        try:
            rows = cur.fetchmany(n)
        except STORE_ERRORS as e:
            raise describe(path, e) from e
        if not rows:
            return
        yield from rows


class _Verdicts:
    """Stored verdicts decoded with what repeats shared: one ``Verdict`` per distinct stored verdict and one
    ``detail`` dict per distinct stored detail (both read-only: readers never change them), one string per
    distinct key, method and extracted answer (at most 65,536 of each kept)."""

    KEPT = 65536

    def __init__(self) -> None:
        self._details: dict[str, dict[str, Any]] = {}
        self._strings: dict[str, str] = {}
        self._verdicts: dict[tuple[str, str | None, str, str | None], Verdict] = {}

    def same(self, string: str) -> str:
        got = self._strings.get(string)
        if got is None:
            if len(self._strings) >= self.KEPT:
                return string
            got = self._strings[string] = string
        return got

    def of(self, outcome: str, extracted: str | None, method: str, detail_json: str | None) -> Verdict:
        key = (outcome, extracted, method, detail_json)
        got = self._verdicts.get(key)
        if got is None:
            got = self._decode(outcome, extracted, method, detail_json)
            if len(self._verdicts) < self.KEPT:
                self._verdicts[key] = got
        return got

    def _decode(self, outcome: str, extracted: str | None, method: str, detail_json: str | None) -> Verdict:
        raw = detail_json or "{}"
        detail = self._details.get(raw)
        if detail is None:
            detail = json.loads(raw)
            if len(self._details) < self.KEPT:
                self._details[raw] = detail
        # Verdict.from_json of the same fields, without an enum call per verdict (an unknown outcome: KeyError)
        strings = self._strings
        if len(strings) < self.KEPT - 1:  # (``same`` of both, without two calls per verdict)
            method = strings.setdefault(method, method)
            if extracted is not None:
                extracted = strings.setdefault(extracted, extracted)
        else:
            method = self.same(method)
            extracted = None if extracted is None else self.same(extracted)
        return Verdict(_OUTCOMES[outcome], extracted, method, detail or {})


class _Prompts:
    """Stored prompts decoded once per distinct prompt (read-only, like the frozen ``Prompt`` itself), whether a
    row refers to the ``prompts`` table by hash or holds its JSON itself (at most 4,096 kept: the prompts of an
    item's samples come close together)."""

    KEPT = 4096

    def __init__(self, db: sqlite3.Connection, seen: dict[str, Prompt] | None = None) -> None:
        self._db = db
        self._seen: dict[str, Prompt] = {} if seen is None else seen

    def of(self, raw: str | None, ref: str | None) -> Prompt:
        key = raw if raw is not None else ref
        if key is None:
            raise ValueError("a completion row with neither a prompt nor a prompt reference")
        got = self._seen.get(key)
        if got is None:
            if raw is None:
                found = self._db.execute("SELECT json FROM prompts WHERE hash=?", (ref,)).fetchone()
                if found is None:
                    raise KeyError(f"prompt {ref} is not in the prompts table")
                raw = found[0]
            got = Prompt.from_json(json.loads(raw))
            if len(self._seen) >= self.KEPT:
                self._seen.clear()
            self._seen[key] = got
        return got


class RunStore:
    """The run store. ``readonly=True`` opens an existing store for reading only (``report``, ``export``):
    it works on read-only files and file systems and never creates or alters anything. Every failure is a
    :class:`~reasoneval.store.errors.StoreError` with a one-line message."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)  # as given: what messages name
        self.real = real_path(self.path)  # the file itself (links resolved): what is opened and locked
        self.readonly = readonly
        self._verdict_buf: list[tuple[Any, ...]] = []
        self._writer: Any = None
        self._sound_prompts: set[str] = set()  # shared prompts found to be JSON (compact_answers checks each once)
        # compact_answers' verdicts, shared between runs too (a report's runs answer the same items alike)
        self._compact_verdicts = _Verdicts()
        try:
            if self.real.is_file() and self.real.stat().st_size == 0:
                raise StoreError(f"store {self.path} is an empty file (0 bytes), not a reasoneval store; "
                                 "it is left alone: remove it or choose another --store")
            check_log_present(self.real, self.path)  # a log deleted under another process: never written
            if readonly:
                if not self.real.exists():
                    raise StoreError(f"no store at {self.path}")
                self.db = _connect_ro(self.real, self.path)
                self._later = self._later_columns()
                return
            self.real.parent.mkdir(parents=True, exist_ok=True)
            identity.create(self.real, _init_new)  # atomic: never an empty or half-made file under the name
            identity.check_single_link(self.real, self.path)
            self.db = sqlite3.connect("file:" + quote(str(self.real)) + "?mode=rw", uri=True, isolation_level=None,
                                      check_same_thread=False)
            self.db.execute("PRAGMA busy_timeout=30000")
            check_integrity(self.db, self.path)  # before anything is written to it
            identity.check_ours(self.db, self.path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            migrate(self.db)
            identity.stamp(self.db)
            self._later = self._later_columns()
        except STORE_ERRORS as e:
            raise describe(self.path, e) from e

    def _later_columns(self) -> dict[str, str]:
        """Per table, the SELECT list of the later columns (NULL for those a read-only old store lacks)."""
        out = {}
        for table, cols in LATER_COLUMNS.items():
            have = {column[1] for column in self.db.execute(f"PRAGMA table_info({table})")}
            out[table] = ", ".join(name if name in have else "NULL" for name, _ in cols)
        return out

    def close(self) -> None:
        try:
            self.flush()
            self.close_writer()
        finally:
            self.db.close()

    def run_lock(self, run_id: str) -> Any:
        """Context manager: this process alone runs ``run_id`` on this store (else :class:`StoreError`)."""
        from .lock import run_lock

        return run_lock(self.real, run_id, shown=self.path)

    # ---- runs
    @_guarded
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

    @_guarded
    def set_status(self, run_id: str, status: str) -> None:
        self.db.execute("UPDATE runs SET status=?, updated=? WHERE run_id=?", (status, time.time(), run_id))

    @_guarded
    def set_display_name(self, run_id: str, name: str | None) -> bool:
        """Store the run's display name in its record (``spec.display_name``; None removes it, so the name is
        derived from the model again). Not part of the run id. Returns False when there is no such run."""
        row = self.db.execute("SELECT spec_json FROM runs WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            return False
        spec = json.loads(row[0] or "{}")
        if name is None:
            spec.pop("display_name", None)
        else:
            spec["display_name"] = name
        self.db.execute("UPDATE runs SET spec_json=? WHERE run_id=?", (json.dumps(spec), run_id))
        return True

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        rows = self.find_runs(run_id)
        return rows[0] if len(rows) == 1 else None

    @_reading
    def find_runs(self, prefix: str = "") -> list[dict[str, Any]]:
        cur = self.db.execute(
            "SELECT run_id, created, updated, benchmark, subset, mode, model, spec_json, status FROM runs "
            "WHERE run_id LIKE ? ORDER BY created", (prefix + "%",))
        keys = ["run_id", "created", "updated", "benchmark", "subset", "mode", "model", "spec", "status"]
        out = []
        for row in cur.fetchall():
            run = dict(zip(keys, row, strict=True))
            run["spec"] = json.loads(run["spec"])
            out.append(run)
        return out

    # ---- completions
    @staticmethod
    def _rows(run_id: str, item_key: str, sample: int, turn: int, role: str, subset: str, prompt: Prompt,
              cache_key: str, comp: Completion, cache: bool,
              prompt_json: str | None = None) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
        """``prompt_json``: the prompt's ``canonical_json`` when the caller already made it (the cache key's)."""
        now = time.time()
        text = storable(redact_secrets(comp.text))  # lone surrogates escaped, echoed API keys removed
        error = None if comp.error is None else storable(redact(comp.error))
        reasoning = None if comp.reasoning is None else storable(redact_secrets(comp.reasoning))
        later = (reasoning, comp.reasoning_tokens, comp.ttft_s)
        row = (run_id, item_key, sample, turn, role, subset,
               storable_json(canonical_json(prompt.to_json()) if prompt_json is None else prompt_json),
               cache_key, text, _text(comp.finish_reason), comp.usage.prompt_tokens, comp.usage.completion_tokens,
               comp.latency_s, error, now, *later, None)  # prompt_hash: set by shared_prompt where the row is written
        cache_row = ((cache_key, text, _text(comp.finish_reason), comp.usage.prompt_tokens,
                      comp.usage.completion_tokens, comp.latency_s, now, *later)
                     if cache and comp.error is None else None)
        return row, cache_row

    @_guarded
    def put_completion(self, run_id: str, item_key: str, sample: int, turn: int, role: str, subset: str,
                       prompt: Prompt, cache_key: str, c: Completion, cache: bool = False) -> None:
        """Durably store a completion (one transaction, with its response-cache entry when ``cache``)."""
        row, cache_row = self._rows(run_id, item_key, sample, turn, role, subset, prompt, cache_key, c, cache)
        row, prompt_row = shared_prompt(row)
        with self.db:  # BEGIN ... COMMIT
            self.db.execute("BEGIN")
            self.db.execute(INSERT_PROMPT, prompt_row)
            self.db.execute(INSERT_COMPLETION, row)
            if cache_row is not None:
                self.db.execute(INSERT_CACHE, cache_row)

    async def aput_completion(self, run_id: str, item_key: str, sample: int, turn: int, role: str,
                              subset: str, prompt: Prompt, cache_key: str, c: Completion,
                              cache: bool = False, prompt_json: str | None = None) -> None:
        """``put_completion`` through the group-commit writer thread; returns once it is committed.
        ``prompt_json``: the prompt's ``canonical_json``, when the caller already made it."""
        if self._writer is None:
            from .writer import AsyncWriter

            self._writer = AsyncWriter(self.real, self.path)
        row, cache_row = self._rows(run_id, item_key, sample, turn, role, subset, prompt, cache_key, c, cache,
                                    prompt_json)
        await self._writer.put_completion(row, cache_row)

    def close_writer(self) -> None:
        """Commit what the writer thread holds and stop it (raises the error of a write that failed)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.close()

    def completions(self, run_id: str, role: str | None = None, prompts: bool = True) -> Iterator[StoredCompletion]:
        """The run's completions in the order stored. ``prompts=False`` leaves the prompts unread (each is an empty
        ``Prompt()``): a report of a large run does not decode thousands of multi-kilobyte prompts it never shows."""
        for stored, _ in self._read(run_id, role, prompts, None):
            yield stored

    def answers(self, run_id: str, scorer: str, prompts: bool = True,
                prompt_cache: dict[str, Prompt] | None = None) -> Iterator[tuple[StoredCompletion, Verdict | None]]:
        """The run's answer turns in the order stored, each with its verdict by ``scorer`` (None: none stored), in
        one pass over the store (no table of every verdict is built first)."""
        self.flush()
        yield from self._read(run_id, "answer", prompts, scorer, prompt_cache)

    def compact_answers(self, run_id: str, scorer: str,
                        make: compact.Make[A] = compact.answer) -> Iterator[A]:  # type: ignore[assignment]
        """The run's answer turns in the order stored, as the tables read them (:mod:`.compact`: no prompt, no
        text; whether each reasoned and was cut off), each with its verdict by ``scorer`` (None: none stored):
        :class:`~.compact.CompactAnswer` objects, or what ``make`` builds of each (``compact.read``)."""
        self.flush()
        yield from compact.read(self.db, self.path, self._later, run_id, scorer, self._compact_verdicts,
                                self._sound_prompts, make)

    def answer_texts(self, run_id: str, prompt_cache: dict[str, Prompt] | None = None,
                     ) -> Iterator[tuple[str, int, Prompt, str]]:
        """The run's answer turns as (item key, sample, prompt, text), in the order stored: what a reader of the
        texts needs beside the tables' compact rows (``compact_answers``), without a verdict or a completion
        object made. ``prompt_cache`` as in ``answers``."""
        prompt_hash = self._later["completions"].split(", ")[3]
        try:
            cur = self.db.execute(f"SELECT item_key, sample, prompt_json, {prompt_hash}, text FROM completions "
                                  "WHERE run_id=? AND role='answer' ORDER BY rowid", (run_id,))
        except STORE_ERRORS as e:
            raise describe(self.path, e) from e
        decoded = _Prompts(self.db, prompt_cache)
        for row in _batches(cur, self.path):
            try:
                prompt = decoded.of(row[2], row[3])
            except DECODE_ERRORS as e:
                raise _undecodable(self.path, e) from e
            except STORE_ERRORS as e:
                raise describe(self.path, e) from e
            yield row[0], row[1], prompt, row[4] or ""

    def _read(self, run_id: str, role: str | None, prompts: bool, scorer: str | None,
              prompt_cache: dict[str, Prompt] | None = None) -> Iterator[tuple[StoredCompletion, Verdict | None]]:
        """``prompt_cache``: decoded prompts shared by several reads (the runs of one report send the same
        prompts; at most ``_Prompts.KEPT`` kept)."""
        # a read without prompts still checks that each is JSON (in SQLite, nothing decoded): a damaged prompt is
        # a one-line error wherever the run is read, not only where the prompts are shown
        checked = ("json_valid(COALESCE(c.prompt_json, (SELECT p.json FROM prompts p WHERE p.hash = c.prompt_hash), "
                   "'{}'))")
        sql = (f"SELECT c.run_id, c.item_key, c.sample, c.turn, c.role, c.subset, "
               f"{'c.prompt_json' if prompts else checked}, c.text, c.finish_reason, c.prompt_tokens, "
               f"c.completion_tokens, c.latency_s, c.error, {self._later['completions']}")
        args: list[Any] = []
        if scorer is None:
            sql += " FROM completions c"
        else:
            sql += (", v.outcome, v.extracted, v.method, v.detail_json FROM completions c LEFT JOIN verdicts v "
                    "ON v.run_id = c.run_id AND v.item_key = c.item_key AND v.sample = c.sample AND v.turn = c.turn "
                    "AND v.scorer = ?")
            args.append(scorer)
        sql += " WHERE c.run_id=?"
        args.append(run_id)
        if role:
            sql += " AND c.role=?"
            args.append(role)
        sql += " ORDER BY c.rowid"
        try:
            cur = self.db.execute(sql, args)
        except STORE_ERRORS as e:
            raise describe(self.path, e) from e
        same: dict[str, str] = {}  # one object per distinct key, subset and role of the run (samples repeat them)
        verdicts = _Verdicts()
        decoded = _Prompts(self.db, prompt_cache)  # one Prompt per distinct stored prompt (each sample of an item repeats it)
        for row in _batches(cur, self.path):  # read in batches: a large run is never held as raw rows and objects both
            try:
                if not prompts and row[6] == 0:
                    raise ValueError("a stored prompt is not JSON")
                prompt = decoded.of(row[6], row[16]) if prompts else _UNREAD
                verdict = (None if scorer is None or row[17] is None
                           else verdicts.of(row[17], row[18], row[19], row[20]))
            except DECODE_ERRORS as e:
                raise _undecodable(self.path, e) from e
            except STORE_ERRORS as e:  # the prompts table read here (a damaged page, text that is not UTF-8)
                raise describe(self.path, e) from e
            yield (StoredCompletion(run_id, same.setdefault(row[1], row[1]), row[2], row[3],
                                    same.setdefault(row[4], row[4]), same.setdefault(row[5], row[5]), prompt,
                                    Completion(row[7] or "", row[8] and same.setdefault(row[8], row[8]),
                                               Usage(row[9], row[10]), row[11], row[12], row[13], row[14], row[15])),
                   verdict)

    @_guarded
    def count(self, run_id: str) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM completions WHERE run_id=?", (run_id,)).fetchone()[0])

    # ---- verdicts
    @_guarded
    def put_verdict(self, run_id: str, item_key: str, sample: int, turn: int, scorer: str, v: Verdict,
                    buffered: bool = False) -> None:
        """Store a verdict. ``buffered`` verdicts are written in batches (``flush``): they are derived data,
        re-computed from the stored completion on resume, so a crash between batches loses nothing."""
        self._verdict_buf.append(
            (run_id, item_key, sample, turn, scorer, v.outcome.value, _text(v.extracted), v.method,
             _detail_json(v.detail), time.time()))
        if not buffered:
            self.flush()
        elif len(self._verdict_buf) >= 256:
            if self._writer is not None:  # a run is writing: its writer thread commits them, the loop never waits
                buf, self._verdict_buf = self._verdict_buf, []
                self._writer.put_rows(INSERT_VERDICT, buf)
            else:
                self.flush()

    @_guarded
    def flush(self) -> None:
        """Commit the buffered verdicts now (those handed to a run's writer thread commit with its next batch)."""
        if not self._verdict_buf:
            return
        buf, self._verdict_buf = self._verdict_buf, []
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(INSERT_VERDICT, buf)

    @_reading
    def verdicts(self, run_id: str, scorer: str) -> dict[tuple[str, int, int], Verdict]:
        """The run's verdicts by (item key, sample, turn). Verdicts with the same stored detail share one decoded
        ``detail`` dict (a large run's details repeat: rule ids, scoring policy): treat it as read-only."""
        self.flush()
        out = {}
        verdicts = _Verdicts()
        for row in self.db.execute(
                "SELECT item_key, sample, turn, outcome, extracted, method, detail_json FROM verdicts "
                "WHERE run_id=? AND scorer=?", (run_id, scorer)):
            out[(verdicts.same(row[0]), row[1], row[2])] = verdicts.of(row[3], row[4], row[5], row[6])
        return out

    @_reading
    def tallies(self) -> dict[str, dict[str, int]]:
        """Per run: items (item, sample pairs), correct and errors of their final turns (default scorer)."""
        sql = """
        SELECT v.run_id, COUNT(*), SUM(v.outcome = 'correct'), SUM(v.outcome = 'error')
        FROM verdicts v JOIN (
          SELECT run_id, item_key, sample, MAX(turn) AS t FROM verdicts WHERE scorer = 'default'
          GROUP BY run_id, item_key, sample) last
        ON v.run_id = last.run_id AND v.item_key = last.item_key AND v.sample = last.sample AND v.turn = last.t
        WHERE v.scorer = 'default' GROUP BY v.run_id"""
        self.flush()
        return {row[0]: {"items": int(row[1]), "correct": int(row[2] or 0), "errors": int(row[3] or 0)}
                for row in self.db.execute(sql)}

    @_guarded
    def errors(self, run_id: str) -> list[str]:
        """The error message of every failed call of a run."""
        return [row[0] for row in self.db.execute(
            "SELECT error FROM completions WHERE run_id=? AND error IS NOT NULL ORDER BY rowid", (run_id,))]

    @_guarded
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

    @_guarded
    def update_record(self, run_id: str, fields: dict[str, Any]) -> None:
        """Merge ``fields`` into the run's stored record (metadata: endpoints, the served model id...; never
        what the run id hashes)."""
        row = self.db.execute("SELECT spec_json FROM runs WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            return
        spec = {**json.loads(row[0] or "{}"), **fields}
        self.db.execute("UPDATE runs SET spec_json=? WHERE run_id=?", (json.dumps(spec), run_id))

    def _run_tables(self) -> list[str]:
        """The tables that hold a run's rows, keyed by ``run_id`` (``items`` where a store has one)."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        out = ["runs", "completions", "verdicts"]
        if "items" in tables and "run_id" in {row[1] for row in self.db.execute("PRAGMA table_info(items)")}:
            out.append("items")
        return out

    @_guarded
    def adopt_run(self, old_id: str, new_id: str, record: dict[str, Any]) -> bool:
        """Give the run stored as ``old_id`` the id ``new_id`` (a run stored before models were identified by
        what they are), in one transaction; its record gets ``record`` merged and ``previous_ids``. False when
        ``old_id`` is not stored or ``new_id`` is."""
        self.flush()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            have = {found[0] for found in
                    self.db.execute("SELECT run_id FROM runs WHERE run_id IN (?,?)", (old_id, new_id))}
            if old_id not in have or new_id in have:
                self.db.execute("ROLLBACK")
                return False
            for table in self._run_tables():  # names from the fixed list, never from input
                self.db.execute(f"UPDATE {table} SET run_id=? WHERE run_id=?", (new_id, old_id))
            row = self.db.execute("SELECT spec_json FROM runs WHERE run_id=?", (new_id,)).fetchone()
            spec = json.loads(row[0] or "{}")
            spec = {**spec, **record, "previous_ids": [*spec.get("previous_ids", []), old_id]}
            self.db.execute("UPDATE runs SET spec_json=? WHERE run_id=?", (json.dumps(spec), new_id))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return True

    @_guarded
    def forget_answers(self, run_id: str, units: list[tuple[str, int]] | None = None) -> int:
        """Delete the stored completions and verdicts of ``units`` ((item key, sample) pairs; None: every unit of
        the run), so the run asks them again. Returns the number of units whose rows were removed."""
        self.flush()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if units is None:
                n = self.db.execute("SELECT COUNT(*) FROM (SELECT DISTINCT item_key, sample FROM completions "
                                    "WHERE run_id=?)", (run_id,)).fetchone()[0]
                self.db.execute("DELETE FROM completions WHERE run_id=?", (run_id,))
                self.db.execute("DELETE FROM verdicts WHERE run_id=?", (run_id,))
            else:
                n = 0
                for item_key, sample in units:
                    n += self.db.execute("DELETE FROM completions WHERE run_id=? AND item_key=? AND sample=?",
                                         (run_id, item_key, sample)).rowcount > 0
                    self.db.execute("DELETE FROM verdicts WHERE run_id=? AND item_key=? AND sample=?",
                                    (run_id, item_key, sample))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return int(n)

    @_reading
    @_guarded
    def unanswered(self, run_id: str, scorer: str = "default") -> list[tuple[str, int]]:
        """The (item key, sample) pairs whose stored answer is empty or gave nothing to score (an unanswerable
        verdict other than a missing judge or item), in store order."""
        self.flush()
        rows = self.db.execute(
            "SELECT DISTINCT c.item_key, c.sample FROM completions c LEFT JOIN verdicts v ON v.run_id=c.run_id "
            "AND v.item_key=c.item_key AND v.sample=c.sample AND v.turn=c.turn AND v.scorer=? "
            "WHERE c.run_id=? AND c.role='answer' AND c.error IS NULL AND (TRIM(COALESCE(c.text, ''))='' "
            "OR (v.outcome='unanswerable' AND COALESCE(v.method, '') NOT IN ('judge-missing', 'item-missing'))) "
            "ORDER BY c.rowid", (scorer, run_id)).fetchall()
        return [(str(row[0]), int(row[1])) for row in rows]

    @_guarded
    def delete_runs(self, run_ids: list[str], drop_cache: bool = False) -> dict[str, int]:
        """Delete runs with their completions and verdicts (and their rows of an ``items`` table, where a store
        has one), all in one transaction; the response cache stays unless ``drop_cache`` (then the cached
        responses of the runs' completions go too, so a re-run asks again). Returns the number of rows removed
        per table."""
        self.flush()
        removed = dict.fromkeys(self._run_tables(), 0)
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if drop_cache:
            removed["cache"] = 0
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for run_id in run_ids:
                if drop_cache:
                    removed["cache"] += self.db.execute(
                        "DELETE FROM cache WHERE key IN (SELECT cache_key FROM completions WHERE run_id=? "
                        "AND cache_key IS NOT NULL)", (run_id,)).rowcount
                for table in self._run_tables():  # names from the fixed list above, never from input
                    removed[table] += self.db.execute(f"DELETE FROM {table} WHERE run_id=?", (run_id,)).rowcount
            if "prompts" in tables:  # the prompts no completion refers to any more
                self.db.execute("DELETE FROM prompts WHERE hash NOT IN "
                                "(SELECT prompt_hash FROM completions WHERE prompt_hash IS NOT NULL)")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return removed

    # ---- response cache
    @_reading
    @_guarded
    def cache_empty(self) -> bool:
        """No cached response at all (a new store, or one whose cache was never filled)."""
        return self.db.execute("SELECT 1 FROM cache LIMIT 1").fetchone() is None

    def cache_get(self, key: str) -> Completion | None:
        row = self.db.execute("SELECT text, finish_reason, prompt_tokens, completion_tokens, latency_s, "
                            f"{self._later['cache']} FROM cache WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        return Completion(row[0], row[1], Usage(row[2], row[3]), row[4], None, row[5], row[6], row[7])


__all__ = ["INSERT_CACHE", "INSERT_COMPLETION", "INSERT_PROMPT", "INSERT_VERDICT", "RunStore"]
