"""One rule for whether a 2xx response is an answer, streamed or plain, for every HTTP backend.

A backend reads a response into a :class:`Reading` (the answer containers it saw, the text and reasoning,
the finish reason, whether the response said it was complete, the raw usage) and :meth:`Reading.accept`
decides, the same way for an OpenAI-compatible plain body, an OpenAI-compatible event stream, an Anthropic
message and an Anthropic event stream. A response is an answer when

1. it holds no error object (a ``{"error": ...}`` body or event sent with status 200),
2. it has at least one answer container (``choices`` for OpenAI-compatible servers, a message with a
   ``content`` list / a ``message_start`` event for Anthropic): a body or stream without one (an
   Anthropic-shaped stream on the OpenAI path, ``{"choices": []}``) is ``malformed``,
3. it is complete: a plain body is a whole JSON document; a stream must have given a finish reason or its end
   marker (``[DONE]``, Anthropic ``message_stop``), else it is ``incomplete`` (cut off),
4. its text and reasoning are strings (or null) and within ``max_chars`` (else ``oversized``,
   :mod:`.limits`).

Anything else is raised as :class:`ResponseRejected`: the attempt is retried like a 5xx, and when the retries
are spent the item is stored as an error with the reason (``malformed response from URL: no choices``), never
scored. An empty answer (``content: ""`` with a finish reason) passes: it is an answer, scored unanswerable.

Usage numbers are read by :func:`token_count`: anything that is not a whole number in ``[0, 2**53)``
(``1e999``, ``NaN``, ``-3``, ``"12"``, ``true``) is *unknown* (None), as is usage a server did not report.
The answer itself is kept: bad bookkeeping is not a bad answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..core.safetext import server_text, strip_controls
from ..core.values import Usage

KINDS = ("malformed", "incomplete", "oversized")
MAX_TOKENS = 2 ** 53


class ResponseRejected(ValueError):
    """A 2xx response that is not an answer; ``kind`` is one of :data:`KINDS`."""

    def __init__(self, kind: str, reason: str) -> None:
        assert kind in KINDS, kind
        super().__init__(f"{kind} response: {reason}")
        self.kind = kind
        self.reason = reason


def token_count(value: Any) -> int | None:
    """A usage number as an int, or None when it is missing or not a whole number in ``[0, 2**53)``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < MAX_TOKENS else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and 0 <= value < MAX_TOKENS:
        return int(value)
    return None


def usage_of(u: Any, prompt_key: str, completion_key: str) -> Usage:
    """``Usage`` from a server's usage object; what is missing or malformed stays None (unknown)."""
    if not isinstance(u, dict):
        return Usage(None, None)
    return Usage(token_count(u.get(prompt_key)), token_count(u.get(completion_key)))


def _error_text(err: Any) -> str:
    if isinstance(err, dict):
        err = err.get("message") or err.get("type") or err
    return server_text(str(err), 200)


@dataclass
class Reading:
    """What a backend read from one 2xx response, before :meth:`accept` turns it into an answer or a reason."""

    max_chars: int
    streamed: bool = False
    containers: int = 0  # choices (OpenAI) / messages (Anthropic) seen
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    finish: str | None = None
    ended: bool = False  # a plain body is whole; a stream said [DONE] / message_stop
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    chars: int = 0

    def add(self, piece: Any, reasoning: bool = False) -> str:
        """Add a piece of answer (or reasoning) text; null counts as empty, any other non-string is malformed."""
        if piece is None:
            return ""
        if not isinstance(piece, str):
            raise ResponseRejected("malformed", f"{'reasoning' if reasoning else 'content'} is a "
                                                f"{type(piece).__name__}, not a string")
        if piece:
            self.chars += len(piece)
            if self.chars > self.max_chars:
                raise ResponseRejected("oversized", f"over {self.max_chars:,} characters of answer and reasoning "
                                                    "(--max-response-chars)")
            (self.reasoning if reasoning else self.text).append(piece)
        return piece

    def set_finish(self, reason: Any) -> None:
        if isinstance(reason, str) and reason:
            self.finish = strip_controls(reason)[:64]  # server text: it is shown in reports

    def set_error(self, err: Any) -> None:
        if err and self.error is None:  # {"error": null} is no error
            self.error = _error_text(err)

    def accept(self) -> None:
        """Raise :class:`ResponseRejected` unless this reading is an answer (the module's rule)."""
        if self.error is not None:
            raise ResponseRejected("malformed", f"error in a 200 response: {self.error}")
        if self.containers == 0:
            raise ResponseRejected("malformed", "no choices" + (" in the event stream" if self.streamed else ""))
        if self.streamed and not self.ended and self.finish is None:
            raise ResponseRejected("incomplete", "the event stream ended without a finish reason or end marker")

    @property
    def answer(self) -> str:
        return "".join(self.text)

    @property
    def thought(self) -> str | None:
        return "".join(self.reasoning) or None
