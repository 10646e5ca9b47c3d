"""A report over several KOR-Bench runs: every run gets its row in the main table, told apart by what differs
(here the scoring option); an Overall over missing categories is shown missing, with why, in every renderer."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from reasoneval.benchmarks.korbench import report as kor
from reasoneval.benchmarks.korbench.selfcorrect import RoundStats
from reasoneval.testing.procs import FakeServerProc

WHY = "n/a (no Counterfactual items)"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "250"}
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300)


def test_two_runs_two_rows_and_overall_missing_in_every_renderer(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    server = FakeServerProc()
    try:
        ids = []
        for extra in ([], ["-O", "scoring=corrected"]):  # a base model's four categories, no Counterfactual
            res = _cli("run", "korbench:operation,logic,cipher,puzzle", "--limit", "1", "--model",
                       f"openai-compat/m@{server.url}", "--store", db, "--no-progress", "--json", *extra)
            assert res.returncode == 0, res.stderr
            ids.append(json.loads(res.stdout)["runs"][0]["run"]["run_id"])
    finally:
        server.stop()
    md, csv_path, page = tmp_path / "r.md", tmp_path / "r.csv", tmp_path / "r.html"
    quiet = _cli("report", *ids, "--store", db, "--md", str(md), "--csv", str(csv_path), "--html", str(page))
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stderr  # file flags write files, print nothing
    text = _cli("report", *ids, "--store", db, "--md", str(md), "--csv", str(csv_path), "--html", str(page), "--print")
    assert text.returncode == 0, text.stderr
    js = _cli("report", *ids, "--store", db, "--json")
    (main,) = [t for t in json.loads(js.stdout)["tables"] if t["title"] == "korbench (zero-shot)"]
    assert main["columns"][:3] == ["model", "scoring", "Overall"]
    # one row per run; typed: the missing Overall is null, its reason in the row's reason column
    assert [r[1:3] for r in main["rows"]] == [["official", None], ["corrected", None]]
    reason = main["columns"].index("n/a reason")
    assert [r[reason] for r in main["rows"]] == ["Overall: no Counterfactual items"] * 2
    assert set(main["runs"]) == set(ids)  # each row's run
    assert "Scoring: official." in main["notes"] and "Scoring: corrected." in main["notes"]
    assert text.stdout.count(WHY) == 2 and "official" in text.stdout and "corrected" in text.stdout
    mdt = md.read_text(encoding="utf-8")
    assert mdt.count(f"| {WHY} |") == 2
    rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert rows[0][:3] == ["model", "scoring", "Overall"] and [r[1:3] for r in rows[1:]] == \
        [["official", ""], ["corrected", ""]]
    assert [r[rows[0].index("n/a reason")] for r in rows[1:]] == ["Overall: no Counterfactual items"] * 2
    doc = page.read_text(encoding="utf-8")
    assert doc.count(WHY) >= 2 and "(corrected)" in doc  # the HTML labels tell the runs apart


def test_overall_needs_every_category_of_the_mode() -> None:
    full = {c: kor.Tally(correct=1, total=4) for c in ("operation", "logic", "cipher", "puzzle", "counterfactual")}
    assert kor.table2_row(full)[0] == "25.00"
    four = {c: t for c, t in full.items() if c != "counterfactual"}
    assert kor.table2_row(four)[0] == WHY  # was 25.00 over the four (Llama-3-70B: 22.50 vs the paper's 35.20)
    assert kor.table2_row({"puzzle": full["puzzle"]}, "trick")[0] == "25.00"  # trick applies to Puzzle only
    t3 = kor.table3_row({"Multi-Q": kor.Tally(1, 2), "Multi-R": kor.Tally(1, 2)})[0]
    assert t3[0] == "n/a (no Multi-RQ items)"


def test_self_correction_overall_row() -> None:
    def stats(cats: tuple[str, ...]) -> dict[str, RoundStats]:
        out = {}
        for c in cats:
            st = RoundStats()
            st.add([False, True])
            out[c] = st
        return out

    t = kor.self_correction_table([((), stats(("operation", "logic", "cipher", "puzzle")))])
    overall = t.rows[-1]
    assert overall[:2] == ["overall", 4] and set(overall[2:]) == {WHY}
    t = kor.self_correction_table([((), stats(("operation", "logic", "cipher", "puzzle", "counterfactual")))])
    assert t.rows[-1][:4] == ["overall", 5, "0.00", "100.00"]
