"""R-Bench subject distribution beside the paper (``reasoneval stats rbench``): the departments and subjects of
the paper's Tables 8 (R-Bench-T) and 9 (R-Bench-M), shipped in ``benchmarks/rbench/data/paper_tables.json``,
with the items of the data at hand counted beside them.

The public release carries no department or subject, so with it every item falls under "(no department)"
and only the paper's columns are informative; own data with ``department`` / ``subject`` fill ours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ...core.benchmark import Table
from .paper_meta import norm, tables

SPLITS = {"T": ("t_en", "t_zh"), "M": ("m_en", "m_zh")}
NO_DEPT = "(no department)"


def _split(subset: str) -> str:
    return "M" if subset.startswith("m") else "T"


def _paper_subjects(split: str) -> dict[tuple[str, str], int]:
    """(normalised department, normalised subject) -> the paper's question count."""
    return {(norm(d["department"]), norm(s["subject"])): int(s["questions"])
            for d in tables()["splits"][split] for s in d["subjects"]}


def paper_subject_count(split: str, department: str, subject: str) -> int | None:
    """The paper's questions for ``subject`` (in ``department`` when known; else where the name is unique)."""
    idx = _paper_subjects(split)
    if department and department != "-":
        return idx.get((norm(department), norm(subject)))
    hits = [q for (_, s), q in idx.items() if s == norm(subject)]
    return hits[0] if len(hits) == 1 else None


def rbench_subject_tables(subjects: Mapping[tuple[str, ...], int]) -> list[Table]:
    """``subjects``: (subset, department, subject) -> items. The paper's departments per split with our counts
    per subset beside them, and the subject rows with the paper's count for the same subject."""
    ours: Counter[tuple[str, str, str]] = Counter()  # (split, normalised department, subset) -> items
    names: dict[tuple[str, str], str] = {}
    for (sub, dept, _subj), n in subjects.items():
        key = norm(dept) if dept != "-" else NO_DEPT
        ours[(_split(sub), key, sub)] += n
        names.setdefault((_split(sub), key), dept if dept != "-" else NO_DEPT)
    rows: list[list[Any]] = []
    for split, subsets in SPLITS.items():
        seen: set[str] = set()
        for d in tables()["splits"][split]:
            key = norm(d["department"])
            seen.add(key)
            rows.append([split, d["department"], len(d["subjects"]), sum(int(s["questions"]) for s in d["subjects"]),
                         *(ours[(split, key, s)] for s in subsets)])
        for (sp, key), name in sorted(names.items()):
            if sp == split and key not in seen:  # departments (or no department) the paper does not list
                rows.append([split, name, None, None, *(ours[(split, key, s)] for s in subsets)])
    notes = ["paper: R-Bench Appendix A.3, Table 8 (T: 108 subjects, 1,094 questions) and Table 9 (M: 83 subjects, "
             "665 questions); ours: items of the data read, per language.",
             "The public release has no department or subject fields: its items all count under "
             f"'{NO_DEPT}'. Own data with `department` / `subject` fill the per-department counts."]
    out = [Table("R-Bench departments beside the paper (Tables 8, 9)",
                 ["split", "department", "paper subjects", "paper questions", "items (en)", "items (zh)"], rows, notes)]
    total = sum(subjects.values()) or 1
    srows = [[sub, dept, subj, n, round(100 * n / total, 2),
              paper_subject_count(_split(sub), dept, subj) if subj != "-" else None]
             for (sub, dept, subj), n in sorted(subjects.items())]
    out.append(Table("R-Bench subject distribution beside the paper", ["subset", "department", "subject", "items", "%",
                                                                       "paper questions"], srows,
                     ["paper questions: the paper's count for the subject in Table 8 (T) or 9 (M); blank where the "
                      "item has no subject or the name is not unique without a department."]))
    return out
