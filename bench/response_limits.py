"""Peak memory of `reasoneval run` against responses that never end or expand without bound (issue 23, defect 8).

For each case, starts the fake OpenAI-compatible server with one response fault on every attempt of every 5th
prompt (``gzipbomb``: 1 MB of gzip that expands to ``--bomb-mb`` MiB; ``endless``: an answer that never ends,
as an event stream or a chunked JSON body), runs ``reasoneval run toy`` (50 items, default response limits
unless ``--`` passes others) and prints the CLI's peak RSS (``wait4``), its wall time and the error kinds it
reported, beside a fault-free run:

    python bench/response_limits.py [--bomb-mb 1024] [--cases clean gzipbomb:no-stream endless:stream ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasoneval.testing.procs import FakeServerProc

TESTS = Path(__file__).resolve().parents[1] / "tests" / "core"  # the toy benchmark


def one(case: str, bomb_mb: int, extra: list[str], root: Path) -> str:
    fault, _, path = case.partition(":")
    args = ["--stream", "--bomb-mb", str(bomb_mb)]
    if fault != "clean":
        args += ["--faults", ",".join([fault] * 7), "--fail-every", "5"]  # 7: every attempt of the defaults
    srv = FakeServerProc(*args)
    store = root / f"{case.replace(':', '-')}.db"
    env = {**os.environ, "REASONEVAL_PLUGINS": "toybench",
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "reasoneval.cli", "run", "toy", "--model", f"openai-compat/fake@{srv.url}",
           "--store", str(store), "--no-progress", *(["--no-stream"] if path == "no-stream" else []), *extra]
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        assert p.stderr is not None
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    finally:
        srv.stop()
    kinds = "; ".join(x.strip() for x in err.splitlines() if " x " in x) or "no errors"
    return (f"{case:22s} peak RSS {usage.ru_maxrss / 1024:7.0f} MiB  wall {time.monotonic() - t0:6.1f} s  "
            f"exit {p.returncode}  {kinds}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bomb-mb", type=int, default=1024)
    ap.add_argument("--cases", nargs="+", default=["clean", "gzipbomb:no-stream", "gzipbomb:stream",
                                                   "endless:stream", "endless:no-stream"])
    ap.add_argument("extra", nargs="*", help="after --: more `reasoneval run` arguments (e.g. --max-decoded-mb 16)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for case in a.cases:
            print(one(case, a.bomb_mb, a.extra, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
