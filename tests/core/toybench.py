"""A tiny benchmark used by the foundation tests (registered through REASONEVAL_PLUGINS)."""

from __future__ import annotations

from reasoneval.core.benchmark import Benchmark, Turn
from reasoneval.core.registry import register
from reasoneval.core.values import GenParams, Item, Outcome, Prompt, Verdict
from reasoneval.scoring.extract import double_brackets

WORDS = ["apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "island", "jungle"]


@register("toy")
class Toy(Benchmark):
    name = "toy"
    description = "test benchmark: repeat the last word"
    default_params = GenParams(max_tokens=64)

    def subsets(self) -> list[str]:
        return ["a", "b"]

    def modes(self) -> list[str]:
        return ["zero-shot", "retry"]

    def load(self, subset: str, mode: str) -> list[Item]:
        n = 30 if subset == "a" else 20
        return [Item("toy", subset, str(i), {"q": f"Item {subset}{i}: repeat {WORDS[i % 10]}"},
                     gold=WORDS[i % 10] if i % 3 else "wrong") for i in range(n)]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat(item.data["q"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        got = double_brackets(text)
        if got is None:
            return Verdict(Outcome.UNANSWERABLE, None, "brackets")
        return Verdict(Outcome.CORRECT if got == item.gold else Outcome.INCORRECT, got, "brackets")

    def followup(self, item: Item, mode: str, turns: list[Turn]) -> Prompt | None:
        last = turns[-1]
        if mode != "retry" or len(turns) >= 3 or (last.verdict and last.verdict.correct):
            return None
        hist = [(t.prompt.last_user_text(), t.verdict.extracted or "" if t.verdict else "") for t in turns]
        return Prompt.chat(f"Try again {len(turns)}", history=hist)


@register("toybig")
class ToyBig(Toy):
    """``REASONEVAL_TOYBIG_N`` items (default 1250) in one subset; mode ``slow-score`` takes 0.3 s per verdict."""

    name = "toybig"
    description = "test benchmark: many items"

    def subsets(self) -> list[str]:
        return ["a"]

    def modes(self) -> list[str]:
        return ["zero-shot", "slow-score"]

    def load(self, subset: str, mode: str) -> list[Item]:
        import os

        n = int(os.environ.get("REASONEVAL_TOYBIG_N", "1250"))
        return [Item("toybig", subset, str(i), {"q": f"Item {subset}{i}: repeat {WORDS[i % 10]}"},
                     gold=WORDS[i % 10]) for i in range(n)]

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        if mode == "slow-score":
            import time

            time.sleep(0.3)
        return super().score(item, text, mode)
