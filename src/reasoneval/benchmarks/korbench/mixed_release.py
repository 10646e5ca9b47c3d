"""The KOR-Bench release's mixed evaluation files
(``eval/results/0923_mixed/evaluation_<model>_mixed_<set>.jsonl.json``) re-scored by our official mixed
scoring, record by record.

Each record holds what the reference's ``extract_json`` read from the model's answer (``response``: the JSON
object, or ``"NULL"`` when none could be read) and its verdict (``is_correct``, ``pass_rate``, per-question
``details``). The raw answers are not in the release checkout (large files), so the answer we score is that
object written back as JSON: ``json.loads`` of it gives the same values in the same order, and ``"NULL"`` has
no ``{`` so it is unreadable as before.

The release's data was revised after these files were made: 5 golds (e.g. ``counterfactual_119``, ``[[D]]``
then, ``[[C]]`` now) differ from the ``answer`` each record's ``details`` lists. With ``recorded_golds``
(the default) each question is scored against the gold the file records, so what is compared is the scoring
alone; without it, against this data's golds (the differences are then those gold revisions).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from reasoneval.core.errors import DataError

from .data import MIXED_SETS, KorData, Question
from .mixed import judge_mixed
from .report import Tally
from .score_official import OFFICIAL, finish

FILE_RE = re.compile(
    r"^evaluation_(?P<model>[A-Za-z0-9._+-]+)_mixed_(?P<set>Multi-RQ|Multi-R|Multi-Q)\.jsonl\.json$")


def answer_text(response: object) -> str:
    """The answer to score for a release record's ``response`` field."""
    if isinstance(response, dict):
        return json.dumps(response, ensure_ascii=False)
    return "NULL"


@dataclass
class CellCheck:
    """One (model, mixed set) cell: the release's tally and ours over the same records (the mixed table's
    :class:`.report.Tally`: accuracy and pass rate)."""

    model: str
    subset: str
    release: Tally = field(default_factory=Tally)
    ours: Tally = field(default_factory=Tally)
    differing: list[str] = field(default_factory=list)  # record idx whose verdict or pass rate differs
    gold_changes: set[str] = field(default_factory=set)  # "category_idx" whose recorded gold is not this data's

    @property
    def n(self) -> int:
        return self.release.total

    @property
    def same(self) -> bool:
        """Every record and so both figures reproduced."""
        return not self.differing and self.ours.correct == self.release.correct \
            and abs(self.ours.pass_sum - self.release.pass_sum) < 1e-6


def _recorded_golds(qs: list[Question], rec: Mapping[str, Any], where: str, cell: CellCheck,
                    use: bool) -> list[Question]:
    details = rec.get("details") or []
    out = list(qs)
    for k, (q, det) in enumerate(zip(qs, details, strict=False)):
        name = f"{q.category}_{q.idx}"
        if not isinstance(det, Mapping) or det.get("question") != name or not isinstance(det.get("answer"), str):
            raise DataError(f"{where}: idx {rec.get('idx')!r}: details[{k}] is not question {name}")
        if det["answer"] != q.answer:
            cell.gold_changes.add(name)
            if use:
                out[k] = replace(q, answer=det["answer"])
    return out


def check_records(model: str, subset: str, records: Iterable[Mapping[str, Any]], data: KorData,
                  where: str = "", recorded_golds: bool = True) -> CellCheck:
    """Score each release record with our official mixed scoring and compare with the release's verdict."""
    if subset not in MIXED_SETS:
        raise DataError(f"{where or model}: unknown mixed set {subset!r}")
    items = {m.idx: m for m in data.mixed(subset)}
    cell = CellCheck(model, subset)
    for k, rec in enumerate(records, 1):
        idx = str(rec.get("idx"))
        if idx not in items:
            raise DataError(f"{where}: record {k}: idx {idx!r} is not a {subset} item of this data")
        qs = _recorded_golds([data.question(c, i) for c, i in items[idx].questions], rec,
                             f"{where}: record {k}", cell, recorded_golds)
        ms = judge_mixed(answer_text(rec.get("response")), qs, OFFICIAL)
        js = [finish(j) for j in ms.judgements]
        n_ok = sum(bool(j.correct) for j in js)
        ours_pass = n_ok / len(qs) if qs else 0.0
        ours_ok = ms.parsed and n_ok == len(qs)
        rel_ok, rel_pass = bool(rec.get("is_correct")), float(rec.get("pass_rate") or 0.0)
        cell.release.add(rel_ok, pass_rate=rel_pass)
        cell.ours.add(ours_ok, pass_rate=ours_pass)
        if ours_ok != rel_ok or abs(ours_pass - rel_pass) > 1e-9:
            cell.differing.append(idx)
    return cell


def check_file(path: Path, data: KorData, recorded_golds: bool = True) -> CellCheck:
    m = FILE_RE.match(path.name)
    if m is None:
        raise DataError(f"{path}: not a mixed evaluation file (evaluation_<model>_mixed_<set>.jsonl.json)")
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DataError(f"{path}: cannot read: {e}") from None
    if not isinstance(records, list):
        raise DataError(f"{path}: expected a JSON list of records")
    return check_records(m["model"], m["set"], records, data, str(path), recorded_golds)


def mixed_files(checkout: Path) -> list[Path]:
    """The release's mixed evaluation files under a KOR-Bench checkout (or the folder itself)."""
    for folder in (checkout / "eval" / "results" / "0923_mixed", checkout):
        files = sorted(p for p in folder.glob("evaluation_*_mixed_*.jsonl.json") if FILE_RE.match(p.name))
        if files:
            return files
    raise DataError(f"{checkout}: no eval/results/0923_mixed/evaluation_*_mixed_*.jsonl.json files")
