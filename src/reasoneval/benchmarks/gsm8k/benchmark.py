"""The GSM8K plugin: zero-shot CoT; official scoring is math-verify's pipeline as open-r1 calls it on the raw
output, corrected scoring the boxed number compared with the gold (exact, else math-verify)."""

from __future__ import annotations

from ...core.benchmark import OutsideRow, ScoredRow, Table, TableKind
from ...core.records import Record
from ...core.response import Response
from ...core.values import Item, Outcome, Prompt, Verdict
from ...core.verdicts import Method
from ...hub.split_items import SplitBenchmark
from ...scoring.math_answer import math_verdict
from ...scoring.math_modes import corrected_now, corrected_verdict, diff_cause, gold_text, official_verdict
from . import release
from .data import LAYOUT_HELP, load_items, record_to_item
from .options import HubOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt
from .settings import SETTINGS


class GSM8K(SplitBenchmark):
    name = "gsm8k"
    settings = SETTINGS
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

    def record_item(self, rec: Record, index: int) -> Item:
        return record_to_item(rec, index)

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return math_verdict(str(item.gold), text)

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        if self.scoring == "official":
            return official_verdict(gold_text(str(item.gold)), response)
        return corrected_verdict(str(item.gold), response)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        return None if self.scoring == "official" else corrected_now(str(item.gold), response)

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        c = row.completion
        gold = str(row.item.gold)
        return diff_cause(gold, gold_text(gold), Response.of(c.text, c.finish_reason, c.reasoning))

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        n = len(rows)
        verdicts = [r.final.verdict for r in rows]
        errors = sum(1 for v in verdicts if v is None or v.outcome is Outcome.ERROR)
        correct = sum(1 for v in verdicts if v is not None and v.correct)
        unext = sum(1 for v in verdicts if v is not None and v.method == Method.UNEXTRACTABLE)
        trunc = sum(1 for r in rows if r.final.completion.error is None and r.final.cut_off)
        acc = round(100 * correct / max(n - errors, 1), 2)
        return [Table(f"GSM8K accuracy ({mode})", ["benchmark", "n", "correct", "accuracy", "unextractable",
                                                   "truncated", "errors"],
                      [["GSM8K", n, correct, acc, unext, trunc, errors]],
                      notes=[f"Accuracy = correct / (n - errors); scoring: {self.scoring}.", TRUNCATED_NOTE],
                      kind=TableKind.LEADERBOARD)]


TRUNCATED_NOTE = ("truncated: outputs cut off (token limit, or a <think> never closed), whatever their verdict; "
                  "official scoring reads them as they are, corrected scoring counts them wrong; unextractable "
                  "answers count as wrong.")

