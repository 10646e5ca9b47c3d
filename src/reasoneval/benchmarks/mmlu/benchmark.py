"""The MMLU plugin: 57 subjects, zero-shot CoT; official scoring reads the letter as simple-evals does, corrected
scoring the final ``Answer: X`` letter (:mod:`.scoring`)."""

from __future__ import annotations

from typing import Any

from ...core.benchmark import OutsideRow, ScoredRow, Table
from ...core.records import DataError, Record
from ...core.response import Response
from ...core.values import Item, Prompt, Verdict
from ...hub.split_items import SplitBenchmark
from . import analysis, release
from .categories import SUBJECTS, category_of
from .data import LAYOUT_HELP, load_all, record_to_item
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt
from .scoring import corrected_verdict, diff_cause, official_verdict
from .settings import SETTINGS


class MMLU(SplitBenchmark):
    name = "mmlu"
    settings = SETTINGS
    description = "MMLU: 57 subjects in 4 categories, four-option questions, zero-shot CoT letter answer"
    Options = HubOptions
    release = release.RELEASE
    data_label, layout_help, mode_names, prompt_tag = "MMLU", LAYOUT_HELP, MODES, PROMPT_VERSION

    def read_items(self, data: str | None, revision: str | None) -> list[Item]:
        return load_all(data, revision)

    def subsets(self) -> list[str]:
        return list(SUBJECTS)

    def load(self, subset: str, mode: str) -> list[Item]:
        if subset not in SUBJECTS:
            raise DataError(f"unknown MMLU subject {subset!r} (57 known, e.g. abstract_algebra)")
        return [it for it in self._all() if it.subset == subset]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return build_prompt(item.data["question"], item.data["choices"])

    def record_item(self, rec: Record, index: int) -> Item:
        return record_to_item(rec, index)

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return corrected_verdict(item.gold, text, dict(item.data["_mmlu"]))

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        if self.scoring == "official":
            return official_verdict(item.gold, response, dict(item.data["_mmlu"]))
        return self.score(item, response.final, mode)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return self.score_response(item, response, mode)

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        c = row.completion
        return diff_cause(row.item.gold, Response.of(c.text, c.finish_reason, c.reasoning))

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        def meta(r: ScoredRow) -> dict[str, Any]:
            v = r.final.verdict
            if v is not None and "category" in v.detail:
                return v.detail
            return {"subject": r.subset, "category": category_of(r.subset) if r.subset in SUBJECTS else None}

        return analysis.tables(rows, mode, meta)

