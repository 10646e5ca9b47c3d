"""KOR-Bench's LLM verification as the difficulty step: KOR-format rows run with `korbench:<category>` by two
models through the runner (fake server); items every model solves and items none solves are dropped."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.builder.rows import read_rows

SUFFIX = "\nPlease ensure the answer is a single number and wrap it in double square brackets, like this: [[your answer]]."
ROWS = [("1", "Compute 4※7.", "[[24]]"), ("2", "Compute 25※5※14.", "[[4]]"), ("3", "Compute 9※3.", "[[5]]")]


def test_kor_rows_verified_by_two_models(tmp_path: Path, scripted_server) -> None:
    # "easy" right on 1, 2; "weak" right on 1 only: item 1 all solve (too easy), 3 none (too hard), 2 kept
    easy = scripted_server([("4※7", "[[24]]"), ("25※5※14", "[[4]]"), ("9※3", "[[7]]")])
    weak = scripted_server([("4※7", "[[24]]"), ("25※5※14", "[[3]]"), ("9※3", "[[8]]")])
    inp = tmp_path / "new-operation.jsonl"
    inp.write_text("".join(json.dumps({"idx": i, "question": q + SUFFIX, "answer": a, "rule_id": "1",
                                       "subset": "operation"}) + "\n" for i, q, a in ROWS), encoding="utf-8")
    out, rep = tmp_path / "verified.jsonl", tmp_path / "rep.json"
    r = CliRunner().invoke(cli.app, [
        "build", "difficulty", str(inp), str(out), "--target", "korbench:operation",
        "--model", f"openai-compat/easy@{easy.url}", "--model", f"openai-compat/weak@{weak.url}",
        "--min-pass", "0.01", "--max-pass", "0.99", "--store", str(tmp_path / "s.db"), "--report", str(rep)],
        catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert [x["idx"] for x in read_rows(out)] == ["2"]
    report = json.loads(rep.read_text())
    assert report["report"]["pass_rates"] == {"1": 1.0, "2": 0.5, "3": 0.0}
    assert report["report"]["dropped_ids"]["too_easy"] == ["1"] and report["report"]["dropped_ids"]["too_hard"] == ["3"]
    assert [run["model"].split("@")[0] for run in report["runs"]] == ["openai-compat/easy", "openai-compat/weak"]
