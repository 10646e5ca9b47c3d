"""The MATH plugin (registered as ``math``): zero-shot CoT, the boxed answer compared with math-verify."""

from __future__ import annotations

from typing import Any

from ...core.benchmark import OutsideRow, ScoredRow, Table
from ...core.records import DataError, Record
from ...core.response import Response
from ...core.values import Item, Prompt, Verdict
from ...hub.split_items import SplitBenchmark
from ...scoring.math_answer import math_verdict
from ...scoring.math_modes import corrected_now, corrected_verdict, diff_cause, gold_text, official_verdict
from . import analysis, release
from .data import LAYOUT_HELP, SUBJECTS, load_all, record_to_item
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt
from .settings import SETTINGS


class HendrycksMath(SplitBenchmark):
    name = "math"
    settings = SETTINGS
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

    def record_item(self, rec: Record, index: int) -> Item:
        return record_to_item(rec, index)

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return math_verdict(str(item.gold), text, dict(item.data["_math"]))

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        meta = dict(item.data["_math"])
        if self.scoring == "official":
            return official_verdict(gold_text(str(item.gold), item.data.get("solution")), response, meta)
        return corrected_verdict(str(item.gold), response, meta)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        if self.scoring == "official":
            return None
        return corrected_now(str(item.gold), response, dict(item.data["_math"]))

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        c, it = row.completion, row.item
        return diff_cause(str(it.gold), gold_text(str(it.gold), it.data.get("solution")),
                          Response.of(c.text, c.finish_reason, c.reasoning))

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

