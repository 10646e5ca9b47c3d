"""Verdict methods every layer compares: typed values, not bare strings.

``Verdict.method`` holds a :class:`Method` for the paths the runner, the judge cascade and the report know
about; a benchmark may record its own finer method (e.g. ``operation:sympy``) as a plain string. ``Method``
is a ``StrEnum``, so stored verdicts (plain strings in JSON) compare equal to these values.
"""

from __future__ import annotations

from enum import StrEnum


class Method(StrEnum):
    ERROR = "error"  # the model call failed
    SCORER_ERROR = "scorer-error"  # the scorer raised; recorded on the item
    TRUNCATED = "truncated"  # cut by the token limit or an unclosed reasoning section
    ITEM_MISSING = "item-missing"  # the stored item is no longer in the data
    RULE = "rule"  # decided by rules
    JUDGE = "judge"  # decided by the LLM judge
    UNEXTRACTABLE = "unextractable"  # no final answer found
    JUDGE_MISSING = "judge-missing"  # needs a judge, none configured
    JUDGE_ERROR = "judge-error"  # the judge call failed
    JUDGE_UNPARSEABLE = "judge-unparseable"  # the judge's reply had no verdict
