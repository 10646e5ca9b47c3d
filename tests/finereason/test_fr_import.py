"""``reasoneval import finereason``: the row files ``rescore`` takes become one run per file and mode (``--name``
is the display name), with ``rescore``'s verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core import registry

runner = CliRunner()


def test_finereason_row_files_import_as_runs_with_rescore_verdicts(tmp_path: Path) -> None:
    bench = registry.get("finereason")
    rows = []
    for it in bench.load("sudoku", "state-checking")[:6]:
        d = it.data
        rows.append({"inputs": d["inputs"], "outputs": d["outputs"],
                     "response": "Answer: (A)"})  # (A) solvable: right on half of them
    f = tmp_path / "sudoku_states_sudoku_state_checking_mymodel.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = tmp_path / "s.db"
    r = runner.invoke(app, ["import", "finereason", str(f), "--store", str(store), "--json"])
    assert r.exit_code == 0, r.output
    (run,) = json.loads(r.stdout)
    assert run["model"] == f.stem and run["mode"] == "state-checking" and run["items"] == 6
    want = [json.loads(x) for x in runner.invoke(app, ["rescore", "finereason", str(f), "--jsonl"]).stdout.split("\n")
            if x]
    out = tmp_path / "e.jsonl"
    assert runner.invoke(app, ["export", run["run"], str(out), "--store", str(store)]).exit_code == 0
    got = [json.loads(x) for x in out.read_text().split("\n") if x]
    assert sorted(g["verdict"]["outcome"] == "correct" for g in got) == sorted(w["correct"] for w in want)
    assert sum(w["correct"] for w in want) not in (0, 6)  # both outcomes occur
    assert all(g["latency_s"] is None for g in got)  # not timed: unknown, not 0.0
    named = runner.invoke(app, ["import", "finereason", str(f), "--store", str(store), "--json", "--name", "m2"])
    (again,) = json.loads(named.stdout)  # --name is the display name: the same files are the same run, renamed
    assert again["run"] == run["run"] and again["existed"] and again["name"] == "m2" and again["model"] == f.stem
    assert json.loads(runner.invoke(app, ["runs", "--store", str(store), "--json"]).stdout)[0]["name"] == "m2"
