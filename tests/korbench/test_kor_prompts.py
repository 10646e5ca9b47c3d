"""Prompts are byte-identical to the `prompt` field of the official raw outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reasoneval.benchmarks.korbench import prompts
from reasoneval.benchmarks.korbench.benchmark import KorBench
from reasoneval.benchmarks.korbench.data import CATEGORIES, default_data
from reasoneval.benchmarks.korbench.rawfiles import parse_name
from reasoneval.benchmarks.korbench.selfcorrect import conversation, replayed_answer
from reasoneval.core.benchmark import Turn
from reasoneval.core.values import Completion, Item, Outcome, Verdict

# Items whose rule text / question changed between the paper runs and the data release (spec-independent
# facts established from the raw outputs; the scorer uses each record's own gold, so Table 2 is unaffected).
DRIFTED = {
    "operation": {str(i) for i in range(41, 51)},  # rule 5 text ("a^2+b^2" -> "a^2+b^2.")
    "cipher": {str(i) for i in range(1, 11)},  # rule 1 text (key input line removed)
    "logic": {"31", "70", "116", "117", "125", "126"},  # question texts
}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _render(rec: dict[str, Any], category: str, mode: str) -> str:
    data = default_data()
    if mode == "three-shot":
        shots = [(s.question, s.answer) for s in data.shots(category)[rec["rule_id"]]]
        return prompts.three_shot(category, rec["rule_content"], shots, rec["question"])
    return prompts.zero_shot(category, rec["rule_content"], rec["question"])


def test_main_prompts_byte_identical(korbench_outputs: Path) -> None:
    files = sorted((korbench_outputs / "main").glob("*.jsonl"))
    assert len(files) == 30
    n = 0
    for f in files:
        info = parse_name(f)
        for rec in _records(f):
            assert _render(rec, info.category, info.mode) == rec["prompt"], (f.name, rec["idx"])
            n += 1
    assert n == 7500


def test_benchmark_prompts_from_release_data(korbench_outputs: Path) -> None:
    """Benchmark.prompt (release data) matches every item except the ones the release later edited."""
    bench = KorBench()
    for f in sorted((korbench_outputs / "main").glob("gpt-4o_*") ) + sorted(
            (korbench_outputs / "main").glob("Qwen2.5-7B_*")):
        info = parse_name(f)
        items = {it.id: it for it in bench.load(info.category, info.mode)}
        mismatched = set()
        for rec in _records(f):
            p = bench.prompt(items[rec["idx"]], info.mode)
            assert p.is_chat == (info.mode == "zero-shot")
            text = p.text if p.text is not None else p.messages[-1].content
            if text != rec["prompt"]:
                mismatched.add(rec["idx"])
        assert mismatched == DRIFTED.get(info.category, set()), f.name


def test_trick_prompts(korbench_outputs: Path) -> None:
    recs = _records(korbench_outputs / "puzzle-trick" / "gpt-4o_puzzle_trick.jsonl")
    assert all(prompts.trick(r["rule_content"], r["question"], r["trick"]) == r["prompt"] for r in recs)
    bench = KorBench()
    items = {it.id: it for it in bench.load("puzzle", "trick")}
    assert all(bench.prompt(items[r["idx"]], "trick").messages[-1].content == r["prompt"] for r in recs)


def test_subquestion_prompts(korbench_outputs: Path) -> None:
    # the sub-step run used the cipher rule texts of the paper runs (rule 1 changed since)
    old_rules = {r["rule_id"]: r["rule_content"]
                 for r in _records(korbench_outputs / "main" / "gpt-4o_cipher_zero-shot.jsonl")}
    recs = _records(korbench_outputs / "cipher-subquestions" / "gpt-4o_cipher_subquestions.jsonl")
    assert len(recs) == 345
    for r in recs:
        assert prompts.subquestion(old_rules[r["rule_id"]], r["input"], r["description"]) == r["prompt"]
    bench = KorBench()
    items = {it.id: it for it in bench.load("cipher-subquestions", "subquestions")}
    same = sum(bench.prompt(items[f"{r['idx']}:{r['step']}"], "subquestions").messages[-1].content == r["prompt"]
               for r in recs)
    assert same == sum(r["rule_id"] != "1" for r in recs)


def test_self_correction_history(korbench_outputs: Path) -> None:
    """Every stored round: first prompt zero-shot, then the exact feedback message, extracted answers replayed."""
    assert prompts.feedback_message() == "Your answer is incorrect, please check your answer and provide a correct one."
    for f in sorted((korbench_outputs / "self-correction").glob("*.jsonl")):
        cat = parse_name(f).category
        for rec in _records(f):
            hist = rec.get("history") or {}
            rounds = [hist[k] for k in sorted(hist, key=int)]
            first = rounds[0]["prompt"] if rounds else rec["prompt"]
            assert first == prompts.zero_shot(cat, rec["rule_content"], rec["question"])
            for h in rounds:
                assert h["response"] == replayed_answer(h["response_origin"])
            if rounds:
                history, user = conversation(first, [h["response_origin"] for h in rounds])
                assert user == rec["prompt"] == prompts.feedback_message()
                assert [u for u, _ in history] == [h["prompt"] for h in rounds]
                assert [a for _, a in history] == [h["response"] for h in rounds]


def _turn(bench: KorBench, item: Item, prompt_text: str, text: str, error: str | None = None) -> Turn:
    from reasoneval.core.values import Prompt

    comp = Completion(text=text, error=error)
    v = Verdict(Outcome.ERROR) if error else bench.score(item, text, "self-correction")
    return Turn(Prompt.chat(prompt_text), comp, v)


def test_followup_protocol() -> None:
    bench = KorBench()
    item = bench.load("operation", "self-correction")[0]  # gold [[24]]
    first = bench.prompt(item, "self-correction")
    turns = [Turn(first, Completion("so [[ 7 ]] it is"), bench.score(item, "so [[ 7 ]] it is", "self-correction"))]
    nxt = bench.followup(item, "self-correction", turns)
    assert nxt is not None and nxt.is_chat
    roles = [m.role for m in nxt.messages]
    assert roles == ["user", "assistant", "user"]
    assert nxt.messages[0].content == first.messages[-1].content
    assert nxt.messages[1].content == "[[7]]"  # the extracted answer, not the reasoning
    assert nxt.messages[2].content == prompts.feedback_message()
    for _ in range(3):
        turns.append(_turn(bench, item, nxt.messages[-1].content, "[[8]]"))
        nxt = bench.followup(item, "self-correction", turns)
    assert nxt is not None and len(nxt.messages) == 9
    turns.append(_turn(bench, item, nxt.messages[-1].content, "[[9]]"))
    assert len(turns) == 5 and bench.followup(item, "self-correction", turns) is None  # at most 5 calls
    assert bench.followup(item, "self-correction", turns[:1] + [_turn(bench, item, "x", "[[24]]")]) is None
    assert bench.followup(item, "self-correction", turns[:1] + [_turn(bench, item, "x", "", "boom")]) is None
    assert bench.followup(item, "zero-shot", turns[:1]) is None
    needle = bench.followup(item, "self-correction-with-needle", turns[:1])
    assert needle is not None
    assert needle.messages[-1].content == "\n".join(item.data["needle"]) + "\n" + prompts.feedback_message()


@pytest.mark.parametrize("category", CATEGORIES)
def test_only_questions_variants(category: str) -> None:
    bench = KorBench()
    item = bench.load(category, "only-questions-zero-shot")[0]
    zs = bench.prompt(item, "zero-shot").messages[-1].content
    oq = bench.prompt(item, "only-questions-zero-shot").messages[-1].content
    heading = f"### {prompts.RULE_HEADINGS[category]} Rule:\n\n"
    assert heading in zs and heading not in oq and item.data["rule_content"] not in oq
    assert zs.replace(heading + item.data["rule_content"] + "\n\n", "") == oq
    ts = bench.prompt(item, "three-shot").text
    oq3 = bench.prompt(item, "only-questions-three-shot").text
    assert ts is not None and oq3 is not None
    assert ts.replace(heading + item.data["rule_content"] + "\n\n", "") == oq3
    assert oq3.count("### Question:") == 4 and oq3.endswith("### Answer:\n")


def test_mixed_prompt() -> None:
    bench = KorBench()
    item = next(it for it in bench.load("Multi-RQ", "mixed") if len(it.data["questions"]) == 2)
    text = bench.prompt(item, "mixed").messages[-1].content
    data = default_data()
    rules = [data.rule(c, i).content for c, i in item.data["rules"]]
    qs = [data.question(c, i).question for c, i in item.data["questions"]]
    assert text.startswith("You are an intelligent assistant capable of handling all types of reasoning")
    assert '  {\n  "question1": "your answer",' in text  # the doubled braces of the yaml were formatted
    assert "### Rules:\n\n" + "\n".join(r + "\n" for r in rules) + "\n\n### Questions:\n" in text
    assert text.endswith("question1:\n" + qs[0] + "\n\nquestion2:\n" + qs[1] + "\n\n\n### Answers:\n")
