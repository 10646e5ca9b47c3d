"""A General365 fixture through the embedded model as both answerer and judge, then the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")
FIXTURE = Path(__file__).parent.parent / "fixtures" / "general365" / "e2e.jsonl"


@pytest.mark.timeout(1200)
def test_embedded_answerer_and_judge_end_to_end(tmp_path: Path) -> None:
    from reasoneval.models.base import ModelError
    from reasoneval.models.llamacpp import default_gguf

    try:
        default_gguf()
    except ModelError as e:
        pytest.skip(str(e))
    db = tmp_path / "g.db"
    cmd = [sys.executable, "-m", "reasoneval.cli", "run", "general365", "--data", str(FIXTURE),
           "--model", "llamacpp/default", "--judge", "llamacpp/default", "--max-tokens", "48",
           "--store", str(db), "--no-progress", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1100)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    n_items = sum(1 for line in FIXTURE.read_text().splitlines() if line.strip())
    assert rep["runs"][0]["stats"]["items"] == n_items
    titles = " | ".join(t["title"] for t in rep["tables"])
    rows = [r for t in rep["tables"] for r in t["rows"]]
    assert any("overall" in str(c).lower() for r in rows for c in r), titles
    assert any("categor" in t["title"].lower() or "categor" in " ".join(t["columns"]).lower()
               for t in rep["tables"]), titles
    # the judge really ran on the embedded model for the select/text items, and its calls were stored
    import sqlite3

    con = sqlite3.connect(db)
    judged = con.execute("SELECT COUNT(*) FROM completions WHERE role='judge' AND error IS NULL").fetchone()[0]
    non_numeric = sum(1 for line in FIXTURE.read_text().splitlines()
                      if line.strip() and json.loads(line)["answer_type"] not in ("number", "interval"))
    assert non_numeric > 0
    # every non-numeric item whose answer was extractable went to the judge
    methods = dict(con.execute("SELECT method, COUNT(*) FROM verdicts GROUP BY method").fetchall())
    assert judged == sum(v for k, v in methods.items() if k.startswith("judge") and k != "judge-missing")
    assert "judge-missing" not in methods
    # re-running is free: everything (answers and judge calls) comes from the store
    p2 = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p2.returncode == 0 and "0 generated" in p2.stderr, p2.stderr
