"""KOR-Bench Table 5: the five answer formats with the paper's explanations and example answers (static text
from Appendix C.2), plus how many release answers our heuristic reads as each format and one of them.

Produced by ``reasoneval stats korbench`` beside Tables 1, 4, 6 and 7.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...core.benchmark import Table

#: format code -> (name, explanation, cases), verbatim from the paper's Table 5 (LaTeX examples as plain text)
KOR_TABLE5: dict[str, tuple[str, str, str]] = {
    "NR": ("Numerical Response",
           "An answer format that contains one or more numeric values and contains only purely numeric values.",
           "[[13/3]], [[24]], [[4]]"),
    "ME": ("Mathematical Expression",
           "An answer format that uses mathematical notations, symbols, and operations to represent a relationship "
           "or equation.",
           "[[2x \\sin(x) + x^2 \\cos(x)]], [[3/3 + 2/1 - 5 - 3 = -5]], [[X \\leq 10]]"),
    "TR": ("Textual Response",
           "An answer format composed entirely of text, including complete sentences or other paragraphs of "
           "characters.",
           "[[I]], [[$1%34!*:2@]], [[34bc62069e2e2aea55ab13]]"),
    "MC": ("Multiple Choice",
           "An answer format in which one of a set of multiple choices is selected as the answer.",
           "[[A]], [[B]], [[C]]"),
    "SD": ("Structured Data",
           "An answer format that organises the output into a specific structure set by the question.",
           "[[O = 3, N = 9, E = 2]], [[((2, 7), (12, 17))]], [[12 6 9 4, 15 9 4 7, 2 7 2 1]]"),
}


def kor_table5(data: str | None = None) -> Table:
    """Table 5's rows, with the release answers our heuristic assigns to each format (count, first example)."""
    from .data import CATEGORIES
    from .dataset_stats import _allowed, _kor_data, answer_format

    d = _kor_data(data)
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for c in CATEGORIES:
        for q in d.questions(c).values():
            f = answer_format(q.answer, _allowed(c))
            counts[f] += 1
            example.setdefault(f, f"{c} {q.idx}: {q.answer}"[:80])
    rows: list[list[Any]] = [[code, name, expl, cases, counts[code], example.get(code, "")]
                             for code, (name, expl, cases) in KOR_TABLE5.items()]
    return Table("KOR-Bench Table 5: answer formats", ["format", "name", "explanation (paper)", "cases (paper)",
                                                       "release answers (ours)", "a release answer"], rows,
                 ["Explanations and cases: the paper's Table 5 verbatim. Counts: our heuristic reading of the gold "
                  "answers (the release does not label formats; per category see Table 6)."])
