"""A run's answers as the tables read them: one narrow row per answer turn, with its verdict, and no prompt or
text kept (``RunStore.compact_answers``; ``report.collect.slim_rows`` makes the tables' rows of them).

What the tables need of an answer's text is two flags, computed in SQLite:
whether the output carried reasoning (a reasoning field, or an inline section:
``core.response.has_inline_reasoning``) and whether it was cut off (``core.response.cut_off``, the one
definition; ``core.response.sql_*`` are the same tests as SQL). The text (and the reasoning) is still fetched and dropped:
the fetch decodes it, so a text whose bytes were overwritten (no longer UTF-8) is the store's one-line error
here as in every other read (~0.2 s of 62 runs' 108 MB of texts). No ``Completion`` or ``StoredCompletion``
object is made per answer, and with ``make`` not even a :class:`CompactAnswer`: the reader builds its own row of
the stored fields (``report.slim.SlimRow.maker``).

The rows come in stored order (rowid). A run whose rows lie together in the file (as a run or an import writes
them: at most twice as many rowids as rows) is read along its rowid range, in that order already; otherwise
through the run's index and sorted (runs written at once, their rows interleaved): the sort would copy every
row with its text once more.

The prompts are not read, but still checked to be JSON (a damaged one is the store's one-line error wherever a
run is read): a prompt a row holds itself in SQLite, per row; a prompt of the ``prompts`` table once per store
object (``checked``: the hashes already found sound; the runs of one protocol send the same prompts), after the
run's rows are read (the hashes come with the rows: the completion rows are read once).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from ..core.response import sql_cut_off, sql_has_inline_reasoning
from ..core.values import Verdict
from .errors import DECODE_ERRORS, STORE_ERRORS, corrupted, describe


class CompactAnswer(NamedTuple):
    item_key: str
    sample: int
    turn: int
    subset: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float | None
    error: str | None
    reasoning_tokens: int | None
    ttft_s: float | None
    #: the output carried reasoning: a non-empty reasoning field, or an inline section (``</think>``)
    reasoned: bool
    #: ``core.response.cut_off`` of the text and finish reason
    cut: bool
    verdict: Verdict | None


T = TypeVar("T")

_BATCH = 500  # prompt hashes per query (well under SQLite's limit on bound variables)


#: ``make(fields, verdict, same)`` of :func:`read`
Make = Callable[[tuple[Any, ...], "Verdict | None", Callable[[str, str], str]], T]


def answer(r: tuple[Any, ...], verdict: Verdict | None, same: Callable[[str, str], str]) -> CompactAnswer:
    fr = r[4]
    return CompactAnswer(same(r[0], r[0]), r[1], r[2], same(r[3], r[3]), fr and same(fr, fr), r[5], r[6], r[7], r[8],
                         r[9], r[10], bool(r[11]), bool(r[12]), verdict)


def read(db: sqlite3.Connection, path: Path, later: dict[str, str], run_id: str, scorer: str,
         verdicts: Any, checked: set[str], make: Make[T] = answer,  # type: ignore[assignment]
         ) -> Iterator[T]:
    """The run's answer turns in the order stored (``verdicts``: the store's decoder of verdict rows, ``of``), each
    ``make(fields, verdict, same)``: by default a :class:`CompactAnswer`. ``fields`` holds the answer's first 13
    fields in its order (``reasoned`` and ``cut`` as 0 / 1, and more columns after them), so a reader can build
    its own row of them without a ``CompactAnswer`` made first (``report.slim.SlimRow.of_fields``); ``same(s, s)``
    gives one string object per distinct key, subset and finish reason of the run (what ``make`` keeps of them)."""
    reasoning, reasoning_tokens, ttft_s, prompt_hash = later["completions"].split(", ")
    apart = "0" if reasoning == "NULL" else f"({reasoning} IS NOT NULL AND {reasoning} != '')"
    q = (f"SELECT c.item_key, c.sample, c.turn, c.subset, c.finish_reason, c.prompt_tokens, c.completion_tokens, "
         f"c.latency_s, c.error, {reasoning_tokens}, {ttft_s}, ({apart} OR {sql_has_inline_reasoning('c.text')}), "
         f"{sql_cut_off('c.text', 'c.finish_reason')}, c.text, "
         f"CASE WHEN c.prompt_json IS NULL THEN {prompt_hash} END, "
         f"CASE WHEN c.prompt_json IS NULL THEN 1 ELSE json_valid(c.prompt_json) END, "
         f"v.outcome, v.extracted, v.method, v.detail_json, {reasoning} FROM completions c LEFT JOIN verdicts v "
         "ON v.run_id = c.run_id AND v.item_key = c.item_key AND v.sample = c.sample AND v.turn = c.turn "
         "AND v.scorer = ? ")
    try:
        first, last, n = db.execute("SELECT min(rowid), max(rowid), count(*) FROM completions WHERE run_id = ?",
                                    (run_id,)).fetchone()
        if n and last - first + 1 <= 2 * n:
            # the run's rows lie together (as a run or an import writes them): read in stored order from the table
            # itself, with no sort of the rows (and their texts) by rowid afterwards
            cur = db.execute(q + "WHERE c.rowid BETWEEN ? AND ? AND +c.run_id = ? AND c.role = 'answer' "
                             "ORDER BY c.rowid", (scorer, first, last, run_id))
        else:
            cur = db.execute(q + "WHERE c.run_id = ? AND c.role = 'answer' ORDER BY c.rowid", (scorer, run_id))
    except STORE_ERRORS as e:
        raise describe(path, e) from e
    seen: dict[str, str] = {}
    same = seen.setdefault  # one object per distinct key, subset and finish reason of the run
    hashes: set[str] = set()
    decode = verdicts.of
    while True:
        try:
            batch = cur.fetchmany(2000)
        except STORE_ERRORS as e:
            raise describe(path, e) from e
        if not batch:
            break
        for r in batch:
            if r[15] == 0:
                raise _not_json(path)
            if r[14] is not None:
                hashes.add(r[14])
            try:
                verdict = None if r[16] is None else decode(r[16], r[17], r[18], r[19])
            except DECODE_ERRORS as e:
                raise corrupted(path, f"a stored row cannot be decoded: {e.__class__.__name__}") from e
            yield make(r, verdict, same)
    check_prompts(db, path, hashes - checked)
    checked.update(hashes)


def check_prompts(db: sqlite3.Connection, path: Path, hashes: set[str]) -> None:
    """The ``prompts`` table's prompts of ``hashes`` are JSON (in SQLite: nothing decoded); a hash with no row
    reads as an empty prompt, as in ``RunStore.completions(prompts=False)``."""
    todo = sorted(hashes)
    for k in range(0, len(todo), _BATCH):
        part = todo[k:k + _BATCH]
        try:
            bad = db.execute(f"SELECT 1 FROM prompts WHERE hash IN ({','.join('?' * len(part))}) "
                             "AND NOT json_valid(json) LIMIT 1", part).fetchone()
        except STORE_ERRORS as e:
            raise describe(path, e) from e
        if bad is not None:
            raise _not_json(path)


def _not_json(path: Path) -> Exception:
    return corrupted(path, "a stored row cannot be decoded: ValueError")  # as RunStore's other reads say it
