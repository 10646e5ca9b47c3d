"""Compact rows for summaries: what every summariser reads of an (item, sample), without prompt or text.

A run of 125,000 completions read as full :class:`~reasoneval.core.benchmark.ScoredRow` objects (turn, prompt,
completion with its text, usage, verdict: nine objects per answer) holds ~900 bytes per answer, ten times the
run loop's own memory at that size. The tables read only the verdict, the finish reason, the error, the usage
counts, latency, thinking time and whether the output reasoned, so the table after ``run`` reads these rows:

* :class:`SlimRow` is a ``ScoredRow`` that is also its own final turn (most rows have one): one slotted object
  per answer; the earlier turns of a multi-turn row are :class:`SlimTurn` objects in ``earlier``.
* ``turn.completion`` is made when asked for (a :class:`TextlessCompletion`, which refuses to give a text it
  never read); ``turn.prompt`` is one shared empty prompt. Verdicts are shared between equal stored verdicts by
  the store, as are strings (keys, subsets, finish reasons); token counts by :class:`Counts`.

Rows with texts and prompts (the HTML report, ``show``, ``compare``) come from ``collect.scored_rows``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.benchmark import ScoredRow, Turn
from ..core.response import has_inline_reasoning
from ..core.values import Completion, Prompt, Usage, Verdict

_NO_PROMPT = Prompt()


class TextNotRead(LookupError):
    """A summary asked a compact row for the text it was read without (the report then reads rows with texts)."""


class TextlessCompletion(Completion):
    """A stored completion read without its text and reasoning: asking for either is a bug in the caller (a
    summary that needs texts reads ``collect.scored_rows``), so it raises instead of answering ``""``."""

    @property  # type: ignore[override]
    def text(self) -> str:
        raise TextNotRead("this completion was read for the tables, without its text (use collect.scored_rows)")

    @text.setter
    def text(self, value: str) -> None:  # Completion.__init__ sets it; nothing is kept
        return None

    @property  # type: ignore[override]
    def reasoning(self) -> str | None:
        raise TextNotRead("this completion was read for the tables, without its reasoning "
                          "(use collect.scored_rows)")

    @reasoning.setter
    def reasoning(self, value: str | None) -> None:
        return None

    def __repr__(self) -> str:
        return (f"TextlessCompletion(finish_reason={self.finish_reason!r}, usage={self.usage!r}, "
                f"latency_s={self.latency_s!r}, error={self.error!r})")

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]


class SlimTurn(Turn):
    """One model call as the tables see it (no prompt, no text)."""

    __slots__ = ("verdict", "finish_reason", "prompt_tokens", "completion_tokens", "latency_s", "error",
                 "reasoning_tokens", "ttft_s", "reasoned", "_made", "was_cut_off")
    error: str | None  # a field here (``Turn.error`` asks the completion)
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float | None
    reasoning_tokens: int | None
    ttft_s: float | None
    #: the output carried reasoning (a separate reasoning field, or an inline section)
    reasoned: bool
    _made: TextlessCompletion | None  # ``completion``, made at the first ask (summaries ask many times)
    #: the output was cut off (``core.response.cut_off``, read with its text)
    was_cut_off: bool

    @property
    def cut_off(self) -> bool:
        return self.was_cut_off

    @property
    def prompt(self) -> Prompt:  # type: ignore[override]  # a field of Turn / ScoredRow, read-only here
        return _NO_PROMPT

    @property
    def completion(self) -> Completion:  # type: ignore[override]  # a field of Turn / ScoredRow, read-only here
        if self._made is not None:
            return self._made
        # the fields set one by one in their order (no dataclass __init__ through the text and reasoning
        # setters; instances keep sharing their attribute names' table, as __dict__.update would not)
        made = self._made = TextlessCompletion.__new__(TextlessCompletion)
        made.finish_reason = self.finish_reason
        made.usage = Usage(self.prompt_tokens, self.completion_tokens)
        made.latency_s = self.latency_s
        made.error = self.error
        made.reasoning_tokens = self.reasoning_tokens
        made.ttft_s = self.ttft_s
        return made

    def __repr__(self) -> str:
        return f"{type(self).__name__}(verdict={self.verdict!r}, completion={self.completion!r})"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]


class SlimRow(ScoredRow, SlimTurn):
    """An (item, sample) for the tables: a ``ScoredRow`` whose final turn is itself (``earlier``: the turns
    before it, for multi-turn protocols)."""

    __slots__ = ("item_key", "subset", "sample", "earlier")
    item_key: str
    subset: str
    sample: int
    earlier: tuple[SlimTurn, ...]

    @classmethod
    def maker(cls, counts: Counts) -> Callable[[tuple[Any, ...], Verdict | None, Callable[[str, str], str]],
                                               tuple[SlimRow, int]]:
        """``make`` for ``RunStore.compact_answers``: (the row of a stored answer's fields, its turn), the same
        fields ``__init__`` takes from a completion read with its text, without a ``CompactAnswer`` or completion
        made first (the tables' per-answer cost)."""
        seen = counts.setdefault
        new = cls.__new__

        def make(r: tuple[Any, ...], verdict: Verdict | None, same: Callable[[str, str], str]) -> tuple[SlimRow, int]:
            row = new(cls)
            row.verdict = verdict
            fr, pt, ct, rt = r[4], r[5], r[6], r[9]
            row.finish_reason = fr and same(fr, fr)
            row.prompt_tokens = pt if pt is None else seen(pt, pt)
            row.completion_tokens = ct if ct is None else seen(ct, ct)
            row.latency_s = r[7]
            row.error = r[8]
            row.reasoning_tokens = rt if rt is None else seen(rt, rt)
            row.ttft_s = r[10]
            row.reasoned = r[11] == 1
            row._made = None
            row.was_cut_off = r[12] == 1
            row.item_key = same(r[0], r[0])
            row.subset = same(r[3], r[3])
            row.sample = r[1] or 0
            row.earlier = ()
            return row, r[2]
        return make

    def then_row(self, later: SlimRow) -> None:
        """A later turn of this row, from the row :meth:`maker` made of it: the present final turn moves to
        ``earlier``."""
        before = SlimTurn.__new__(SlimTurn)
        for name in SlimTurn.__slots__:
            setattr(before, name, getattr(self, name))
            setattr(self, name, getattr(later, name))
        self.earlier = (*self.earlier, before)

    @property
    def turns(self) -> list[Turn]:  # type: ignore[override]  # a field of Turn / ScoredRow, read-only here
        return [*self.earlier, self]

    @property
    def final(self) -> Turn:
        return self

    def __repr__(self) -> str:
        return (f"SlimRow(item_key={self.item_key!r}, subset={self.subset!r}, sample={self.sample!r}, "
                f"turns={len(self.earlier) + 1}, final={SlimTurn.__repr__(self)})")


def reasoned(c: Completion) -> bool:
    """Whether a completion (read with its text) carried reasoning."""
    return bool(c.reasoning) or has_inline_reasoning(c.text)


class Counts:
    """One int object per distinct token count or sample index of a run (above 256 CPython makes a new object for
    each number read), so the rows share them."""

    def __init__(self) -> None:
        self._seen: dict[int, int] = {}

    def __call__(self, n: int | None) -> int | None:
        return None if n is None else self._seen.setdefault(n, n)

    @property
    def setdefault(self) -> Callable[[int, int], int]:
        """``setdefault(n, n)``: the shared object of ``n`` (not None), without a call of this object per number."""
        return self._seen.setdefault
