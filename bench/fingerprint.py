"""How long identifying local weights takes: the content fingerprint of a 1 GB and a 15 GB checkpoint folder,
cold (nothing memoised) and memoised (the next run on the same files), sampled (the default) and full.

    python bench/fingerprint.py [--sizes 1,15] [--shards 4] [--generated] [--full]

The folders hold ``config.json``, ``tokenizer.json`` and the weights split in ``--shards`` safetensors files.
By default the weights are sparse files (holes read as zeros: what is measured is the number of reads and the
hashing, not the disk); ``--generated`` writes real pseudo-random bytes instead (disk space needed: the sizes'
sum). The page cache is not dropped (that needs root); the first sampled read of a generated file comes from
the cache it was just written to, so the cold sampled figure is a lower bound on a cold disk, where it is ~64
random reads per file. ``--full`` also times the full hash (every byte).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from reasoneval.models import fingerprint as fpm


def make(folder: Path, gb: float, shards: int, generated: bool) -> None:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "llama", "hidden_size": 4096}')
    (folder / "tokenizer.json").write_text('{"model": {"vocab": {}}}')
    per = int(gb * (1 << 30)) // shards
    for i in range(shards):
        p = folder / f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        with open(p, "wb") as f:
            if generated:
                block = os.urandom(1 << 20)
                for _ in range(per >> 20):
                    f.write(block)
            else:
                f.truncate(per)


def timed(folder: Path, method: str) -> tuple[float, fpm.Fingerprint]:
    t0 = time.perf_counter()
    fp = fpm.fingerprint(folder, method)
    return time.perf_counter() - t0, fp


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,15", help="GB per checkpoint, comma-separated")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--generated", action="store_true", help="real bytes instead of sparse files")
    ap.add_argument("--full", action="store_true", help="also time the full hash")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fpbench-"))
    os.environ["REASONEVAL_CACHE_DIR"] = str(root / "cache")
    try:
        print(f"{'checkpoint':>12} {'method':>8} {'cold s':>8} {'memo s':>8} {'read MiB':>9} {'files':>5}")
        for gb in (float(x) for x in a.sizes.split(",")):
            folder = root / f"ckpt-{gb:g}gb"
            make(folder, gb, a.shards, a.generated)
            for method in ("sampled", *(("full",) if a.full else ())):
                fpm.forget_memo()
                memo = Path(os.environ["REASONEVAL_CACHE_DIR"]) / "fingerprints.json"
                memo.unlink(missing_ok=True)
                cold, fp = timed(folder, method)
                fpm.forget_memo()  # a new process: reads the memo file
                warm, again = timed(folder, method)
                assert again.digest == fp.digest and again.read == 0
                print(f"{gb:>10g}GB {method:>8} {cold:8.3f} {warm:8.4f} {fp.read / (1 << 20):9.1f} {fp.files:>5}")
            shutil.rmtree(folder)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
