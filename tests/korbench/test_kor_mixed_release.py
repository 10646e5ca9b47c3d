"""Issue 25 point 3: official mixed scoring reproduces the KOR-Bench release's own mixed evaluation files.

The fixture holds 73 records of Qwen2.5-7B-Instruct's three files (``eval/results/0923_mixed`` of the release):
every kind of answer the reference reads (non-string JSON values such as ``[[3]]`` or ``true``, unreadable
answers, golds revised since, plain right and wrong ones). ``scripts/korbench_mixed_release.py CHECKOUT`` runs
the same comparison over all 48 files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.benchmark import KorBench
from reasoneval.benchmarks.korbench.data import default_data
from reasoneval.benchmarks.korbench.mixed import judge_mixed
from reasoneval.benchmarks.korbench.mixed_release import FILE_RE, answer_text, check_file, check_records
from reasoneval.core.errors import DataError
from reasoneval.core.values import Outcome

FIXTURE = Path(__file__).parents[1] / "fixtures" / "korbench" / "mixed_release_sample.json"


def _files() -> dict[str, list[dict[str, object]]]:
    files: dict[str, list[dict[str, object]]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["files"]
    return files


@pytest.mark.parametrize("name", sorted(_files()))
def test_release_records_reproduced(name: str) -> None:
    records = _files()[name]
    m = FILE_RE.match(name)
    assert m is not None
    cell = check_records(m["model"], m["set"], records, default_data(), name)
    assert cell.n == len(records) > 20
    assert cell.differing == []
    assert cell.same and cell.ours.correct == cell.release.correct
    assert cell.ours.pass_rate == pytest.approx(cell.release.pass_rate)
    # the fixture does exercise non-string values, and some of them are right answers upstream
    non_str = [r for r in records if isinstance(r["response"], dict)
               and any(not isinstance(v, str) for v in r["response"].values())]
    assert len(non_str) >= 10 and any(r["pass_rate"] for r in non_str)


def test_non_string_values_are_read_as_python_str() -> None:
    data = default_data()
    q = data.question("cipher", "1")
    inner = q.answer[2:-2]
    # a JSON list [[x]] is the text "[['x']]" for strings, "[[3]]" for numbers: as str() writes them
    assert judge_mixed(json.dumps({"question1": [[inner]]}), [q]).judgements[0].extracted == f"[['{inner}']]"
    ops = [x for x in data.questions("operation").values() if x.answer in ("[[3]]", "[[2]]", "[[4]]", "[[5]]")]
    assert ops, "an operation item with a one-digit gold"
    op = ops[0]
    digit = int(op.answer[2:-2])
    assert judge_mixed(json.dumps({"question1": [[digit]]}), [op]).correct
    assert not judge_mixed(json.dumps({"question1": [[digit + 1]]}), [op]).correct
    assert not judge_mixed(json.dumps({"question1": digit}), [op]).correct  # "3" has no brackets: NULL
    # the benchmark's own scoring path agrees (official is the default)
    b = KorBench()
    item = next(it for it in b.load("Multi-R", "mixed") if it.gold == [op.answer])
    assert b.score(item, json.dumps({"question1": [[digit]]}), "mixed").outcome is Outcome.CORRECT


def test_recorded_golds_and_revisions() -> None:
    records = _files()["evaluation_Qwen2.5-7B-Instruct_mixed_Multi-Q.jsonl.json"]
    data = default_data()
    with_recorded = check_records("Qwen2.5-7B-Instruct", "Multi-Q", records, data)
    with_data = check_records("Qwen2.5-7B-Instruct", "Multi-Q", records, data, recorded_golds=False)
    assert with_recorded.gold_changes == with_data.gold_changes and with_recorded.gold_changes
    assert with_recorded.differing == [] and with_data.differing  # the revised golds flip some verdicts
    assert answer_text("NULL") == "NULL" and answer_text({"a": [1]}) == '{"a": [1]}'


def test_bad_files_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "evaluation_M_mixed_Multi-Q.jsonl.json"
    bad.write_text("{not json")
    with pytest.raises(DataError, match="evaluation_M_mixed_Multi-Q.jsonl.json: cannot read"):
        check_file(bad, default_data())
    odd = tmp_path / "evaluation_M_mixed_Multi-Q.jsonl.json"
    odd.write_text(json.dumps([{"idx": "999999", "response": "NULL", "details": None}]))
    with pytest.raises(DataError, match="record 1: idx '999999'"):
        check_file(odd, default_data())
