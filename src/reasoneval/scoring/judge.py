"""LLM-judge helpers: the answer-equivalence prompt, verdict parsing, and judge-vs-human audits.

The prompt is a benchmark's own template (problem, reference answer, student answer) filled in; the
benchmark passes it. The judge must end with ``### Conclusion: Correct`` or ``### Conclusion: Incorrect``;
the last such line counts, and a reply without one is "unparseable" (counted on its own, never silently as
wrong or right).

``judge_audit(pred_path, human_path)`` compares judge verdicts (e.g. ``reasoneval rescore ... --jsonl``
output: ``{"id", "correct", "method", ...}``) with human labels (``{"id", "correct": true|false}`` or
``{"id", "label": "correct"|"incorrect"}``) and returns a printable :class:`AuditResult`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.benchmark import Table
from ..core.values import Prompt

MAX_STUDENT_CHARS = 6000

_CONCLUSION_RE = re.compile(
    r"conclusion\s*+\**+\s*+[:：]\s*+\**+\s*+(incorrect|correct)\b(\s*+/\s*+(?:incorrect|correct))?",
    re.IGNORECASE)


def equivalence_prompt(template: str, problem: str, reference: str, student: str,
                       max_student_chars: int = MAX_STUDENT_CHARS) -> Prompt:
    """A benchmark's answer-equivalence judge prompt as one user message: ``template`` (a ``str.format``
    template with ``{problem}``, ``{reference}`` and ``{student}``) filled in; an over-long student answer
    keeps its tail."""
    if len(student) > max_student_chars:
        student = "[...]\n" + student[-max_student_chars:]
    text = template.format(problem=problem.strip(), reference=str(reference).strip(), student=student.strip())
    return Prompt.chat(text)


def parse_conclusion(text: str) -> bool | None:
    """True for ``### Conclusion: Correct``, False for ``Incorrect``, None when there is no verdict.

    The last conclusion line counts; an echoed template line ``Correct/Incorrect`` is ignored.
    """
    verdict: bool | None = None
    for m in _CONCLUSION_RE.finditer(text[-20000:]):
        if m.group(2):  # "Correct/Incorrect": the template, not a verdict
            continue
        verdict = m.group(1).lower() == "correct"
    return verdict


# --------------------------------------------------------------------------- audits

_TRUE = {"true", "correct", "1", "yes", "right", "pass"}
_FALSE = {"false", "incorrect", "0", "no", "wrong", "fail"}
_LABEL_KEYS = ("correct", "label", "human", "human_correct", "verdict", "judgement", "judgment")


def _label(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return bool(v)
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
    return None


def _read_labels(path: str, human: bool) -> tuple[dict[str, bool | None], dict[str, str]]:
    labels: dict[str, bool | None] = {}
    methods: dict[str, str] = {}
    with Path(path).open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: row {n}: not valid JSON ({e.msg})") from e
            if not isinstance(row, dict) or row.get("id") is None:
                raise ValueError(f"{path}: row {n}: field 'id' is missing")
            key = str(row["id"]) + (f"#{row['sample']}" if row.get("sample") not in (None, 0) else "")
            if key in labels:
                raise ValueError(f"{path}: row {n}: duplicate id {key!r}")
            lk = next((k for k in _LABEL_KEYS if k in row), None)
            if lk is None:
                raise ValueError(f"{path}: row {n}: field 'correct' is missing (or 'label')")
            value = _label(row[lk])
            if value is None and (human or row[lk] not in (None, "", "unparseable")):
                raise ValueError(f"{path}: row {n}: field {lk!r} is {row[lk]!r}; expected true/false")
            labels[key] = value
            methods[key] = str(row.get("method") or "")
    return labels, methods


@dataclass
class AuditResult:
    n: int  # ids in both files
    agree: int
    unparsed: int  # judge gave no verdict
    confusion: dict[tuple[str, str], int]  # (judge, human) -> count
    kappa: float | None
    only_pred: int
    only_human: int
    disagreements: list[str] = field(default_factory=list)
    by_method: dict[str, tuple[int, int]] = field(default_factory=dict)  # method -> (agree, n)

    @property
    def agreement(self) -> float:
        return self.agree / self.n if self.n else 0.0

    def tables(self) -> list[Table]:
        rows = [[j, self.confusion.get((j, "correct"), 0), self.confusion.get((j, "incorrect"), 0)]
                for j in ("correct", "incorrect", "unparsed")]
        notes = [f"agreement {100 * self.agreement:.1f}% over {self.n} items"
                 + (f", Cohen's kappa {self.kappa:.3f}" if self.kappa is not None else ""),
                 f"{self.unparsed} judge replies had no verdict (counted as disagreement)"]
        if self.only_pred or self.only_human:
            notes.append(f"{self.only_pred} ids only in the predictions, {self.only_human} only in the human labels")
        out = [Table("Judge vs human: confusion (rows: judge, columns: human)",
                     ["judge \\ human", "correct", "incorrect"], rows, notes)]
        if self.by_method:
            out.append(Table("Agreement per scoring path", ["method", "n", "agreement %"],
                             [[m, n, round(100 * a / n, 1) if n else 0.0]
                              for m, (a, n) in sorted(self.by_method.items())]))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "agree": self.agree, "agreement": round(self.agreement, 4), "kappa": self.kappa,
                "unparsed": self.unparsed, "only_pred": self.only_pred, "only_human": self.only_human,
                "confusion": {f"{j}/{h}": c for (j, h), c in sorted(self.confusion.items())},
                "disagreements": self.disagreements,
                "by_method": {m: {"agree": a, "n": n} for m, (a, n) in self.by_method.items()}}

    def __str__(self) -> str:
        lines: list[str] = []
        for t in self.tables():
            lines.append(t.title)
            widths = [max(len(str(x)) for x in col) for col in zip(t.columns, *t.rows, strict=True)]
            for r in [t.columns, *t.rows]:
                lines.append("  " + "  ".join(str(x).rjust(w) for x, w in zip(r, widths, strict=True)))
            lines.extend(f"  {n}" for n in t.notes)
            lines.append("")
        if self.disagreements:
            shown = ", ".join(self.disagreements[:20])
            more = f" (+{len(self.disagreements) - 20} more)" if len(self.disagreements) > 20 else ""
            lines.append(f"disagreements: {shown}{more}")
        return "\n".join(lines).rstrip()


def _kappa(pairs: list[tuple[bool, bool]]) -> float | None:
    n = len(pairs)
    if not n:
        return None
    po = sum(a == b for a, b in pairs) / n
    pj = sum(a for a, _ in pairs) / n
    ph = sum(b for _, b in pairs) / n
    pe = pj * ph + (1 - pj) * (1 - ph)
    return None if pe >= 1 else round((po - pe) / (1 - pe), 4)


def judge_audit(pred_path: str, human_path: str) -> AuditResult:
    """Agreement, Cohen's kappa and the confusion table between judge verdicts and human labels."""
    pred, methods = _read_labels(pred_path, human=False)
    human, _ = _read_labels(human_path, human=True)
    common = [k for k in pred if k in human]
    confusion: Counter[tuple[str, str]] = Counter()
    by_method: dict[str, list[int]] = {}
    agree, unparsed, disagreements, pairs = 0, 0, [], []
    for k in common:
        j, h = pred[k], human[k]
        assert h is not None
        confusion[("unparsed" if j is None else ("correct" if j else "incorrect"),
                   "correct" if h else "incorrect")] += 1
        ok = j is not None and j == h
        agree += ok
        unparsed += j is None
        if j is not None:
            pairs.append((j, h))
        if not ok:
            disagreements.append(k)
        m = by_method.setdefault(methods.get(k) or "(unspecified)", [0, 0])
        m[0] += ok
        m[1] += 1
    return AuditResult(len(common), agree, unparsed, dict(confusion), _kappa(pairs),
                       len(set(pred) - set(human)), len(set(human) - set(pred)), disagreements,
                       {m: (a, n) for m, (a, n) in by_method.items()} if len(by_method) > 1 else {})
