"""The release loader: counts and statistics from the paper (Table 1, §3), and clear errors on bad data."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.data import (
    CATEGORIES,
    DATA_DIR,
    MIXED_SETS,
    DataError,
    KorData,
    default_data,
)


def test_counts() -> None:
    d = default_data()
    for c in CATEGORIES:
        assert len(d.rules(c)) == 25
        qs = d.questions(c)
        assert len(qs) == 250
        assert all(int(q.rule_id) == (int(q.idx) - 1) // 10 + 1 for q in qs.values())
        assert all(q.answer.startswith("[[") for q in qs.values())
        assert sum(len(v) for v in d.shots(c).values()) == 75
    assert Counter(q.extra["direction"] for q in d.questions("cipher").values()) == {"Encryption": 125, "Decryption": 125}
    assert all(q.trick for q in d.questions("puzzle").values())
    cf = d.questions("counterfactual").values()
    assert Counter(q.answer for q in cf) == {"[[A]]": 37, "[[B]]": 56, "[[C]]": 106, "[[D]]": 51}
    assert all(q.real_life_answer != q.answer for q in cf)


def test_table1_rule_lengths() -> None:
    d = default_data()
    lengths = [len(r.content) for r in d.rules("operation").values()]
    assert round(sum(lengths) / 25, 2) == 51.32 and max(lengths) == 208
    assert max(len(r.content) for r in d.rules("cipher").values()) == 6454
    assert max(len(r.content) for r in d.rules("counterfactual").values()) == 9472


def test_mixed_and_subquestions() -> None:
    d = default_data()
    sizes = {s: len(d.mixed(s)) for s in MIXED_SETS}
    assert sizes == {"Multi-Q": 1000, "Multi-R": 1000, "Multi-RQ": 1000, "Multi-RQ_Hard": 4000}
    assert Counter(len(m.questions) for m in d.mixed("Multi-Q")) == {n: 100 for n in range(1, 11)}
    assert all(len({c for c, _ in m.rules}) == len(m.rules) for m in d.mixed("Multi-R"))
    subs = d.subquestions
    assert len(subs) == 50 and sum(len(s.steps) for s in subs) == 345
    assert {s.rule_id for s in subs} == {"1", "9", "11", "18", "23"}
    types = Counter(st.type for s in subs for st in s.steps)
    assert types["Substitution"] == 96 and types["Partition"] == 19 and types[None] == 1


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(DATA_DIR, root)
    return root


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    p = root / "logic" / "sample.jsonl"
    lines = p.read_text(encoding="utf-8").split("\n")
    lines[6] = lines[6][:-5]
    p.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=r"logic/sample\.jsonl:7: invalid JSON"):
        KorData(root).questions("logic")


def test_missing_field_and_bad_reference(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    p = root / "cipher" / "rule.jsonl"
    lines = p.read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace('"rule_content"', '"content"')
    p.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=r"cipher/rule\.jsonl:3: missing field 'rule_content'"):
        KorData(root).rules("cipher")
    root = _copy(tmp_path / "second")
    m = root / "mixed" / "Multi-R.jsonl"
    lines = m.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1].replace('"question_list": ["', '"question_list": ["nosuch_')
    m.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=r"Multi-R\.jsonl:2: .*unknown category"):
        KorData(root).mixed("Multi-R")


def test_bad_subquestions(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    p = root / "cipher" / "subquestions.json"
    p.write_text(p.read_text(encoding="utf-8").replace('"steps_details"', '"steps"', 1), encoding="utf-8")
    with pytest.raises(DataError, match=r"subquestions\.json: item 1: malformed steps_details"):
        _ = KorData(root).subquestions


def test_version_is_stable() -> None:
    assert KorData().version() == default_data().version()
