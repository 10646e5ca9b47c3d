"""Official scoring replays the reference verdicts of crafted answers.

``tests/fixtures/reference_verdicts/<bench>.json`` holds crafted answers (``scripts/crafted_answers.py``) with
the verdicts obtained by RUNNING THE REFERENCE CODE on them (``scripts/reference_sidebyside.py --write``:
KOR-Bench's ``eval_utils.evaluate_responses``, simple-evals' ``MMLUEval``, math-verify 0.9.0 as open-r1's
``math_500`` metric calls it). Here each answer goes through ``rescore`` (official) as a user's file would, and
every verdict must be the reference's; corrected scoring must differ on some (the fixture discriminates).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reasoneval.benchmarks.korbench.rescore import Rescorer
from reasoneval.benchmarks.korbench.score_corrected import policy
from reasoneval.core import registry
from reasoneval.runner.rescore_outside import score_outside

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "reference_verdicts"


def _load(name: str) -> list[dict[str, Any]]:
    doc = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    assert "OBTAINED BY RUNNING THE REFERENCE CODE" in doc["about"]
    return list(doc["cases"])


def _korbench(cases: list[dict[str, Any]], tmp: Path, scoring: str) -> list[dict[str, Any]]:
    where: dict[str, int] = {}
    files: dict[str, list[dict[str, Any]]] = {}
    for i, c in enumerate(cases):
        mode = "mixed" if "question_list" in c else "zero-shot"
        name = f"crafted_{c['category']}_{mode}.jsonl"
        rec = {k: v for k, v in c.items() if k not in ("bench", "category", "reference") and v is not None}
        files.setdefault(name, []).append(rec)
        where[f"{tmp / name}:{len(files[name])}"] = i
    for name, recs in files.items():
        (tmp / name).write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    res = Rescorer(policy(scoring)).run([str(tmp)])
    assert res.errors == []
    out: list[dict[str, Any]] = [{} for _ in cases]
    for s in res.items:
        got: dict[str, Any] = {"correct": s.correct}
        if s.real_life is not None:
            got["real_life"] = s.real_life
        if s.pass_rate is not None:
            got["pass_rate"] = s.pass_rate
        out[where[s.row.where]] = got
    return out


@pytest.mark.timeout(600)
def test_korbench_official_is_the_reference_evaluator(tmp_path: Path) -> None:
    cases = _load("korbench")
    assert len(cases) >= 600
    assert any("<think>" in c["response"] and "</think>" not in c["response"] for c in cases)  # unclosed
    assert any(c.get("finish_reason") == "length" for c in cases) and any("question_list" in c for c in cases)
    (tmp_path / "o").mkdir()
    ours = _korbench(cases, tmp_path / "o", "official")
    wrong = [(c["category"], c["idx"], c["response"][:80], c["reference"], o)
             for c, o in zip(cases, ours, strict=True) if o != c["reference"]]
    assert wrong == []
    (tmp_path / "c").mkdir()
    corrected = _korbench(cases, tmp_path / "c", "corrected")
    assert sum(c["reference"]["correct"] != o["correct"] for c, o in zip(cases, corrected, strict=True)) > 50


def _release_row(c: dict[str, Any]) -> dict[str, Any]:
    keep = {"mmlu": ("question", "choices", "answer", "subject"), "gsm8k": ("question", "answer"),
            "math": ("problem", "solution", "answer", "subject", "level", "unique_id")}[c["bench"]]
    row = {k: c[k] for k in keep}
    row["response"] = c["response"]
    if c.get("finish_reason"):
        row["finish_reason"] = c["finish_reason"]
    return row


def _split(name: str, cases: list[dict[str, Any]], tmp: Path, scoring: str) -> list[bool]:
    bench = registry.create(name)
    bench.configure({"scoring": scoring})
    f = tmp / f"{name}-{scoring}.jsonl"
    f.write_text("".join(json.dumps(_release_row(c)) + "\n" for c in cases), encoding="utf-8")
    got = score_outside(bench, bench.outside_rows([str(f)], {}), {})
    assert got.errors == []
    return [vs[-1].correct for vs in got.verdicts]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", ["mmlu", "gsm8k", "math"])
def test_transfer_official_is_the_reference_code(name: str, tmp_path: Path) -> None:
    cases = _load(name)
    assert len(cases) >= 150
    ours = _split(name, cases, tmp_path, "official")
    wrong = [(c["response"][:80], c.get("finish_reason"), c["reference"]["correct"])
             for c, o in zip(cases, ours, strict=True) if o != c["reference"]["correct"]]
    assert wrong == []
    corrected = _split(name, cases, tmp_path, "corrected")
    assert sum(c["reference"]["correct"] != o for c, o in zip(cases, corrected, strict=True)) > 20
