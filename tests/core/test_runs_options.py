"""Issue 25 point 13: `reasoneval runs` shows each run's options, so official and corrected runs (and limited
runs) are told apart, in text and in --json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reasoneval.benchmarks.korbench.options import KorOptions
from reasoneval.core.values import GenParams
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def _store(path: Path) -> list[str]:
    st = RunStore(path)
    ids = []
    for scoring, limit, mode, seed in (("official", None, "sample", 0), ("corrected", None, "sample", 0),
                                       ("official", 10, "sample", 3), ("official", 10, "first", 0)):
        spec = RunSpec("korbench", "operation", "zero-shot", "m", GenParams(max_tokens=8), limit=limit,
                       options=KorOptions(scoring=scoring), limit_mode=mode, limit_seed=seed)  # type: ignore[arg-type]
        st.upsert_run(spec.run_id(), "korbench", "operation", "zero-shot", "m", spec.record("dv", "pv"))
        ids.append(spec.run_id())
    # a record from an old version: no options at all, a limit without a sample (the first N then)
    old = {"benchmark": "toy", "subset": "a", "mode": "zero-shot", "model": "m", "limit": 3, "options": None}
    st.upsert_run("0ldrun000000", "toy", "a", "zero-shot", "m", old)
    st.close()
    return [*ids, "0ldrun000000"]


def test_runs_json_and_text_show_options(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    ids = _store(db)
    assert len(set(ids)) == 5
    p = _cli("runs", "--json", "--store", str(db), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    runs = {r["run"]: r for r in json.loads(p.stdout)}
    assert [runs[i]["options"]["scoring"] for i in ids[:4]] == ["official", "corrected", "official", "official"]
    assert runs[ids[0]]["limit"] is None
    assert runs[ids[2]]["limit"] == {"n": 10, "mode": "sample", "seed": 3}
    assert runs[ids[3]]["limit"] == {"n": 10, "mode": "first"}
    assert runs[ids[4]]["options"] == {} and runs[ids[4]]["limit"] == {"n": 3, "mode": "first"}
    assert runs[ids[1]]["options"] == {"scoring": "corrected", "data": None}
    t = _cli("runs", "--store", str(db), cwd=tmp_path)
    assert t.returncode == 0, t.stderr
    lines = {i: next(ln for ln in t.stdout.splitlines() if i in ln) for i in ids}
    assert "scoring=official" in lines[ids[0]] and "scoring=corrected" in lines[ids[1]]
    assert "limit=10(sample,seed=3)" in lines[ids[2]] and "limit=10(first)" in lines[ids[3]]
    assert "limit=3(first)" in lines[ids[4]] and "data=" not in t.stdout  # unset values left out
    assert "options" in t.stdout


def test_control_characters_in_stored_options_never_reach_the_terminal(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    st = RunStore(db)
    rec = {"benchmark": "korbench", "subset": "operation", "mode": "zero-shot", "model": "m", "limit": None,
           "options": {"scoring": "official", "data": "/tmp/\x1b[31mred\x07"}}
    st.upsert_run("ctrl00000000", "korbench", "operation", "zero-shot", "m", rec)
    st.close()
    t = _cli("runs", "--store", str(db), cwd=tmp_path)
    assert t.returncode == 0, t.stderr
    assert "\x1b" not in t.stdout and "\x07" not in t.stdout and "?[31mred?" in t.stdout
