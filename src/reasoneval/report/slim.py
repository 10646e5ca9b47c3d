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

from ..core.benchmark import ScoredRow, Turn
from ..core.response import has_inline_reasoning
from ..core.values import Completion, Prompt, Usage, Verdict
from ..store.compact import CompactAnswer

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

    def __init__(self, c: Completion, verdict: Verdict | None, reasoned: bool, cut: bool = False) -> None:
        self.verdict = verdict
        self.finish_reason = c.finish_reason
        self.prompt_tokens = c.usage.prompt_tokens
        self.completion_tokens = c.usage.completion_tokens
        self.latency_s = c.latency_s
        self.error = c.error
        self.reasoning_tokens = c.reasoning_tokens
        self.ttft_s = c.ttft_s
        #: the output carried reasoning (a separate reasoning field, or an inline section)
        self.reasoned = reasoned
        self._made: Completion | None = None  # ``completion``, made at the first ask (summaries ask many times)
        #: the output was cut off (``core.response.cut_off``, read with its text)
        self.was_cut_off = cut

    def _fill(self, a: CompactAnswer, counts: Counts) -> None:
        """This turn's fields from a compact answer (``store.compact``): the same values ``__init__`` takes from
        a completion read with its text, with no completion made."""
        self.verdict = a.verdict
        self.finish_reason = a.finish_reason
        self.prompt_tokens = counts(a.prompt_tokens)
        self.completion_tokens = counts(a.completion_tokens)
        self.latency_s = a.latency_s
        self.error = a.error
        self.reasoning_tokens = counts(a.reasoning_tokens)
        self.ttft_s = a.ttft_s
        self.reasoned = a.reasoned
        self._made = None
        self.was_cut_off = a.cut

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

    def __init__(self, item_key: str, subset: str, sample: int, c: Completion, verdict: Verdict | None,
                 reasoned: bool, earlier: tuple[SlimTurn, ...] = (), cut: bool = False) -> None:
        SlimTurn.__init__(self, c, verdict, reasoned, cut)
        self.item_key = item_key
        self.subset = subset
        self.sample = sample
        self.earlier = earlier

    def then(self, c: Completion, verdict: Verdict | None, reasoned: bool, cut: bool = False) -> None:
        """A later turn of this row: the present final turn moves to ``earlier``."""
        before = SlimTurn.__new__(SlimTurn)
        for name in SlimTurn.__slots__:
            setattr(before, name, getattr(self, name))
        self.earlier = (*self.earlier, before)
        SlimTurn.__init__(self, c, verdict, reasoned, cut)

    @classmethod
    def compact(cls, a: CompactAnswer, counts: Counts) -> SlimRow:
        """The row of a compact answer (its first stored turn)."""
        row = cls.__new__(cls)
        row._fill(a, counts)
        row.item_key, row.subset, row.sample, row.earlier = a.item_key, a.subset, counts(a.sample) or 0, ()
        return row

    def then_compact(self, a: CompactAnswer, counts: Counts) -> None:
        """A later turn of this row, from a compact answer: the present final turn moves to ``earlier``."""
        before = SlimTurn.__new__(SlimTurn)
        for name in SlimTurn.__slots__:
            setattr(before, name, getattr(self, name))
        self.earlier = (*self.earlier, before)
        self._fill(a, counts)

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
