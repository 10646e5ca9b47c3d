"""Benchmark: re-score the 30 official KOR-Bench raw-output files (7,500 items) in official mode.

    python bench/korbench_rescore.py [--outputs DIR] [--repeat N] [--json]

Each measurement runs in a fresh child process (its own sandbox fork server, empty in-memory caches):

* cold: an empty on-disk LaTeX equivalence cache (every distinct SymPy string is parsed and simplified);
* warm (disk): a fresh process whose on-disk cache is populated;
* warm (memory): a second pass inside the warm process (everything cached in memory).

Timings cover ``Rescorer.run`` (reading + parsing the JSONL files, judging, SymPy in the sandbox pool, worker
start-up) and report items/s; every run's verdicts are hashed and must be identical. Targets: >= 1,700
items/s cold and >= 20,000 items/s warm on 2 cores (the reference evaluator manages ~560 items/s).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _default_outputs() -> Path:
    env = os.environ.get("REASONEVAL_SHARED")
    base = Path(env) if env else REPO.parent / "shared"
    return base / "data" / "korbench-outputs" / "main"


def child(outputs: str, passes: int) -> None:
    sys.path.insert(0, str(REPO / "src"))
    from reasoneval.benchmarks.korbench.rescore import Rescorer
    from reasoneval.scoring.latexcmp import LatexCanonicalizer

    lc = LatexCanonicalizer()  # cache dir from REASONEVAL_CACHE_DIR
    runs = []
    for _ in range(passes):
        t = time.perf_counter()
        res = Rescorer(lc=lc).run([outputs])
        dt = time.perf_counter() - t
        digest = hashlib.sha256(
            "".join(f"{s.file.path.name}:{s.idx}:{int(s.correct)}:{s.real_life}\n" for s in res.items).encode()
        ).hexdigest()[:16]
        runs.append({"seconds": dt, "items": len(res.items), "errors": len(res.errors), "verdicts": digest,
                     "computed": res.latex_stats.get("computed", 0), "disk_hits": res.latex_stats.get("disk_hits", 0),
                     "latex_failures": len(res.latex_failures)})
    lc.close()
    print(json.dumps(runs))


def run_child(outputs: Path, cache: Path, passes: int) -> list[dict[str, float]]:
    env = dict(os.environ, REASONEVAL_CACHE_DIR=str(cache))
    cmd = [sys.executable, __file__, "--child", "--outputs", str(outputs), "--passes", str(passes)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--outputs", default=str(_default_outputs()))
    ap.add_argument("--repeat", type=int, default=3, help="cold/warm measurements (best is reported)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.outputs, a.passes)
        return 0
    outputs = Path(a.outputs)
    if not outputs.is_dir():
        print(f"no raw outputs at {outputs}", file=sys.stderr)
        return 2
    cold, warm_disk, warm_mem = [], [], []
    for _ in range(a.repeat):
        with tempfile.TemporaryDirectory() as d:
            cold.append(run_child(outputs, Path(d), 1)[0])
            w = run_child(outputs, Path(d), 3)
            warm_disk.append(w[0])
            warm_mem += w[1:]
    digests = {r["verdicts"] for r in cold + warm_disk + warm_mem}
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in
            (("cold", cold), ("warm (disk cache, fresh process)", warm_disk), ("warm (in-memory cache)", warm_mem))}
    summary = {
        "items": cold[0]["items"], "cpu_count": os.cpu_count(), "identical_verdicts": len(digests) == 1,
        "sympy_strings_computed_cold": cold[0]["computed"], "latex_failures": cold[0]["latex_failures"],
        "load_average": os.getloadavg(),
        "runs": {k: {"best_seconds": round(r["seconds"], 3), "items_per_s": round(r["items"] / r["seconds"]),
                     "all_seconds": [round(x["seconds"], 3) for x in v]}
                 for (k, r), v in zip(best.items(), (cold, warm_disk, warm_mem), strict=True)},
    }
    if a.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"KOR-Bench official re-scoring of {summary['items']} items ({outputs}), {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.2f}")
        for k, r in summary["runs"].items():
            print(f"  {k:36s} {r['best_seconds']:7.3f} s  {r['items_per_s']:>8,} items/s   (runs: {r['all_seconds']})")
        print(f"  SymPy strings parsed+simplified cold: {summary['sympy_strings_computed_cold']}; "
              f"LaTeX failures (string fallback): {summary['latex_failures']}; "
              f"identical verdicts across runs: {summary['identical_verdicts']}")
    return 0 if summary["identical_verdicts"] else 1


if __name__ == "__main__":
    sys.exit(main())
