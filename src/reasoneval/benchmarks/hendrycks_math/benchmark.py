"""The MATH plugin (registered as ``math``): zero-shot CoT, the boxed answer compared with math-verify."""

from __future__ import annotations

from typing import Any

from ...core.benchmark import Benchmark, ScoredRow, Table
from ...core.records import DataError, configured, data_path, folder_version
from ...core.response import Response
from ...core.types import GenParams, Item, Prompt, Verdict
from ...hub.releases import ReleaseSpec
from ...scoring.math_answer import math_verdict, quick_verdict
from . import analysis, release
from .data import LAYOUT_HELP, SUBJECTS, load_all
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt


class HendrycksMath(Benchmark):
    name = "math"
    description = "MATH (MATH-500 release): competition math by subject and level 1-5, scored with math-verify"
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
            raise DataError(f"unknown MATH subset {subset!r}; known: {', '.join(SUBJECTS)}")
        return [it for it in self._all() if it.subset == subset]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return build_prompt(item.data["problem"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return math_verdict(str(item.gold), text, dict(item.data["_math"]))

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return quick_verdict(str(item.gold), response.final, dict(item.data["_math"]))

    def data_version(self) -> str:
        if not configured(self.options.data):
            from ... import hub

            return hub.data_version(release.RELEASE.benchmark, revision=self.revision)
        try:
            root = data_path(self.options.data, "MATH", LAYOUT_HELP, "math")
        except DataError:
            return "unconfigured"
        return folder_version(str(root.resolve()))

    def prompt_version(self, mode: str) -> str:
        return f"{PROMPT_VERSION}:{mode}"

    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

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

