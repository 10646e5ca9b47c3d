"""The GSM8K plugin: zero-shot CoT, the boxed number compared with the gold (exact, else math-verify)."""

from __future__ import annotations

from ...core.benchmark import ScoredRow, Table, TableKind
from ...core.response import Response
from ...core.types import Item, Outcome, Prompt, Verdict
from ...core.verdicts import Method
from ...hub.split_items import SplitBenchmark
from ...scoring.math_answer import math_verdict, quick_verdict
from . import release
from .data import LAYOUT_HELP, load_items
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt


class GSM8K(SplitBenchmark):
    name = "gsm8k"
    description = "GSM8K: grade-school math word problems (test split), boxed answer scored with math-verify"
    Options = HubOptions
    release = release.RELEASE
    data_label, layout_help, mode_names, prompt_tag = "GSM8K", LAYOUT_HELP, MODES, PROMPT_VERSION

    def read_items(self, data: str | None, revision: str | None) -> list[Item]:
        return load_items(data, revision)

    def subsets(self) -> list[str]:
        return ["main"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return self._all()

    def prompt(self, item: Item, mode: str) -> Prompt:
        return build_prompt(item.data["question"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return math_verdict(str(item.gold), text)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return quick_verdict(str(item.gold), response.final)

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

