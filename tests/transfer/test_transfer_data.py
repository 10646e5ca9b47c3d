"""GSM8K, MATH and MMLU load their pinned Hub releases (only the test split's files) through reasoneval.hub,
or a local copy with --data; a bad row is one error naming file, row and field."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from transferdata import GSM8K, MATH500, MMLU

from reasoneval.core import registry
from reasoneval.core.errors import DataError
from reasoneval.hub import release


def _downloaded(hub) -> list[str]:
    return [p for p in hub.paths if "/resolve/" in p and p.startswith("GET")]


def test_gsm8k_from_the_hub_takes_only_main_test(hub_env):
    bench = registry.create("gsm8k")
    items = bench.load("main", "zero-shot-cot")
    assert [it.gold for it in items] == ["7", "2500", "4.5", "-2"]
    assert [it.id for it in items] == ["0", "1", "2", "3"]
    got = _downloaded(hub_env)
    assert any("main/test-00000-of-00001.parquet" in p for p in got)
    assert not any("train" in p or "socratic" in p for p in got), got
    commit = hub_env.repos[GSM8K].refs["main"]
    assert bench.data_version().startswith(f"hf:{GSM8K}@{commit} (revision main); main/test-00000-of-00001.parquet")


def test_math500_items_carry_level_and_subject(hub_env):
    bench = registry.create("math")
    assert bench.subsets() == ["algebra", "counting_and_probability", "geometry", "intermediate_algebra",
                               "number_theory", "prealgebra", "precalculus"]
    algebra = bench.load("algebra", "zero-shot-cot")
    assert [(it.id, it.gold, it.data["_math"]["level"]) for it in algebra] == [("101", "\\frac{3}{4}", 1),
                                                                                ("77", "4", 5)]
    assert bench.load("geometry", "zero-shot-cot") == []
    (pre,) = bench.load("precalculus", "zero-shot-cot")
    assert pre.data["_math"] == {"level": 2, "subject": "Precalculus"}
    assert "Math problem B" in pre.data["problem"]
    assert bench.data_version().startswith(f"hf:{MATH500}@{hub_env.repos[MATH500].refs['main']}")


def test_mmlu_all_test_split_only_and_categories(hub_env):
    bench = registry.create("mmlu")
    assert len(bench.subsets()) == 57
    (q,) = bench.load("abstract_algebra", "zero-shot-cot")
    assert q.gold == "B" and q.data["_mmlu"] == {"subject": "abstract_algebra", "category": "STEM"}
    assert bench.load("philosophy", "zero-shot-cot")[0].data["_mmlu"]["category"] == "Humanities"
    assert bench.load("high_school_macroeconomics", "x")[0].data["_mmlu"]["category"] == "Social Sciences"
    assert bench.load("anatomy", "x")[0].data["_mmlu"]["category"] == "Other"
    got = _downloaded(hub_env)
    assert any("all/test-00000-of-00001.parquet" in p for p in got)
    assert not any("auxiliary_train" in p or "/dev-" in p or "abstract_algebra/" in p for p in got), got
    assert release("mmlu").repo_id == MMLU and release("mmlu").split == "test"


def test_categories_cover_the_57_subjects():
    from reasoneval.benchmarks.mmlu.categories import CATEGORIES, SUBJECTS, category_of

    counts = {c: sum(1 for s in SUBJECTS if category_of(s) == c) for c in CATEGORIES}
    assert len(SUBJECTS) == 57 and counts == {"STEM": 18, "Humanities": 13, "Social Sciences": 12, "Other": 14}


def test_second_load_offline_uses_the_cache(hub_env, monkeypatch):
    registry.create("gsm8k").load("main", "zero-shot-cot")
    hub_env.stop()
    from transferdata import forget

    forget()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert len(registry.create("gsm8k").load("main", "zero-shot-cot")) == 4


@pytest.mark.parametrize(("bench", "row", "message"), [
    ("gsm8k", {"question": "q", "answer": "no marker here"}, "field 'answer': no number after '####'"),
    ("math", {"problem": "p", "answer": "1", "subject": "Alchemy", "level": 1}, "unknown MATH subject 'Alchemy'"),
    ("math", {"problem": "p", "solution": "no box", "subject": "Algebra", "level": 1}, "no \\boxed{} in the solution"),
    ("mmlu", {"question": "q", "subject": "anatomy", "choices": ["a", "b"], "answer": 0}, "must be a list of four"),
    ("mmlu", {"question": "q", "subject": "anatomy", "choices": ["a", "b", "c", "d"], "answer": 7}, "expected 0-3"),
])
def test_bad_local_rows_are_one_clear_error(tmp_path, bench, row, message):
    path = tmp_path / "test.jsonl"
    good = {"gsm8k": {"question": "fine", "answer": "#### 3"},
            "math": {"problem": "fine", "answer": "3", "subject": "Algebra", "level": 2},
            "mmlu": {"question": "fine", "subject": "anatomy", "choices": ["a", "b", "c", "d"], "answer": "C"}}[bench]
    path.write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    b = registry.create(bench, {"data": str(path)})
    with pytest.raises(DataError) as e:
        b.load(b.subsets()[0], "zero-shot-cot")
    assert f"{path}: row 2" in str(e.value) and message in str(e.value) and "\n" not in str(e.value)


def test_local_copy_of_the_full_math_release(tmp_path):
    """EleutherAI/hendrycks_math rows: no 'answer' field, gold = the solution's last box, 'type', 'Level ?'."""
    rows = [{"problem": "p1", "solution": "so \\boxed{5}.", "level": "Level 3", "type": "Number Theory"},
            {"problem": "p2", "solution": "\\boxed{1} then \\boxed{\\dfrac{1}{2}}", "level": "Level ?",
             "type": "Number Theory"}]
    (tmp_path / "number_theory").mkdir()
    (tmp_path / "number_theory" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "number_theory" / "train.jsonl").write_text(json.dumps({**rows[0], "problem": "TRAIN"}) + "\n")
    b = registry.create("math", {"data": str(tmp_path)})
    items = b.load("number_theory", "zero-shot-cot")
    assert [(it.data["problem"], it.gold, it.data["_math"]["level"]) for it in items] == [
        ("p1", "5", 3), ("p2", "\\dfrac{1}{2}", None)]
    assert b.data_version() not in ("unconfigured", "empty")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300)


def test_data_pull_knows_the_plugins_releases(hub_env):
    """A fresh process: `data pull mmlu` finds the release the plugin declares (hub.release imports it)."""
    res = _cli("data", "pull", "mmlu", "--revision", "main")
    assert res.returncode == 0, res.stderr
    assert f"{MMLU} all: {hub_env.repos[MMLU].refs['main']} (main), 1 file(s)" in res.stdout
    bad = _cli("data", "pull", "nosuch")
    assert bad.returncode == 2 and "no Hub release known for 'nosuch'" in bad.stderr


def test_runs_ask_the_hub_for_the_pinned_commits(hub_env, tmp_path):
    """Without -O revision, a run asks for the pinned sha of the real Hub (which the fake Hub does not have)."""
    pins = {"gsm8k": "cc7b047b6e5bb11b4f1af84efc572db110a51b3c", "math": "6e4ed1a2a79af7d8630a6b768ec859cb5af4d3be",
            "mmlu": "c30699e8356da336a370243923dbaf21066bb9fe"}
    for name, sha in pins.items():
        res = _cli("run", name, "--limit", "1", "--model", "openai-compat/x@http://127.0.0.1:9/v1", "--store",
                   str(tmp_path / f"{name}.db"), "--no-progress")
        assert res.returncode == 2 and "Traceback" not in res.stderr
        assert f"revision {sha!r} of" in res.stderr and "does not exist" in res.stderr, res.stderr
