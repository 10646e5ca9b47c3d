"""Which choice of an OpenAI-compatible response is the answer, and what its message holds.

**One choice per request.** A request asks for one answer; a server may still send several choices (``n``
in ``--extra-body``, a vLLM or proxy default). Only the choice with ``index`` 0 is read, on both paths: the
first such choice of a plain body, and in a stream only the deltas of index 0 (the others' deltas are
counted and dropped). A choice without ``index`` takes its position in its list (so a stream that sends one
choice per event without indices is index 0). Before, a stream interleaving ``choices[0]`` and
``choices[1]`` deltas was concatenated into one answer and mis-scored. Asking for ``n`` other than 1 on
purpose is refused before the run (:func:`check_extra_body`): each sample is its own request (``--samples``).

**What a message holds** besides ``content`` (:class:`Extras`):

* ``refusal`` (OpenAI's refusal text): stored as the answer text, with the finish reason ``refusal``, so it
  is kept, shown and scored as what the model said (before it was dropped and the item stored as an empty
  answer);
* ``tool_calls`` (we never offer tools, yet a model may call one): each call is written after the content as
  ``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` and the server's finish reason (``tool_calls``)
  is kept, so a reply made only of tool calls is stored as those calls, not as an empty answer;
* ``finish_reason: content_filter``: the server withheld or cut the answer. It is not an answer: the item is
  stored as an error (:data:`FILTERED`, never scored, excluded from accuracy, listed among the run's errors;
  the text received is kept with it), and it is not retried (a filter decides the same way again;
  ``--retry-errors`` asks again on purpose).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .validate import ResponseRejected

#: the error stored for an answer the server's content filter withheld (one stable kind in the run's error lines)
FILTERED = "content filtered by the server (finish_reason content_filter): no answer to score"
REFUSAL = "refusal"  # the finish reason stored for a refusal


def choice_index(choice: Any, position: int) -> int:
    """The ``index`` of a choice (its position in the list when it has none)."""
    if not isinstance(choice, dict):
        raise ResponseRejected("malformed", "a choice is not a JSON object")
    idx = choice.get("index", position)
    if isinstance(idx, bool) or not isinstance(idx, int):
        raise ResponseRejected("malformed", f"a choice's index is not a whole number: {str(idx)[:40]!r}")
    return idx


def first_choice(choices: Any) -> dict[str, Any] | None:
    """The choice with index 0 of a plain body's ``choices`` (None: no choices at all)."""
    if not isinstance(choices, list) or not choices:
        return None
    for pos, c in enumerate(choices):
        if choice_index(c, pos) == 0:
            return c  # type: ignore[no-any-return]
    raise ResponseRejected("malformed", f"{len(choices)} choices, none with index 0")


def check_extra_body(extra: dict[str, Any]) -> None:
    """Refuse ``n`` (or ``best_of``) asking for more than one answer per request: one request is one answer."""
    for key in ("n", "best_of"):
        if key in extra and extra[key] not in (None, 1):
            raise ValueError(f'"{key}": {json.dumps(extra[key])[:40]} asks the server for several answers per '
                             "request; reasoneval reads one answer per request (choice 0). Use --samples N to "
                             "ask for N answers per item, each its own request")


@dataclass
class Extras:
    """What a message (or the deltas of a stream's choice 0) held besides content and reasoning."""

    refusal: list[str] = field(default_factory=list)
    #: tool calls by their index: name, and the argument pieces (streamed arguments come in pieces)
    tools: dict[int, tuple[list[str], list[str]]] = field(default_factory=dict)
    chars: int = 0  # characters held (they count towards the answer's character limit)

    def add_message(self, msg: dict[str, Any]) -> None:
        """A plain message's ``refusal`` and ``tool_calls`` (also a legacy ``function_call``)."""
        self.add_delta(msg)

    def add_delta(self, delta: dict[str, Any]) -> None:
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self.refusal.append(refusal)
            self.chars += len(refusal)
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for pos, call in enumerate(calls):
                if not isinstance(call, dict):
                    continue
                idx = call.get("index", pos)
                self._add_call(idx if isinstance(idx, int) and not isinstance(idx, bool) else pos,
                               call.get("function"))
        if isinstance(delta.get("function_call"), dict):
            self._add_call(-1, delta["function_call"])

    def _add_call(self, idx: int, fn: Any) -> None:
        if not isinstance(fn, dict):
            return
        names, args = self.tools.setdefault(idx, ([], []))
        if isinstance(fn.get("name"), str):
            names.append(fn["name"])
            self.chars += len(fn["name"])
        a = fn.get("arguments")
        if a is not None:
            piece = a if isinstance(a, str) else json.dumps(a, ensure_ascii=False)
            args.append(piece)
            self.chars += len(piece)

    def text(self, content: str) -> str:
        """The answer text to store: the content, else the refusal; then the tool calls, one per line."""
        out = content if content or not self.refusal else "".join(self.refusal)
        calls = [json.dumps({"name": "".join(n), "arguments": "".join(a)}, ensure_ascii=False)
                 for _, (n, a) in sorted(self.tools.items())]
        if calls:
            out = "\n".join([*([out] if out else []), *(f"<tool_call>{c}</tool_call>" for c in calls)])
        return out

    def finish(self, content: str, finish: str | None) -> str | None:
        """The finish reason to store: ``refusal`` for a reply that is a refusal only."""
        if self.refusal and not content:
            return REFUSAL
        return finish
