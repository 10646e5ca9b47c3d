r"""Crafted model answers for the side-by-side checks of official scoring (``scripts/reference_sidebyside.py``).

Hand-written forms, each applied to a few golds: plain answers, ``<think>`` blocks (closed, unclosed, several,
a stray ``</think>``, upper-case tags), cut-off text (``finish_reason: "length"``), answers before and after a
wrong one, lower-case letters, full-width characters, other languages, several boxes, ``\fbox``, ``\boxed {x}``,
units, percent, thousands separators, markdown. Nothing here runs any reference code; each case is a plain dict:

* KOR-Bench: ``{"bench": "korbench", "category", "idx", "rule_id", "answer", "response", "finish_reason",
  ["real_life_answer"], ["question_list"]}`` (mixed: ``category`` is the set, ``answer`` unused);
* MMLU: ``{"bench": "mmlu", "question", "choices", "answer" (a letter), "subject", "response", "finish_reason"}``;
* GSM8K: ``{"bench": "gsm8k", "question", "answer" ("... #### 72"), "gold", "response", "finish_reason"}``;
* MATH: ``{"bench": "math", "problem", "solution", "answer", "subject", "level", "response", "finish_reason"}``.
"""

from __future__ import annotations

import json
from typing import Any

LENGTH = "length"


# --------------------------------------------------------------------------- KOR-Bench

KOR_ITEMS = {  # category -> idx: defaults, SymPy, "or", inequality, set, matrix, circuits, puzzle rules
    "operation": ["1", "6", "18", "73", "175", "178", "225"],
    "logic": ["1", "45", "120"],
    "cipher": ["1", "100", "230"],
    "puzzle": ["1", "11", "21", "51", "81", "91", "211"],
    "counterfactual": ["1", "50"],
}


def _kor_forms(g: str, w: str) -> list[tuple[str, str | None]]:
    inner = g[2:-2] if g.startswith("[[") and g.endswith("]]") else g
    return [
        (g, None),
        (f"The answer is {g}.", None),
        (f"<think>maybe {w}</think>\n{g}", None),
        (f"<think>it is {g}</think>\nFinal: {w}", None),
        (f"<think>working... the answer is {g}", None),
        (f"<think>working... {w}", None),
        (f"</think>{g}", None),
        (f"</think>{w}", None),
        (f"Let me see. {g}", LENGTH),
        (f"Let me see. {w}", LENGTH),
        (f"{w} no wait {g}", None),
        (f"{g} or maybe {w}", None),
        (f"<think>a</think><think>{w}</think>{g}", None),
        (f"<think>{g}</think>", None),
        (f"$\\boxed{{{inner}}}$", None),
        (f"[[ {inner} ]]", None),
        (f"【{inner}】", None),
        (g.lower(), None),
        ("", None),
        (f"<think>\n{g}\n</think>\n\n{g}", None),
        (f"<think>{w}\n\n</think>\n{g}", LENGTH),
        (g[:-1], LENGTH),
        (f"</think>{w}</think>{g}", None),
        (f"<THINK>{w}</THINK>{g}", None),
        (f"<think>{w}</think>{g}", LENGTH),
        (f"<think>{g}</think> I am unsure. <think>{w}", None),
    ]


def korbench_cases(data: Any) -> list[dict[str, Any]]:
    """``data``: the packaged KOR-Bench data (``reasoneval.benchmarks.korbench.data.default_data()``)."""
    out: list[dict[str, Any]] = []
    for cat, idxs in KOR_ITEMS.items():
        for idx in idxs:
            q = data.question(cat, idx)
            wrong = "[[WRONG0]]" if cat != "counterfactual" else ("[[A]]" if q.answer != "[[A]]" else "[[B]]")
            for resp, finish in _kor_forms(q.answer, wrong):
                case = {"bench": "korbench", "category": cat, "idx": idx, "rule_id": q.rule_id, "answer": q.answer,
                        "response": resp, "finish_reason": finish}
                if cat == "counterfactual":
                    case["real_life_answer"] = q.real_life_answer
                out.append(case)
    for mset in ("Multi-Q", "Multi-R", "Multi-RQ"):
        for m in data.mixed(mset)[:3]:
            golds = [data.question(c, i).answer for c, i in m.questions]
            good = json.dumps({f"question{k + 1}": g for k, g in enumerate(golds)})
            bad = json.dumps({f"question{k + 1}": "[[WRONG0]]" for k in range(len(golds))})
            forms = [(good, None), (f"<think>draft {{\"q\": 1}}</think>\n{good}", None),
                     (f"<think>{good}</think>\nno json here", None), (f"<think>working {good}", None),
                     (good, LENGTH), (f"<think>x</think>{good}", None), (f"<think>{bad}</think>\n{good}", None),
                     (f"<think>{good}</think>\n{bad}", None), (f"{good} and {{x}}", None), ("", None)]
            ql = [f"{c}_{i}" for c, i in m.questions]
            for resp, finish in forms:
                out.append({"bench": "korbench", "category": mset, "idx": m.idx, "question_list": ql,
                            "response": resp, "finish_reason": finish})
    return out


# --------------------------------------------------------------------------- MMLU

MMLU_QUESTIONS = [  # (question as released, with its outer whitespace; choices; gold; subject)
    ("Find the degree of Q(sqrt(2)) over Q.", ["0", "4", "2", "6"], "B", "abstract_algebra"),
    ("  Which organ filters blood?\n", ["Heart", "Lung", "Kidney", "Skin"], "C", "anatomy"),
    ("Who wrote the Republic?", ["Plato", "Kant", "Hume", "Locke"], "A", "philosophy"),
    ("What is 2+2?\n\n", ["3", "5", "6", "4"], "D", "elementary_mathematics"),
]
_FULL = {"A": "Ａ", "B": "Ｂ", "C": "Ｃ", "D": "Ｄ"}
_ARABIC = {"A": "أ", "B": "ب", "C": "ج", "D": "د"}
_BENGALI = {"A": "অ", "B": "ব", "C": "ড", "D": "ঢ"}


def _mmlu_forms(g: str, w: str) -> list[tuple[str, str | None]]:
    return [
        (f"Reasoning.\nAnswer: {g}", None), (f"answer: {g}", None), (f"Answer: {g.lower()}", None),
        (f"Answer: ({g})", None), (f"Answer: [{g}]", None), (f"Answer：{g}", None), (f"Answer:\n{g}", None),
        (f"Answer: {_FULL[g]}", None), (f"Answer: {_FULL[g].lower()}", None), (f"Antwort: {g}", None),
        (f"答案：{g}", None), (f"答案: {g}", None), (f"\\${g}\\$", None), (f"Answer: ${g}$", None),
        (f"Answer: $\\boxed{{{g}}}$", None), (f"**Answer:** {g}", None), (f"**Answer: {g}**", None),
        (f"Answer: Because {g} is right", None), (f"Answer: {w}\nAnswer: {g}", None),
        (f"Answer: {g}\nAnswer: {w}", None), (f"<think>Answer: {w}</think>\nAnswer: {g}", None),
        (f"<think>Answer: {g}</think>\nAnswer: {w}", None), (f"<think>so it is... Answer: {g}", None),
        (f"The answer is {g}", None), (f"\\boxed{{{g}}}", None), (f"Answer: \\text{{{g}}}", None),
        (f"Answer:{g}", None), (f"Answer : {g}", None), (f"ANSWER: {g}", None), (f"Answer: {g}.", None),
        (f"Answer: {g}{w}", None), (f"Answer: {g}) option", None), (f"Réponse: {g}", None),
        (f"Answer: {_ARABIC[g]}", None), (f"Answer: {_BENGALI[g]}", None), ("Answer: E", None),
        (f"Answer:\t{g}", None), (f"Answer: **{g}**", None), (f"Answer: {{{g}}}", None),
        (f"Answer: \\mathbf{{{g}}}", None), (f"Answer: \\({g}\\)", None), (f"Answer: {g}", LENGTH),
        (f"<think>long thought\n\nAnswer: {g}", LENGTH), (f"</think>Answer: {g}", None), ("", None),
        (f"Answer: {w}? No, wait.\nAnswer: ({g})", None), (f"答：{g}", None), (f"Respuesta: {g}", None),
    ]


def mmlu_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for question, choices, gold, subject in MMLU_QUESTIONS:
        wrong = "A" if gold != "A" else "B"
        for resp, finish in _mmlu_forms(gold, wrong):
            out.append({"bench": "mmlu", "question": question, "choices": choices, "answer": gold,
                        "subject": subject, "response": resp, "finish_reason": finish})
    return out


# --------------------------------------------------------------------------- GSM8K and MATH

def _math_forms(g: str, w: str) -> list[tuple[str, str | None]]:
    return [
        (f"Therefore, the final answer is: $\\boxed{{{g}}}$. I hope it is correct", None),
        (f"\\boxed{{{g}}}", None), (f"\\boxed {{{g}}}", None), (f"\\fbox{{{g}}}", None), (f"\\boxed{{{g}.}}", None),
        (f"The answer is {g}", None), (f"The answer is ${g}$.", None), (f"The answer is ${g} dollars.", None),
        (f"#### {g}", None), (f"I think {g} apples.", None), (f"{g}", None),
        (f"<think>\\boxed{{{w}}}</think>\\boxed{{{g}}}", None), (f"<think>\\boxed{{{g}}}</think>\\boxed{{{w}}}", None),
        (f"<think>so it is \\boxed{{{g}}}", None), (f"<think>so it is {g}", None),
        (f"\\boxed{{{g}}} and \\boxed{{{w}}}", None), (f"\\boxed{{{w}}} and \\boxed{{{g}}}", None),
        (f"First \\boxed{{{w}}}.\nOn reflection:\n\\boxed{{{g}}}", None), (f"$\\boxed{{{g}}}$", None),
        (f"\\[ \\boxed{{{g}}} \\]", None), (f"Answer: {g}", None), (f"answer: {w}, no: {g}", None),
        (f"Therefore, the final answer is: $\\boxed{{{g}}}$.", LENGTH), (f"Let me compute {g}", LENGTH),
        (f"The final answer is {g}. I hope it is correct", None), ("\\boxed{}", None), (f"\\boxed{{{g}", None),
        (f"\\boxed{{\\textbf{{{g}}}}}", None), (f"**{g}**", None), (f"\\boxed{{{g}\\%}}", None),
        (f"$\\boxed{{{g}}}$ dollars", None), (f"x = {g}", None), (f"\\boxed{{x = {g}}}", None),
        (f"</think>\\boxed{{{g}}}", None), (f"<think>a</think>\n\nThe answer is $\\boxed{{{w}}}$", None),
        (f"$$ {g} $$", None), (f"\\( {g} \\)", None), (f"The result: {w}. So the answer is {g}", None),
        (f"\\boxed{{\\text{{{g}}}}}", None), (f"<think>{w}</think>", None),
    ]


_NUMERIC_EXTRA = ["\\boxed{{{g}.00}}", "\\boxed{{\\${g}}}", "\\boxed{{{g} \\text{{ dollars}}}}", "\\boxed{{{g}}}\\%",
                  "{g}%", "\\boxed{{{g}.0}}", "\\boxed{{0{g}}}", "\\boxed{{-{g}}}", "\\boxed{{\\frac{{2*{g}}}{{2}}}}",
                  "{g}/1", "2*{g}/2", "\\boxed{{{g}}} is wrong; it is \\boxed{{{g}}}"]
GSM8K_GOLDS = [("72", "48"), ("1000", "999"), ("18", "81"), ("5", "6"), ("26", "25"), ("3", "13")]
MATH_GOLDS = [  # (answer, solution's box, wrong answer, subject, level)
    ("\\frac{3}{4}", "\\frac{3}{4}", "\\frac{4}{3}", "Algebra", 1),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\pi)", "Precalculus", 2),
    ("p - q", "p - q", "q - p", "Intermediate Algebra", 5),
    ("\\text{Evelyn}", "\\text{Evelyn}", "\\text{Bob}", "Algebra", 2),
    ("10\\%", "10\\%", "20\\%", "Prealgebra", 3),
    ("2\\sqrt{3}", "2\\sqrt{3}", "3\\sqrt{2}", "Geometry", 4),
    ("[-2,7]", "[-2,7]", "(-2,7)", "Algebra", 4),
    ("0.5", "0.5", "0.05", "Prealgebra", 1),
]


def gsm8k_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for gold, wrong in GSM8K_GOLDS:
        shown = "1,000" if gold == "1000" else gold
        forms = _math_forms(gold, wrong) + [(f.format(g=gold), None) for f in _NUMERIC_EXTRA]
        if shown != gold:
            forms += [(f"\\boxed{{{shown}}}", None), (f"The answer is {shown}", None), (f"{shown} dollars", None)]
        for resp, finish in forms:
            out.append({"bench": "gsm8k", "question": f"  Question with gold {gold}?\n", "answer":
                        f"Work <<1+1=2>>.\n#### {gold}", "gold": gold, "response": resp, "finish_reason": finish})
    return out


def math_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, (answer, box, wrong, subject, level) in enumerate(MATH_GOLDS):
        solution = f"Some work, so the answer is $\\boxed{{{box}}}$."
        for resp, finish in _math_forms(answer, wrong)[:20 + (k % 3) * 10]:
            out.append({"bench": "math", "problem": f"Problem {k}: find it.\n", "solution": solution,
                        "answer": answer, "subject": subject, "level": level, "unique_id": f"test/x/{k}.json",
                        "response": resp, "finish_reason": finish})
    return out
