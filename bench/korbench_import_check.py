"""Every imported KOR-Bench item verdict against the release's own evaluation files.

    python bench/korbench_import_check.py RELEASE [--store S]

``RELEASE`` is a checkout of the KOR-Bench repository (``results/0923_main`` and ``eval/results/0923_main``).
Imports ``results/0923_main`` into a fresh store (or uses ``--store``), exports every run and compares each
item's ``verdict.outcome`` with ``is_correct`` of ``eval/results/0923_main/evaluation_<file>.json``. Prints the
import time, the ``rescore`` time of the same folder measured in the same minutes, the store size and the
agreement count.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def sh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("release", type=Path)
    ap.add_argument("--store", type=Path)
    a = ap.parse_args()
    main_dir = a.release / "results" / "0923_main"
    eval_dir = a.release / "eval" / "results" / "0923_main"
    exe = str(Path(sys.executable).with_name("reasoneval"))
    with tempfile.TemporaryDirectory() as tmp:
        store = a.store or Path(tmp) / "import.db"
        t0 = time.perf_counter()
        sh(exe, "rescore", "korbench", str(main_dir))
        t_rescore = time.perf_counter() - t0
        t0 = time.perf_counter()
        sh(exe, "import", "korbench", str(main_dir), "--store", str(store))
        t_import = time.perf_counter() - t0
        runs = json.loads(sh(exe, "runs", "--store", str(store), "--json").stdout)
        agree = differ = missing = 0
        for r in runs:
            out = Path(tmp) / f"{r['run']}.jsonl"
            sh(exe, "export", r["run"], str(out), "--store", str(store))
            ours = {}
            with out.open() as f:
                for line in f:
                    row = json.loads(line)
                    ours[row["item"]] = row["verdict"]["outcome"] == "correct"
            for cat in ("operation", "logic", "cipher", "puzzle", "counterfactual"):
                ev = eval_dir / f"evaluation_{r['model']}_{cat}_{r['mode']}.jsonl.json"
                if not ev.exists():
                    continue
                for rec in json.loads(ev.read_text()):
                    key = f"{cat}/{rec['idx']}"
                    if key not in ours:
                        missing += 1
                    elif ours[key] == (str(rec["is_correct"]) == "True"):
                        agree += 1
                    else:
                        differ += 1
                        print(f"differ: {r['model']} {r['mode']} {key}")
        print(f"runs: {len(runs)}; item verdicts: {agree} agree, {differ} differ, {missing} missing "
              f"(of the release's evaluation files)")
        print(f"import: {t_import:.1f} s; rescore of the same folder: {t_rescore:.1f} s; "
              f"store: {os.path.getsize(store) / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
