"""The MATH plugin (registered as ``math``): zero-shot CoT, the boxed answer compared with math-verify."""

from __future__ import annotations

from typing import Any

from ...core.benchmark import ScoredRow, Table
from ...core.records import DataError
from ...core.response import Response
from ...core.types import Item, Prompt, Verdict
from ...hub.split_items import SplitBenchmark
from ...scoring.math_answer import math_verdict, quick_verdict
from . import analysis, release
from .data import LAYOUT_HELP, SUBJECTS, load_all
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt


class HendrycksMath(SplitBenchmark):
    name = "math"
    description = "MATH (MATH-500 release): competition math by subject and level 1-5, scored with math-verify"
    Options = HubOptions
    release = release.RELEASE
    data_label, layout_help, mode_names, prompt_tag = "MATH", LAYOUT_HELP, MODES, PROMPT_VERSION

    def read_items(self, data: str | None, revision: str | None) -> list[Item]:
        return load_all(data, revision)

    def subsets(self) -> list[str]:
        return list(SUBJECTS)

    def load(self, subset: str, mode: str) -> list[Item]:
        if subset not in SUBJECTS:
            raise DataError(f"unknown MATH subset {subset!r}; known: {', '.join(SUBJECTS)}")
        return [it for it in self._all() if it.subset == subset]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return build_prompt(item.data["problem"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return math_verdict(str(item.gold), text, dict(item.data["_math"]))

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return quick_verdict(str(item.gold), response.final, dict(item.data["_math"]))

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        index: dict[str, dict[str, Any]] | None = None

        def meta(r: ScoredRow) -> dict[str, Any]:
            nonlocal index
            v = r.final.verdict
            if v is not None and "level" in v.detail:
                return v.detail
            if index is None:  # a row the runner decided alone (failed call): the items know
                try:
                    index = {it.key: it.data["_math"] for it in self._all()}
                except ValueError:  # DataError, HubError: the row is grouped as unknown
                    index = {}
            return index.get(r.item_key, {})

        return analysis.tables(rows, mode, meta)

