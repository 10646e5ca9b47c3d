"""The MMLU plugin: 57 subjects, zero-shot CoT, the final ``Answer: X`` letter against the gold."""

from __future__ import annotations

from typing import Any

from ...core.benchmark import Benchmark, ScoredRow, Table
from ...core.records import DataError, configured, data_path, folder_version
from ...core.response import Response
from ...core.types import GenParams, Item, Outcome, Prompt, Verdict
from ...core.verdicts import Method
from ...hub.releases import ReleaseSpec
from . import analysis, release
from .categories import SUBJECTS, category_of
from .data import LAYOUT_HELP, load_all
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt, extract_letter


class MMLU(Benchmark):
    name = "mmlu"
    description = "MMLU: 57 subjects in 4 categories, four-option questions, zero-shot CoT letter answer"
    default_mode = "zero-shot-cot"
    default_params = GenParams(max_tokens=1024, temperature=0.0)

    Options = HubOptions

    def __init__(self) -> None:
        self._items: list[Item] | None = None

    def options_changed(self) -> None:
        self._items = None

    @property
    def revision(self) -> str | None:
        o = self.options
        return o.revision if isinstance(o, HubOptions) else None

    def _all(self) -> list[Item]:
        if self._items is None:
            self._items = load_all(self.options.data, self.revision)
        return self._items

    def subsets(self) -> list[str]:
        return list(SUBJECTS)

    def modes(self) -> list[str]:
        return list(MODES)

    def load(self, subset: str, mode: str) -> list[Item]:
        if subset not in SUBJECTS:
            raise DataError(f"unknown MMLU subject {subset!r} (57 known, e.g. abstract_algebra)")
        return [it for it in self._all() if it.subset == subset]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return build_prompt(item.data["question"], item.data["choices"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        letter, how = extract_letter(text)
        detail = {**item.data["_mmlu"], "found_by": how}
        if letter is None:
            return Verdict(Outcome.UNANSWERABLE, None, Method.UNEXTRACTABLE, detail)
        return Verdict(Outcome.CORRECT if letter == item.gold else Outcome.INCORRECT, letter, Method.RULE, detail)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return self.score(item, response.final, mode)

    def data_version(self) -> str:
        if not configured(self.options.data):
            from ... import hub

            return hub.data_version(release.RELEASE.benchmark, revision=self.revision)
        try:
            root = data_path(self.options.data, "MMLU", LAYOUT_HELP, "mmlu")
        except DataError:
            return "unconfigured"
        return folder_version(str(root.resolve()))

    def prompt_version(self, mode: str) -> str:
        return f"{PROMPT_VERSION}:{mode}"

    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        def meta(r: ScoredRow) -> dict[str, Any]:
            v = r.final.verdict
            if v is not None and "category" in v.detail:
                return v.detail
            return {"subject": r.subset, "category": category_of(r.subset) if r.subset in SUBJECTS else None}

        return analysis.tables(rows, mode, meta)

