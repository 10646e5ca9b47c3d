"""KOR-Bench's dataset tables (``reasoneval stats korbench``): Tables 1, 4, 6 and 7 with the published values
beside ours; Table 5 (answer formats) is ``answer_formats.py``. Token counts: cl100k_base (Table 7's tokenizer).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...core.benchmark import Table
from ...report.dataset_stats import _mean_sd, cl100k, count_tokens

__all__ = ["cl100k", "count_tokens"]

# KOR-Bench Table 1 (rules, avg rule len, max rule len, questions, avg question len, formats), Table 7
# (GPT-4o input mean/sd, output mean/sd, cl100k), Table 6 (answer-format counts) as printed.
KOR_TABLE1 = {
    "operation": (25, 51.32, 208, 250, 170.81, "NR, ME, SD"),
    "logic": (25, 1549.12, 3338, 250, 411.54, "NR, TR, MC"),
    "cipher": (25, 2436.64, 6454, 250, 157.2, "TR"),
    "puzzle": (25, 473.16, 767, 250, 394.9, "NR, ME, TR, SD"),
    "counterfactual": (25, 4572.56, 9472, 250, 388.66, "MC"),
}
KOR_TABLE7 = {
    "operation": (179.51, 27.28, 316.52, 157.94),
    "logic": (628.18, 169.04, 230.23, 237.57),
    "cipher": (823.41, 409.16, 451.24, 340.77),
    "puzzle": (345.38, 102.84, 629.14, 288.03),
    "counterfactual": (1138.23, 417.67, 68.332, 50.96),
}
FORMATS = ("NR", "ME", "TR", "MC", "SD")
KOR_TABLE6 = {
    "operation": {"NR": 177, "ME": 43, "SD": 30},
    "logic": {"NR": 13, "TR": 87, "MC": 150},
    "cipher": {"TR": 250},
    "puzzle": {"NR": 10, "ME": 30, "TR": 40, "SD": 170},
    "counterfactual": {"MC": 250},
}


_NUM = r"[-+]?\d+(?:\.\d+)?(?:/\d+)?"
_NR = re.compile(rf"^\s*{_NUM}(?:\s*,\s*{_NUM})*\s*$")
_MC = re.compile(r"^\s*[A-F](?:\s*,\s*[A-F])*\s*$")
_ME_HINT = re.compile(r"\\[a-zA-Z]+|[=<>≤≥^]|\d\s*[a-z]\b|\b[a-z]\s*[-+*/^]|[a-z]\(|√|∫|π")
_PARTS = re.compile(r"\]\s*;\s*\[|(?<=[\w)}])or(?=[-\w\\(])")
_SD_HINT = re.compile(r"[(\[{].*[,].*[)\]}]|\w\s*=\s*\w.*,|^\s*\d+(?:\s+\d+)+(?:\s*,\s*\d+(?:\s+\d+)+)+\s*$")


def answer_format(answer: str, allowed: Sequence[str] = FORMATS) -> str:
    """A heuristic reading of Table 5's five formats, restricted to those the paper lists for the category
    (the release does not label formats, so counts are close to Table 6, not exact)."""
    a = answer.strip()
    if a.startswith("[[") and a.endswith("]]"):
        a = a[2:-2]
    parts = [x.strip() for x in _PARTS.split(a) if x.strip()]
    for fmt, rx in (("MC", _MC), ("NR", _NR)):  # several answers ("or", "];[") of one simple kind
        if len(parts) > 1 and fmt in allowed and all(rx.match(x) for x in parts):
            return fmt
    order: list[tuple[str, Callable[[str], bool]]] = [
        ("MC", lambda s: bool(_MC.match(s))),
        ("NR", lambda s: bool(_NR.match(s))),
        ("SD", lambda s: bool(_SD_HINT.search(s))),
        ("ME", lambda s: bool(_ME_HINT.search(s))),
        ("TR", lambda s: True),
    ]
    for fmt, test in order:
        if fmt in allowed and test(a):
            return fmt
    return allowed[-1] if "TR" not in allowed else "TR"


# ---------------------------------------------------------------- KOR-Bench tables

def _kor_data(data: str | None) -> Any:
    from .data import KorData, default_data

    return KorData(data) if data else default_data()


def kor_table1(data: str | None = None) -> Table:
    from .data import CATEGORIES

    d = _kor_data(data)
    rows: list[list[Any]] = []
    for c in CATEGORIES:
        rules, qs = d.rules(c), d.questions(c)
        rl = [len(r.content) for r in rules.values()]
        ql = [len(q.question) for q in qs.values()]
        formats = sorted({answer_format(q.answer, _allowed(c)) for q in qs.values()}, key=FORMATS.index)
        p = KOR_TABLE1.get(c)
        rows.append([c, len(rules), round(sum(rl) / len(rl), 2), max(rl), len(qs), round(sum(ql) / len(ql), 2),
                     ", ".join(formats), *(p if p else ("-",) * 6)])
    return Table("KOR-Bench Table 1: dataset statistics (lengths in characters)",
                 ["category", "rules", "avg rule len", "max rule len", "questions", "avg question len", "formats",
                  "paper rules", "paper avg rule", "paper max rule", "paper questions", "paper avg question",
                  "paper formats"], rows,
                 ["paper columns: KOR-Bench Table 1 as printed; formats are our heuristic reading (Table 5)."])


def _allowed(category: str) -> tuple[str, ...]:
    return tuple(KOR_TABLE6.get(category, dict.fromkeys(FORMATS)))


def kor_table4(data: str | None = None) -> Table:
    """Rule distribution: each rule's tag path (``a,b,c`` = category > subcategory > tertiary)."""
    from .data import CATEGORIES

    d = _kor_data(data)
    rows: list[list[Any]] = []
    for c in CATEGORIES:
        tags = Counter(tuple(t.strip() for t in r.tag.split(",")) if r.tag.strip() else ("(untagged)",)
                       for r in d.rules(c).values())
        for path, n in sorted(tags.items()):
            rows.append([c, path[0], path[1] if len(path) > 1 else "-", ", ".join(path[2:]) or "-", n])
    return Table("KOR-Bench Table 4: rule distribution by tag",
                 ["category", "tag", "subcategory", "tertiary", "rules"], rows,
                 ["From the release's rule ``tag`` field (comma-separated levels); Counterfactual rules carry no "
                  "tag (the paper groups them by source work, Table 12)."])


def kor_table6(data: str | None = None) -> Table:
    from .data import CATEGORIES

    d = _kor_data(data)
    rows: list[list[Any]] = []
    for c in CATEGORIES:
        qs = d.questions(c)
        cnt = Counter(answer_format(q.answer, _allowed(c)) for q in qs.values())
        n = len(qs)
        cells = [f"{cnt[f]} ({100 * cnt[f] / n:.2f}%)" if cnt[f] else "-" for f in FORMATS]
        paper = KOR_TABLE6.get(c, {})
        pcells = [f"{paper[f]} ({100 * paper[f] / 250:.2f}%)" if f in paper else "-" for f in FORMATS]
        rows.append([c, *cells, *pcells])
    return Table("KOR-Bench Table 6: answer-format distribution",
                 ["category", *FORMATS, *(f"paper {f}" for f in FORMATS)], rows,
                 ["Ours: a heuristic classifier of the gold answers (the release has no format labels), restricted "
                  "to the formats the paper lists per category; paper: Table 6 as printed."])


def _output_tokens(outputs: Path, model: str = "gpt-4o") -> dict[str, list[int]]:
    """Per category, cl100k counts of a model's raw zero-shot responses (KOR-Bench release layout)."""
    from .rawfiles import discover, iter_records

    files, _ = discover([outputs])
    out: dict[str, list[int]] = defaultdict(list)
    for f in files:
        if f.model.lower() != model.lower() or f.mode != "zero-shot":
            continue
        for _, rec in iter_records(f.path):
            if isinstance(rec, dict) and isinstance(rec.get("response"), str):
                out[f.category].append(count_tokens(rec["response"]))
    return dict(out)


def kor_table7(data: str | None = None, outputs: Path | None = None, model: str = "gpt-4o") -> Table:
    """Input tokens of the zero-shot prompts; output tokens of ``model``'s raw responses when given."""
    from . import prompts
    from .data import CATEGORIES

    d = _kor_data(data)
    outs = _output_tokens(outputs, model) if outputs else {}
    rows: list[list[Any]] = []
    for c in CATEGORIES:
        rules = d.rules(c)
        ins = [count_tokens(prompts.zero_shot(c, rules[q.rule_id].content, q.question)) for q in d.questions(c).values()]
        im, isd = _mean_sd(ins)
        o = outs.get(c)
        om, osd = _mean_sd(o) if o else (None, None)
        p = KOR_TABLE7[c]
        rows.append([c, round(im, 2), round(isd, 2), None if om is None else round(om, 2),
                     None if osd is None else round(osd, 2), *p])
    notes = ["cl100k_base tokens (bpe-openai); input = the zero-shot prompt; sd = population standard deviation.",
             f"output = {model}'s zero-shot responses from --outputs" if outputs else
             "output tokens need --outputs DIR (raw model outputs in the KOR-Bench release layout)."]
    return Table("KOR-Bench Table 7: token statistics (cl100k_base)",
                 ["category", "input mean", "input sd", "output mean", "output sd", "paper input mean",
                  "paper input sd", "paper output mean", "paper output sd"], rows, notes)
