r"""Every imported KOR-Bench item verdict against the release's own evaluation files.

    python bench/korbench_import_check.py RELEASE [--store S]

``RELEASE`` is a checkout of the KOR-Bench repository (``results/0923_main``, ``eval/``). Imports
``results/0923_main`` into a fresh store (or uses ``--store``), exports every run and compares each item's
``verdict.outcome`` with (a) ``is_correct`` of the release's ``eval/results/0923_main/evaluation_<file>.json`` and
(b) with ``--official``, the official evaluator itself (``eval/eval_utils.evaluate_responses``, imported from the
checkout and run here, never copied). Prints the import time, the ``rescore`` time of the same folder measured
in the same minutes, the store size and the agreement counts per category.

The release's evaluation files disagree with the official evaluator on 875 Operation items (they were written
where SymPy's LaTeX parser was unavailable: ``9 + \sqrt{6}`` against ``9+\sqrt{6}`` is false there); the
paper's Table 2 agrees with the evaluator run properly, and so do we.
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
    ap.add_argument("--official", action="store_true", help="also run the official evaluator from RELEASE")
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
        by_cat: dict[str, list[int]] = {}
        all_ours: dict[tuple[str, str, str], bool] = {}
        for r in runs:
            out = Path(tmp) / f"{r['run']}.jsonl"
            sh(exe, "export", r["run"], str(out), "--store", str(store))
            ours = {}
            with out.open() as f:
                for line in f:
                    row = json.loads(line)
                    ours[row["item"]] = row["verdict"]["outcome"] == "correct"
                    all_ours[(r["model"], r["mode"], row["item"])] = ours[row["item"]]
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
                        by_cat.setdefault(cat, [0, 0])[0] += 1
                    else:
                        differ += 1
                        by_cat.setdefault(cat, [0, 0])[1] += 1
        print(f"runs: {len(runs)}; item verdicts vs the release's evaluation files: {agree} agree, {differ} differ, "
              f"{missing} missing; per category (agree, differ): {by_cat}")
        if a.official:
            official(a.release, main_dir, all_ours)
        print(f"import: {t_import:.1f} s; rescore of the same folder: {t_rescore:.1f} s; "
              f"store: {os.path.getsize(store) / 1e6:.0f} MB")


def official(release: Path, main_dir: Path, ours: dict[tuple[str, str, str], bool]) -> None:
    """Every record scored by the official evaluator of the checkout, against our stored verdicts."""
    sys.path[:0] = [str(release), str(release / "eval")]
    cwd = os.getcwd()
    os.chdir(release)
    try:
        from eval_utils import evaluate_responses  # type: ignore[import-not-found]  # the checkout's, run as is

        agree = differ = missing = 0
        t0 = time.perf_counter()
        for f in sorted(main_dir.glob("*.jsonl")):
            model, cat, mode = f.stem.rsplit("_", 2)
            data = [json.loads(x) for x in f.read_text(encoding="utf-8").split("\n") if x.strip()]
            for res in evaluate_responses(data, cat, mode):
                k = (model, mode, f"{cat}/{res['idx']}")
                if k not in ours:
                    missing += 1
                elif ours[k] == bool(res["is_correct"]):
                    agree += 1
                else:
                    differ += 1
                    print(f"differs from the official evaluator: {k}")
        print(f"official evaluator: {agree} agree, {differ} differ, {missing} missing "
              f"({time.perf_counter() - t0:.0f} s)")
    finally:
        os.chdir(cwd)


if __name__ == "__main__":
    main()
