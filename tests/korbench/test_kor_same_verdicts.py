"""One response view on every path: the same reasoning-model output gets the same verdict from ``run``,
from ``score`` (re-scoring the stored run) and from ``rescore korbench`` (outside raw-output files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.benchmark import KorBench
from reasoneval.testing.procs import FakeServerProc


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def _outputs(gold: str, k: int) -> str:
    return [f"<think>maybe [[nope]]</think>\nSo: {gold}",  # right after a wrong guess in the reasoning
            f"<think>it is {gold}</think>\nFinal: [[nope]]",  # right only inside the reasoning
            f"<think>working... {gold}",  # never closed: cut off mid-thought
            f"</think>{gold}"][k % 4]  # opening tag in the template


@pytest.mark.timeout(600)
@pytest.mark.parametrize("scoring", ["official", "corrected"])
def test_run_score_and_rescore_agree(tmp_path: Path, scoring: str) -> None:
    b = KorBench()
    items = {c: b.load(c, "zero-shot")[:4] for c in ("cipher", "logic")}
    answers = tmp_path / "answers.jsonl"
    raw = tmp_path / "raw"
    raw.mkdir()
    with answers.open("w") as fh:
        for cat, its in items.items():
            with (raw / f"m_{cat}_zero-shot.jsonl").open("w") as out:
                for k, it in enumerate(its):
                    text = _outputs(it.gold, k)
                    fh.write(json.dumps({"contains": it.data["question"], "response": text}) + "\n")
                    out.write(json.dumps({"idx": it.id, "rule_id": it.data["rule_id"], "answer": it.gold,
                                          "question": it.data["question"], "response": text}) + "\n")
    srv = FakeServerProc("--answers", str(answers))
    db = str(tmp_path / "s.db")
    try:
        r = _cli("run", "korbench:cipher,logic", "--limit", "4", "--limit-mode", "first", "-O", f"scoring={scoring}",
                 "--model", f"openai-compat/m@{srv.url}", "--store", db, "--no-progress", "--json", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    finally:
        srv.stop()
    run_id = json.loads(r.stdout)["runs"][0]["run"]["run_id"]

    def exported() -> dict[tuple[str, str], bool]:
        out = tmp_path / "e.jsonl"
        assert _cli("export", run_id, str(out), "--store", db, cwd=tmp_path).returncode == 0
        rows = [json.loads(x) for x in out.read_text().splitlines()]
        return {tuple(x["item"].split("/", 1)): x["verdict"]["outcome"] == "correct" for x in rows}

    from_run = exported()
    assert _cli("score", run_id, "--store", db, cwd=tmp_path).returncode == 0
    from_score = exported()
    p = _cli("rescore", "korbench", str(raw), "--jsonl", "-O", f"scoring={scoring}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    from_rescore = {(x["category"], x["idx"]): x["correct"] for x in map(json.loads, p.stdout.splitlines())}
    assert len(from_run) == 8
    assert from_run == from_score == from_rescore
    # official reads the raw text as the reference evaluator does (the first [[...]], even inside <think>, and a
    # cut-off output as it is); corrected counts only the answers given after the reasoning
    expected = {"official": [False, True, True, True], "corrected": [True, False, False, True]}[scoring]
    for cat, its in items.items():
        assert [from_run[(cat, it.id)] for it in its] == expected, cat
