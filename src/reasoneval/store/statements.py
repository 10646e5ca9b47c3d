"""The insert statements the store and its writer thread share (one row per completion, cache entry, verdict,
distinct prompt), and the step that stores a completion's prompt once."""

from __future__ import annotations

import hashlib
from typing import Any

INSERT_COMPLETION = "INSERT OR REPLACE INTO completions VALUES (" + ",".join("?" * 19) + ")"
INSERT_CACHE = "INSERT OR REPLACE INTO cache VALUES (" + ",".join("?" * 10) + ")"
INSERT_VERDICT = "INSERT OR REPLACE INTO verdicts VALUES (" + ",".join("?" * 10) + ")"
INSERT_PROMPT = "INSERT OR IGNORE INTO prompts VALUES (?,?)"

#: where a completion row (``INSERT_COMPLETION``'s values) holds its prompt's JSON and that prompt's hash
PROMPT_JSON, PROMPT_HASH = 6, 18


def shared_prompt(row: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[str, str]]:
    """A completion row whose prompt goes to the ``prompts`` table, stored once whatever the number of samples
    and runs that send it: the row keeps its hash (128 bits of SHA-256 of the stored JSON), not the JSON."""
    pj = row[PROMPT_JSON]
    h = hashlib.sha256(pj.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return (*row[:PROMPT_JSON], None, *row[PROMPT_JSON + 1:PROMPT_HASH], h, *row[PROMPT_HASH + 1:]), (h, pj)
