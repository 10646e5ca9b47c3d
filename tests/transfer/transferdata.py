"""Small GSM8K / MATH-500 / MMLU repositories for the fake Hub, laid out like the real ones (splits and configs
the loaders must leave alone included), and scripted model answers for them."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from reasoneval.hub import fetch

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

GSM8K = "openai/gsm8k"
MATH500 = "HuggingFaceH4/MATH-500"
MMLU = "cais/mmlu"


def parquet(rows: list[dict[str, Any]]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    return buf.getvalue()


def _card(configs: dict[str, list[str]], folder: dict[str, str]) -> bytes:
    lines = ["---", "configs:"]
    for name, splits in configs.items():
        lines += [f"- config_name: {name}", "  data_files:"]
        lines += [f"  - split: {s}\n    path: {folder[name]}/{s}-*" for s in splits]
    return ("\n".join(lines) + "\n---\n# fake\n").encode()


GSM8K_TEST = [
    {"question": "Gsm question zero: Tom has 3 apples and buys 4 more. How many?",
     "answer": "3 + 4 = <<3+4=7>>7\n#### 7"},
    {"question": "Gsm question one: a shop sells 1,250 pens a day for 2 days. How many pens?",
     "answer": "1250 * 2 = 2500\n#### 2,500"},
    {"question": "Gsm question two: half of 9?", "answer": "9/2 = 4.5\n#### 4.5"},
    {"question": "Gsm question three: 10 minus 12?", "answer": "#### -2"},
]


def gsm8k_files() -> dict[str, bytes]:
    train = [{"question": "Gsm TRAIN question: never asked", "answer": "#### 1"}]
    return {"README.md": _card({"main": ["train", "test"], "socratic": ["train", "test"]},
                               {"main": "main", "socratic": "socratic"}),
            "main/test-00000-of-00001.parquet": parquet(GSM8K_TEST),
            "main/train-00000-of-00001.parquet": parquet(train),
            "socratic/test-00000-of-00001.parquet": parquet(train)}


MATH_TEST = [
    {"problem": "Math problem A: compute 1/2 + 1/4.", "solution": "... \\boxed{\\frac{3}{4}}", "answer": "\\frac{3}{4}",
     "subject": "Algebra", "level": 1, "unique_id": "test/algebra/101.json"},
    {"problem": "Math problem B: convert (0,3) to polar.", "solution": "...",
     "answer": "\\left( 3, \\frac{\\pi}{2} \\right)", "subject": "Precalculus", "level": 2,
     "unique_id": "test/precalculus/807.json"},
    {"problem": "Math problem C: how many subsets has a 3-set?", "solution": "...", "answer": "8",
     "subject": "Counting & Probability", "level": 5, "unique_id": "test/counting_and_probability/5.json"},
    {"problem": "Math problem D: what is sqrt(16)?", "solution": "...", "answer": "4",
     "subject": "Algebra", "level": 5, "unique_id": "test/algebra/77.json"},
    {"problem": "Math problem E: the smallest prime?", "solution": "...", "answer": "2",
     "subject": "Number Theory", "level": 3, "unique_id": "test/number_theory/9.json"},
]


def math_files() -> dict[str, bytes]:
    body = "".join(json.dumps(r) + "\n" for r in MATH_TEST).encode()
    readme = b"---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: test.jsonl\n---\n"
    return {"README.md": readme, "test.jsonl": body}


MMLU_TEST = [
    {"question": "Mmlu q0: the order of the group Z_4?", "subject": "abstract_algebra",
     "choices": ["2", "4", "8", "1"], "answer": 1},
    {"question": "Mmlu q1: who wrote the Republic?", "subject": "philosophy",
     "choices": ["Plato", "Kant", "Hume", "Locke"], "answer": 0},
    {"question": "Mmlu q2: GDP stands for?", "subject": "high_school_macroeconomics",
     "choices": ["Gross domestic product", "Great data plan", "General debt pool", "None"], "answer": 0},
    {"question": "Mmlu q3: the largest organ?", "subject": "anatomy",
     "choices": ["Heart", "Liver", "Skin", "Lung"], "answer": 2},
    {"question": "Mmlu q4: F = m a is whose law?", "subject": "college_physics",
     "choices": ["Ohm", "Newton", "Boyle", "Hooke"], "answer": 1},
]


def mmlu_files() -> dict[str, bytes]:
    aux = [{"question": "AUX never asked", "subject": "", "choices": ["a", "b", "c", "d"], "answer": 0}]
    dev = [{**MMLU_TEST[0], "question": "Mmlu DEV never asked"}]
    return {"README.md": _card({"abstract_algebra": ["test", "dev"], "all": ["test", "dev", "auxiliary_train"]},
                               {"abstract_algebra": "abstract_algebra", "all": "all"}),
            "all/test-00000-of-00001.parquet": parquet(MMLU_TEST),
            "all/dev-00000-of-00001.parquet": parquet(dev),
            "all/auxiliary_train-00000-of-00001.parquet": parquet(aux),
            "abstract_algebra/test-00000-of-00001.parquet": parquet(MMLU_TEST[:1])}


def forget() -> None:
    """What a new process would know: nothing resolved yet."""
    fetch._MEMO.clear()
    fetch._COMMITS.clear()


# -- scripted answers (the fake OpenAI server's --answers lines: a prompt containing "contains" gets "response")
SCRIPTED = [  # varied on purpose: <think>, thousands separators, math-verify, wrong, no box, letter forms
    ("Gsm question zero", "<think>3+4=7</think>Therefore, the final answer is: $\\boxed{7}$. I hope it is correct"),
    ("Gsm question one", "1250*2 pens. Therefore, the final answer is: $\\boxed{2,500}$. I hope it is correct"),
    ("Gsm question two", "Half of nine. Therefore, the final answer is: $\\boxed{\\frac{9}{2}}$."),
    ("Gsm question three", "10-12. Therefore, the final answer is: $\\boxed{2}$."),
    ("Math problem A", "Sum. Therefore, the final answer is: $\\boxed{0.75}$. I hope it is correct"),
    ("Math problem B", "Polar. Therefore, the final answer is: $\\boxed{(3, \\frac{\\pi}{2})}$."),
    ("Math problem C", "Therefore, the final answer is: $\\boxed{6}$."),
    ("Math problem D", "The square root of sixteen is four, I think."),
    ("Math problem E", "<think>2 is prime</think>The answer is $2$. I hope it is correct."),
    ("Mmlu q0", "Z_4 has four elements.\nAnswer: B"),
    ("Mmlu q1", "Plato.\n**Answer:** A"),
    ("Mmlu q2", "answer: C"),
    ("Mmlu q3", "The skin. $\\boxed{C}$"),
    ("Mmlu q4", "Answer: A? No, wait.\nAnswer: (B)"),
]


def answers_file(path: Any, lines: list[tuple[str, str]]) -> str:
    path.write_text("".join(json.dumps({"contains": c, "response": r}) + "\n" for c, r in lines), encoding="utf-8")
    return str(path)


RIGHT = {"Gsm question zero": "\\boxed{7}", "Gsm question one": "\\boxed{2500}", "Gsm question two": "\\boxed{4.5}",
         "Gsm question three": "\\boxed{-2}", "Math problem A": "\\boxed{\\frac{3}{4}}",
         "Math problem B": "\\boxed{(3, \\frac{\\pi}{2})}", "Math problem C": "\\boxed{8}",
         "Math problem D": "\\boxed{4}", "Math problem E": "\\boxed{2}", "Mmlu q0": "Answer: B",
         "Mmlu q1": "Answer: A", "Mmlu q2": "Answer: A", "Mmlu q3": "Answer: C", "Mmlu q4": "Answer: B"}


def checkpoint_answers(right: set[str]) -> list[tuple[str, str]]:
    """A checkpoint that answers exactly the questions tagged in ``right`` correctly (a wrong number or
    letter otherwise)."""
    wrong_letter = {"Answer: A": "Answer: D", "Answer: B": "Answer: D", "Answer: C": "Answer: D"}
    return [(tag, ans if tag in right else wrong_letter.get(ans, "\\boxed{999}")) for tag, ans in RIGHT.items()]
