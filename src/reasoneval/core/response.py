"""The response view: what a model wrote, split once into its final answer text and its reasoning.

This is the one module that knows about ``<think>`` sections. The runner builds a :class:`Response` once per
completion and hands the same view to the scorer and the judge, on every path (``run``, ``score``,
``rescore``), so the same output always gets the same verdict.

Every pass here is linear in the text: ``str.find`` scans that never revisit a character (a regex such as
``<think>.*?</think>`` is quadratic on ``"<think>" * n`` — every opening tag rescans to the end).
"""

from __future__ import annotations

from dataclasses import dataclass

OPEN, CLOSE = "<think>", "</think>"


def split_think(text: str) -> tuple[str, str]:
    """``(final, reasoning)``.

    Closed ``<think>...</think>`` sections are removed (left to right, each closed by the first ``</think>``
    after it); a ``</think>`` left over (a template that put the opening tag in the prompt) ends the
    reasoning, so only the text after the last one is the answer; an unclosed ``<think>`` means the model
    never reached its answer: only the text before it is kept. The final text is stripped.
    """
    if OPEN not in text and CLOSE not in text:
        return text, ""
    kept: list[str] = []
    reasoning: list[str] = []
    pos = 0
    while True:
        i = text.find(OPEN, pos)
        if i < 0:
            break
        j = text.find(CLOSE, i + len(OPEN))
        if j < 0:  # no closing tag after this opening: none after any later opening either
            break
        kept.append(text[pos:i])
        reasoning.append(text[i + len(OPEN):j])
        pos = j + len(CLOSE)
    kept.append(text[pos:])
    out = "".join(kept)
    c = out.rfind(CLOSE)
    if c >= 0:
        reasoning.append(out[:c])
        out = out[c + len(CLOSE):]
    o = out.find(OPEN)
    if o >= 0:
        reasoning.append(out[o + len(OPEN):])
        out = out[:o]
    return out.strip(), "\n".join(r for r in reasoning if r)


def strip_think(text: str) -> str:
    """The answer text without its reasoning sections (see :func:`split_think`)."""
    return split_think(text)[0]


def unclosed_think(text: str) -> bool:
    """The output opened a reasoning section and never closed it (cut off mid-thought)."""
    return OPEN in text and CLOSE not in text


def cut_off(text: str, finish_reason: str | None) -> bool:
    """The one definition of a cut-off output, for verdicts and for every table that counts them: stopped by
    the token limit (``finish_reason`` ``"length"``) or inside a reasoning section that was never closed."""
    return finish_reason == "length" or unclosed_think(text)


def has_inline_reasoning(text: str) -> bool:
    """The output carries a reasoning section inline (a ``</think>`` ends one)."""
    return CLOSE in text


def sql_has_inline_reasoning(text: str) -> str:
    """:func:`has_inline_reasoning` of a stored text column ``text``, as an SQLite expression (GLOB matches case
    for case, as ``in`` does; a NULL text is ""): a report's tables read the flag, not the text."""
    return f"(COALESCE({text}, '') GLOB '*{CLOSE}*')"


def sql_cut_off(text: str, finish_reason: str) -> str:
    """:func:`cut_off` of stored columns, as an SQLite expression (as :func:`sql_has_inline_reasoning`)."""
    return (f"(COALESCE({finish_reason} = 'length', 0) OR (COALESCE({text}, '') GLOB '*{OPEN}*' "
            f"AND NOT COALESCE({text}, '') GLOB '*{CLOSE}*'))")


def answer_started(content: str) -> bool:
    """Whether streamed ``content`` has reached the answer (past an inline ``<think>`` section, if any)."""
    head = content.lstrip()
    if not head:
        return False
    if not head.startswith(OPEN):
        return True
    _, closed, after = head.partition(CLOSE)
    return bool(closed) and bool(after.strip())


class AnswerWatch:
    """Whether streamed content has reached the answer, fed one piece at a time: true from the first piece after
    which :func:`answer_started` is true of everything fed so far (the time to first answer token),
    in time linear in the pieces (re-joining the text on every piece was quadratic on a long inline ``<think>``
    section). It keeps only the last ``len(CLOSE) - 1`` characters of the reasoning, where a closing tag split
    across pieces begins."""

    def __init__(self) -> None:
        self.started = False
        self._state = "lead"  # lead: only whitespace so far; think: inside the opening <think>; after: past </think>
        self._tail = ""

    def feed(self, piece: str) -> bool:
        if self.started or not piece:
            return self.started
        if self._state == "lead":
            piece = piece.lstrip()
            if not piece:
                return False
            if not piece.startswith(OPEN):  # as answer_started: only a whole opening tag starts reasoning
                self.started = True
                return True
            self._state, piece = "think", piece[len(OPEN):]
        if self._state == "think":
            text = self._tail + piece
            j = text.find(CLOSE)
            if j < 0:
                self._tail = text[-(len(CLOSE) - 1):]
                return False
            self._state, self._tail, piece = "after", "", text[j + len(CLOSE):]
        self.started = bool(piece.strip())
        return self.started


@dataclass(frozen=True)
class Response:
    """One model output as every scorer and judge sees it."""

    raw: str  # exactly what the model returned (stored as is)
    final: str  # the answer text: reasoning sections removed
    reasoning: str  # the reasoning sections' content, joined
    truncated: bool  # cut by the token limit, or a reasoning section never closed

    @staticmethod
    def of(text: str, finish_reason: str | None = None, reasoning: str | None = None) -> Response:
        """``reasoning``: what the server returned apart from the answer (``Completion.reasoning``); it is
        the reasoning, and ``text`` the answer (any inline ``<think>`` in it is still split off)."""
        final, inline = split_think(text)
        if reasoning:
            inline = f"{reasoning}\n{inline}" if inline else reasoning
        return Response(text, final, inline, cut_off(text, finish_reason))
