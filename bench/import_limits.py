"""Peak memory of ``reasoneval import`` on decompression bombs in an inspect-ai ``.eval`` log (default limits).

Builds the test fixture's log (10 samples) with one more sample member: a deflate member expanding to 2 GiB
(~2 MB compressed) and a Zstandard member expanding to 2 GiB (tens of KB), and runs the import of each as a
subprocess under ``/usr/bin/time -v``; prints the wall time, peak RSS, exit code and the error line. The other
10 samples are imported each time.

    python bench/import_limits.py [--gib 2]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "harness_logs" / "inspect" / "korbench_operation.eval"
ZSTD = 93
MEMBER = "samples/99_epoch_1.json"


def deflate_bomb(out: Path, gib: int) -> None:
    shutil.copy(FIX, out)
    chunk = b" " * (1 << 20)
    with zipfile.ZipFile(out, "a", compression=zipfile.ZIP_DEFLATED) as z, \
            z.open(MEMBER, "w", force_zip64=True) as f:
        for _ in range(gib << 10):
            f.write(chunk)


def zstd_bomb(out: Path, gib: int) -> None:
    import zstandard

    shutil.copy(FIX, out)
    c = zstandard.ZstdCompressor(level=19).compressobj()
    chunk = b" " * (1 << 20)
    data = b"".join([*(c.compress(chunk) for _ in range(gib << 10)), c.flush()])
    with zipfile.ZipFile(out, "a") as z:
        z.writestr(zipfile.ZipInfo(MEMBER), data)
    raw = bytearray(out.read_bytes())
    with zipfile.ZipFile(out) as z:
        local = z.getinfo(MEMBER).header_offset
    i = 0
    while True:  # the member's central directory record
        i = raw.index(b"PK\x01\x02", i)
        n = int.from_bytes(raw[i + 28:i + 30], "little")
        if raw[i + 46:i + 46 + n] == MEMBER.encode():
            break
        i += 4
    for off in (local + 8, i + 10):  # marked Zstandard, as inspect-ai writes its members
        raw[off:off + 2] = ZSTD.to_bytes(2, "little")
    out.write_bytes(bytes(raw))


def measure(log: Path, tmp: Path) -> str:
    store = tmp / f"{log.stem}.db"
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "reasoneval.cli", "import", "korbench", str(log),
                        "--store", str(store)], capture_output=True, text=True, cwd=tmp)
    took = time.monotonic() - t
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    err = next((x for x in p.stderr.splitlines() if x.startswith("error: ")), "")
    ok = next((x for x in p.stdout.splitlines() if "items" in x), "")
    return (f"{log.name} ({log.stat().st_size / 1e6:.2f} MB): exit {p.returncode}, {took:.1f} s, peak RSS "
            f"{int(rss.group(1)) / 1024 if rss else float('nan'):.0f} MiB\n  {err[:200]}\n  {ok}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        plain = tmp / "plain.eval"
        shutil.copy(FIX, plain)
        print(measure(plain, tmp))
        for name, make in (("deflate", deflate_bomb), ("zstd", zstd_bomb)):
            log = tmp / f"{name}-bomb.eval"
            make(log, a.gib)
            print(measure(log, tmp))


if __name__ == "__main__":
    main()
