"""Re-score the KOR-Bench release's mixed evaluation files with our official scoring, cell by cell.

    python scripts/korbench_mixed_release.py CHECKOUT [--data-golds] [--json]

CHECKOUT is a checkout of github.com/KOR-Bench/KOR-Bench (its ``eval/results/0923_mixed`` folder, 48 files:
16 models x Multi-Q/R/RQ). Each record's answer is the JSON object the reference read from the model's output
(``response``), written back as JSON; it is scored by ``korbench`` official mixed scoring (``mixed.judge_mixed``)
and compared with the release's own ``is_correct`` and ``pass_rate``. Printed per cell: accuracy and pass rate,
ours vs the release, and how many records differ; then how many figures equal the release's summary CSV
(``eval/results_0923_mixed.csv``) when it is there. By default each question is scored against the gold the
file records (5 golds were revised in the release data since); ``--data-golds`` uses the packaged data's golds.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from reasoneval.benchmarks.korbench.data import default_data
from reasoneval.benchmarks.korbench.mixed_release import CellCheck, check_file, mixed_files
from reasoneval.core.errors import DataError


def _against_csv(path: Path, cells: list[CellCheck]) -> str:
    """Our figures beside the release's summary CSV (``eval/results_0923_mixed.csv``), as it prints them."""
    if not path.is_file():
        return ""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = {r["model_name"]: r for r in csv.DictReader(fh)}
    n = same = 0
    for c in cells:
        r = rows.get(c.model)
        if r is None or f"{c.subset}_accuracy" not in r:
            continue
        n += 2
        same += r[f"{c.subset}_accuracy"] == f"{c.ours.accuracy:.2f}%"
        same += r[f"{c.subset}_pass_rate"] == f"{c.ours.pass_rate:.2f}%"
    return f"{same}/{n} figures (accuracy, pass rate) equal to the release's {path.name}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path, help="KOR-Bench checkout (or the 0923_mixed folder itself)")
    ap.add_argument("--data-golds", action="store_true", help="score against the packaged data's golds")
    ap.add_argument("--json", action="store_true", help="one JSON object per cell")
    a = ap.parse_args(argv)
    data = default_data()
    try:
        cells = [check_file(p, data, recorded_golds=not a.data_golds) for p in mixed_files(a.checkout)]
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    same = 0
    if not a.json:
        print(f"{'model':<30} {'set':<9} {'n':>5}  {'acc release':>11} {'acc ours':>8}  "
              f"{'pass release':>12} {'pass ours':>9}  differ")
    for c in cells:
        same += c.same
        rel, ours = c.release, c.ours
        if a.json:
            print(json.dumps({"model": c.model, "set": c.subset, "n": c.n,
                              "accuracy_release": round(rel.accuracy, 2), "accuracy_ours": round(ours.accuracy, 2),
                              "pass_rate_release": round(rel.pass_rate, 2), "pass_rate_ours": round(ours.pass_rate, 2),
                              "differing": c.differing, "gold_changes": sorted(c.gold_changes)}))
        else:
            print(f"{c.model:<30} {c.subset:<9} {c.n:>5}  {rel.accuracy:>11.2f} {ours.accuracy:>8.2f}  "
                  f"{rel.pass_rate:>12.2f} {ours.pass_rate:>9.2f}  {len(c.differing)}")
    csv_note = _against_csv(a.checkout / "eval" / "results_0923_mixed.csv", cells)
    if csv_note:
        print(csv_note, file=sys.stderr if a.json else sys.stdout)
    revised = sorted(set().union(*(c.gold_changes for c in cells)))
    golds = "packaged data's golds" if a.data_golds else "the golds each file records"
    print(f"{same}/{len(cells)} cells reproduced record by record ({golds}); "
          f"{sum(len(c.differing) for c in cells)} of {sum(c.n for c in cells)} records differ; "
          f"golds revised since: {', '.join(revised) or 'none'}", file=sys.stderr if a.json else sys.stdout)
    return 0 if same == len(cells) else 1


if __name__ == "__main__":
    sys.exit(main())
