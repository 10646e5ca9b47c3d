"""A 62-run KOR-Bench store of the release's shape, for the report's speed and output checks (issue 34).

    python bench/report_store62.py OUT.db [--source /work/shared/data/korbench-outputs/main]

Imports the release's raw outputs (``reasoneval import korbench <release>/results/...``: here the shared copy's
six runs, four chat models zero-shot and two base models three-shot) into a scratch store, then writes 62 runs
into OUT.db: one per model of the paper's Table 2 (38 chat zero-shot, 24 base three-shot), each a copy of an
imported run of its protocol with a seeded share of verdicts flipped (so the numbers differ), where:

* one chat run is ``gpt-4o-2024-08-06`` (a dated snapshot the paper does not report: it must say "not in paper",
  never be compared with GPT-4o-2024-05-13);
* ``Meta-Llama-3-70B`` has no Counterfactual items (an incomplete run: not ranked among complete ones).

Prints the run ids (one per line) to standard output; keep OUT.db outside the repository (e.g. /tmp).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from reasoneval.benchmarks.korbench import paper_numbers as pn

SOURCE = Path("/work/shared/data/korbench-outputs/main")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--source", type=Path, default=SOURCE)
    a = ap.parse_args()
    if a.out.exists():
        a.out.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        subprocess.run([sys.executable, "-m", "reasoneval", "import", "korbench", str(a.source), "--store",
                        str(base)], check=True, stdout=subprocess.DEVNULL)
        build(base, a.out)


def build(base: Path, out: Path) -> None:
    src = sqlite3.connect(base)
    runs = src.execute("SELECT run_id, created, updated, benchmark, subset, mode, model, spec_json, status "
                       "FROM runs ORDER BY model").fetchall()
    by_mode: dict[str, list[tuple]] = {}
    for r in runs:
        by_mode.setdefault(r[5], []).append(r)
    src.close()
    # the store's own schema: copy the file, then empty it
    out.write_bytes(base.read_bytes())
    db = sqlite3.connect(out)
    for t in ("runs", "completions", "verdicts", "items"):
        db.execute(f"DELETE FROM {t}")
    db.execute("ATTACH DATABASE ? AS src", (str(base),))
    chat = [n if n != "GPT-4o-2024-05-13" else "gpt-4o-2024-08-06" for n in pn.KORBENCH_TABLE2_CHAT]
    plan = [(n, "zero-shot") for n in chat] + [(n, "three-shot") for n in pn.KORBENCH_TABLE2_BASE]
    rng = random.Random(34)
    for k, (model, mode) in enumerate(plan):
        pick = by_mode[mode][k % len(by_mode[mode])]
        run_id = f"r{k:02d}{rng.getrandbits(40):010x}"
        spec = json.loads(pick[7])
        spec["model"] = model
        spec.pop("origin", None)
        db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
                   (run_id, pick[1] + k, pick[2] + k, pick[3], pick[4], mode, model, json.dumps(spec), pick[8]))
        skip = "counterfactual" if model == "Meta-Llama-3-70B" else ""
        cols = ("item_key, sample, turn, role, subset, prompt_json, cache_key, text, finish_reason, prompt_tokens, "
                "completion_tokens, latency_s, error, created, reasoning, reasoning_tokens, ttft_s, prompt_hash")
        db.execute(f"INSERT INTO completions SELECT ?, {cols} FROM src.completions WHERE run_id=? AND subset!=?",
                   (run_id, pick[0], skip))
        db.execute("INSERT INTO items SELECT ?, item_key, item_json FROM src.items WHERE run_id=?", (run_id, pick[0]))
        flip = rng.uniform(0.02, 0.25)
        rows = db.execute("SELECT v.item_key, v.sample, v.turn, v.scorer, v.outcome, v.extracted, v.method, "
                          "v.detail_json, v.created FROM src.verdicts v JOIN src.completions c ON c.run_id=v.run_id "
                          "AND c.item_key=v.item_key AND c.sample=v.sample AND c.turn=v.turn "
                          "WHERE v.run_id=? AND c.subset!=?", (pick[0], skip)).fetchall()
        new = []
        for key, sample, turn, scorer, outcome, extracted, method, detail, created in rows:
            if outcome in ("correct", "incorrect") and rng.random() < flip:
                outcome = "incorrect" if outcome == "correct" else "correct"
            new.append((run_id, key, sample, turn, scorer, outcome, extracted, method, detail, created))
        db.executemany("INSERT INTO verdicts VALUES (?,?,?,?,?,?,?,?,?,?)", new)
        print(run_id)
    db.commit()
    db.execute("DETACH DATABASE src")
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main()
