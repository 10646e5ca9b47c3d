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


def prompt_hash(prompt_json: str) -> str:
    """128 bits of SHA-256 of a stored prompt's JSON: its key in the ``prompts`` table."""
    return hashlib.sha256(prompt_json.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class PromptHashes:
    """:func:`prompt_hash` remembered for the last :attr:`KEPT` prompts (the samples of an item, written one
    after another, send the same prompt: it is hashed once)."""

    KEPT = 1024

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def __call__(self, prompt_json: str) -> str:
        h = self._known.get(prompt_json)
        if h is None:
            if len(self._known) >= self.KEPT:
                del self._known[next(iter(self._known))]
            h = self._known[prompt_json] = prompt_hash(prompt_json)
        return h


def shared_prompt(row: tuple[Any, ...], hashes: PromptHashes | None = None) -> tuple[tuple[Any, ...], tuple[str, str]]:
    """A completion row whose prompt goes to the ``prompts`` table, stored once whatever the number of samples
    and runs that send it: the row keeps its hash (128 bits of SHA-256 of the stored JSON), not the JSON.
    ``hashes``: the hashes of prompts seen before."""
    pj = row[PROMPT_JSON]
    h = prompt_hash(pj) if hashes is None else hashes(pj)
    return (*row[:PROMPT_JSON], None, *row[PROMPT_JSON + 1:PROMPT_HASH], h, *row[PROMPT_HASH + 1:]), (h, pj)
