"""The GSM8K plugin: zero-shot CoT, the boxed number compared with the gold (exact, else math-verify)."""

from __future__ import annotations

from ...core.benchmark import Benchmark, ScoredRow, Table, TableKind
from ...core.records import DataError, configured, data_path, folder_version
from ...core.response import Response
from ...core.types import GenParams, Item, Outcome, Prompt, Verdict
from ...core.verdicts import Method
from ...hub.releases import ReleaseSpec
from ...scoring.math_answer import math_verdict, quick_verdict
from . import release
from .data import LAYOUT_HELP, load_items
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt


class GSM8K(Benchmark):
    name = "gsm8k"
    description = "GSM8K: grade-school math word problems (test split), boxed answer scored with math-verify"
    default_mode = "zero-shot-cot"
    default_params = GenParams(max_tokens=1024, temperature=0.0)

    Options = HubOptions

    @property
    def revision(self) -> str | None:
        o = self.options
        return o.revision if isinstance(o, HubOptions) else None

    def subsets(self) -> list[str]:
        return ["main"]

    def modes(self) -> list[str]:
        return list(MODES)

    def load(self, subset: str, mode: str) -> list[Item]:
        return load_items(self.options.data, self.revision)

    def prompt(self, item: Item, mode: str) -> Prompt:
        return build_prompt(item.data["question"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return math_verdict(str(item.gold), text)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return quick_verdict(str(item.gold), response.final)

    def data_version(self) -> str:
        if not configured(self.options.data):
            from ... import hub

            return hub.data_version(release.RELEASE.benchmark, revision=self.revision)
        try:
            root = data_path(self.options.data, "GSM8K", LAYOUT_HELP, "gsm8k")
        except DataError:
            return "unconfigured"
        return folder_version(str(root.resolve()))

    def prompt_version(self, mode: str) -> str:
        return f"{PROMPT_VERSION}:{mode}"

    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        n = len(rows)
        verdicts = [r.final.verdict for r in rows]
        errors = sum(1 for v in verdicts if v is None or v.outcome is Outcome.ERROR)
        correct = sum(1 for v in verdicts if v is not None and v.correct)
        unext = sum(1 for v in verdicts if v is not None and v.method == Method.UNEXTRACTABLE)
        trunc = sum(1 for v in verdicts if v is not None and v.method == Method.TRUNCATED)
        acc = round(100 * correct / max(n - errors, 1), 2)
        return [Table(f"GSM8K accuracy ({mode})", ["benchmark", "n", "correct", "accuracy", "unextractable",
                                                   "truncated", "errors"],
                      [["GSM8K", n, correct, acc, unext, trunc, errors]],
                      notes=["Accuracy = correct / (n - errors); unextractable and truncated answers count as "
                             "wrong."], kind=TableKind.LEADERBOARD)]

