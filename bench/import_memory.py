"""Time, peak memory and store size of `reasoneval import korbench` of a whole release, through the CLI.

    python bench/import_memory.py [RELEASE_DIR] [--models 62] [--src DIR] [--repeat 1]

``RELEASE_DIR``: a folder of KOR-Bench raw-output files (``results/0923_main`` of the release). Without it, a
release-sized folder is made from the raw outputs shipped in /work/shared/data/korbench-outputs/main (5 models'
files, 1,250 items per model and mode): ``--models`` copies of them under distinct model names (symbolic links),
62 by default, as many runs as the release's 62 models (77,500 completions; the release has 76,500).

Each import runs under ``/usr/bin/time -v`` in a fresh store with an empty ``REASONEVAL_CACHE_DIR``; printed:
wall seconds, CPU seconds (user+sys of the process tree, the SymPy sandbox included), peak RSS (MB), the store's
size (MB) and its completions. ``--src DIR``: the CLI from another source tree (before/after in the same minutes).

2026-12-03 (issue 38), 62 models, interleaved with the tree before (load 3-4.5 from other sessions, so the
wall times swing 15-30 s for the same code): before 29.1 / 23.2 / 15.1 s, 21.4 / 21.7 / 15.8 s CPU, 106-108 MB;
after 25.4 / 19.7 / 21.2 s, 20.9 / 19.6 / 18.7 s CPU, 225 MB; store 195 MB both. What changed: the import no
longer stops at each chunk until its SymPy verdicts are done (8 chunks started ahead; ~4-5 s of waiting at
this load, now ~1.5 s), the sandbox is started before the CLI's imports (as for rescore), the cyclic GC (which
walked every held row at each chunk, 1.5 s of a 45 s profile) is paused, lines are read through a 1 MiB
buffer. Where the rest goes (main process ~11 s CPU at this load): reading and JSON-decoding 650 MB ~3 s,
judging ~2.4 s, building the store rows ~2.9 s, staging and copying in SQLite ~4 s, hashing the files ~1 s.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

SHIPPED = Path("/work/shared/data/korbench-outputs/main")


def make_release(dst: Path, models: int) -> int:
    """``models`` runs' files as links to the shipped raw outputs, each set under its own model name."""
    files = sorted(SHIPPED.glob("*.jsonl"))
    sets: dict[str, list[Path]] = {}
    for f in files:
        model, _, rest = f.stem.rpartition("_")  # <model>_<subset>_<mode>
        model = model.rpartition("_")[0]
        sets.setdefault(model, []).append(f)
    bases = sorted(sets)
    for k in range(models):
        base = bases[k % len(bases)]
        for f in sets[base]:
            (dst / f"m{k:02d}-{f.name}").symlink_to(f)
    return len(list(dst.iterdir()))


def one(release: Path, src: str | None) -> tuple[float, float, float, float, int]:
    with tempfile.TemporaryDirectory() as td:
        root = Path(td)
        env = {**os.environ, "REASONEVAL_CACHE_DIR": str(root / "cache"), "HOME": str(root)}
        env.pop("REASONEVAL_STORE", None)
        if src:
            env["PYTHONPATH"] = src
        store = root / "s.db"
        p = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "reasoneval", "import", "korbench",
                            str(release), "--store", str(store)], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"import failed: {p.stderr[-2000:]}")
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024  # type: ignore[union-attr]
        m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
        assert m is not None
        wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
        cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", p.stderr).group(1))  # type: ignore[union-attr]
                  for k in ("User", "System"))
        size = sum(f.stat().st_size for f in root.glob("s.db*")) / 1e6
        with sqlite3.connect(store) as db:
            n = db.execute("SELECT COUNT(*) FROM completions").fetchone()[0]
        return wall, cpu, rss, size, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("release", nargs="?", type=Path)
    ap.add_argument("--models", type=int, default=62)
    ap.add_argument("--src", default=None)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as td:
        release = a.release
        if release is None:
            release = Path(td)
            n = make_release(release, a.models)
            print(f"release: {n} files ({a.models} model sets linked from {SHIPPED})")
        print(f"source: {a.src or 'this checkout'}; load average {os.getloadavg()[0]:.2f}")
        for _ in range(a.repeat):
            wall, cpu, rss, size, n = one(release, a.src)
            print(f"import: {wall:.1f} s wall, {cpu:.1f} s CPU (user+sys, sandbox included), peak RSS {rss:.0f} MB, store {size:.0f} MB, {n:,} completions",
                  flush=True)


if __name__ == "__main__":
    main()
