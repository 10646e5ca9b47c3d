r"""Every item of the official KOR-Bench raw outputs: our official verdict against the reference evaluator's.

    python bench/korbench_official_release.py OUTPUTS KORBENCH [--sub main,puzzle-trick,cipher-subquestions]

``OUTPUTS`` is a folder of raw-output files (``<model>_<category>_<mode>.jsonl``, as released: the shared copy is
``$REASONEVAL_SHARED/data/korbench-outputs``, whose sub-folders are read); ``KORBENCH`` a checkout of
KOR-Bench/KOR-Bench or its bare git directory (``fetch``), whose ``eval/eval_utils.evaluate_responses`` is
imported and run on each file's records as they are, never copied. Ours: ``rescore korbench`` (official) on the
same files. Prints per sub-folder ``N equal / N total`` (item verdicts, and counterfactual real-life verdicts),
the first differences, and the time each side took. Skips, saying so, when a path is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from reference_sidebyside import chdir, work_tree  # noqa: E402


def reference(eu: Any, path: Path, category: str, mode: str) -> list[dict[str, Any]]:
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]
    with contextlib.redirect_stdout(io.StringIO()):
        return list(eu.evaluate_responses(recs, category, mode))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outputs", type=Path)
    ap.add_argument("korbench", type=Path)
    ap.add_argument("--sub", default="main,puzzle-trick,cipher-subquestions")
    ap.add_argument("--show", type=int, default=5)
    a = ap.parse_args(argv)
    if not a.outputs.is_dir() or not a.korbench.exists():
        print(f"skipped: {a.outputs if not a.outputs.is_dir() else a.korbench} not available")
        return 0
    from reasoneval.benchmarks.korbench.rawfiles import parse_name
    from reasoneval.benchmarks.korbench.rescore import Rescorer

    bad = 0
    with work_tree(a.korbench.resolve(), ["eval", "utils", "config", "data"]) as root:
        sys.path[:0] = [str(root), str(root / "eval")]
        with chdir(root):
            eu = importlib.import_module("eval_utils")
        for sub in a.sub.split(","):
            folder = (a.outputs / sub).resolve()
            if not folder.is_dir():
                print(f"{sub}: skipped (no {folder})")
                continue
            t0 = time.perf_counter()
            ours = Rescorer().run([str(folder)])
            t_ours = time.perf_counter() - t0
            mine = {(str(s.file.path), s.idx, s.row.where): s for s in ours.items}
            by_file: dict[str, list[Any]] = {}
            for s in ours.items:
                by_file.setdefault(str(s.file.path), []).append(s)
            t0 = time.perf_counter()
            n = same = rl_n = rl_same = 0
            shown = 0
            for f in sorted(folder.glob("*.jsonl")):
                rf = parse_name(f)
                with chdir(root):
                    ref = reference(eu, f, rf.category, rf.mode)
                got = by_file.get(str(f.resolve()), by_file.get(str(f), []))
                for r, s in zip(ref, got, strict=True):
                    n += 1
                    ok = bool(r["is_correct"]) == s.correct
                    same += ok
                    if "is_real_life" in r and s.real_life is not None:
                        rl_n += 1
                        rl_same += bool(r["is_real_life"]) == s.real_life
                    if not ok and shown < a.show:
                        shown += 1
                        print(f"  differs: {f.name} idx={r['idx']} reference={r['is_correct']} ours={s.correct}")
            t_ref = time.perf_counter() - t0
            bad += (n - same) + (rl_n - rl_same)
            print(f"{sub}: {same} equal / {n} total item verdicts; real-life {rl_same} equal / {rl_n}; "
                  f"ours {t_ours:.1f} s, reference {t_ref:.1f} s ({len(mine)} rows, {len(ours.errors)} bad)")
    os.environ.pop("PYTHONHASHSEED", None)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
