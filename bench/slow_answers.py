"""Legitimately slow answers are never wasted (issue 36): 5% of the answers take ``--slow-s`` seconds, 250
KOR-Bench items, default settings, against the run with hedging and abandonment off.

    python bench/slow_answers.py [--slow-s 60] [--kinds trickle,slowplain,silentfast] [--delay 0.5] [--limit 50]
                                 [--client-src /other/checkout/src]

Each kind is run twice as ``reasoneval run korbench --limit L`` (a subprocess, fresh store; 5 x L items): with
the default settings (adaptive hedging and abandonment, the 5% cap on extra requests) and with
``--hedge-after 0 --abandon-after 0`` (off). The fake server streams; ``--fault-rate 0.05 --faults KIND`` makes 5%
of the prompts slow on every attempt:

* ``trickle``: the answer streams from second 0 (a piece every ``--trickle-gap`` s) and ends after ``--slow-s``;
* ``slowplain``: a plain body after ``--slow-s`` (nothing before it);
* ``silentfast``: nothing at all for 3/4 of ``--slow-s``, then the answer at once.

Printed per kind and setting: wall time, the requests the server received for the slow prompts (per slow item),
the slow answers cut off mid-stream (trickle), all requests, and the run's own requests line. The pass marks
(the issue's acceptance): for ``trickle``, requests per slow item <= 2 and the wall time within 1.2x of the run
with hedging off. ``--slow-s 60`` is the real figure (~2.5 min per kind); ``--slow-s 10`` a quick one.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from faultbench import audit, cli_run  # bench/faultbench.py

from reasoneval.testing.procs import FakeServerProc


@dataclass
class Run:
    seconds: float
    slow_items: int
    slow_requests: int
    requests: int
    cut: int  # trickling answers cut off mid-stream (started, not finished)
    lost: int
    duplicated: int
    errors: int
    line: str  # the run's own "requests: ..." line

    @property
    def per_slow(self) -> float:
        return self.slow_requests / self.slow_items if self.slow_items else 0.0


def one(a: argparse.Namespace, kind: str, off: bool) -> Run:
    srv = FakeServerProc("--delay", str(a.delay), "--stream", "--fault-rate", str(a.rate), "--faults", kind,
                         "--slow-s", str(a.slow_s), "--trickle-gap", str(a.trickle_gap))
    flags = ("--hedge-after", "0", "--abandon-after", "0") if off else ()
    try:
        with tempfile.TemporaryDirectory() as td:
            dt, finished, stderr = cli_run(srv.url, a.limit, Path(td), a.client_src, a.cap, flags)
            st = srv.stats()
            stored, dup, errors, _ = audit(Path(td) / "s.db", 5 * a.limit)
    finally:
        srv.stop()
    if not finished:
        raise SystemExit(f"{kind}: the run did not finish within --cap {a.cap:g}s")
    line = next((ln for ln in stderr.splitlines() if ln.startswith("requests: ")), "(no requests line)")
    return Run(dt, st.get(f"{kind}_prompts", 0), st.get(kind, 0), st.get("requests", 0),
               st.get("trickle_started", 0) - st.get("trickle_finished", 0), 5 * a.limit - stored, dup, errors, line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--slow-s", type=float, default=60.0, help="how long a slow answer takes")
    ap.add_argument("--trickle-gap", type=float, default=0.5, help="seconds between a trickling answer's pieces")
    ap.add_argument("--kinds", default="trickle,slowplain,silentfast")
    ap.add_argument("--rate", type=float, default=0.05, help="share of the prompts that are slow")
    ap.add_argument("--delay", type=float, default=0.5, help="the other answers' time, s")
    ap.add_argument("--limit", type=int, default=50, help="items per KOR-Bench subset (5 subsets)")
    ap.add_argument("--cap", type=float, default=900.0, help="stop a run after this many seconds")
    ap.add_argument("--client-src", default="", help="PYTHONPATH of the CLI under test (default: this checkout; "
                    "another checkout's src for a before/after figure, the fake server staying this one's)")
    a = ap.parse_args()
    print(f"reasoneval run korbench --limit {a.limit} ({5 * a.limit} items), fake server delay {a.delay}s streaming, "
          f"{a.rate:.0%} of prompts slow for {a.slow_s:g}s; client: {a.client_src or 'this checkout'}; "
          f"{os.cpu_count()} CPUs")
    ok = True
    for kind in a.kinds.split(","):
        on, off = one(a, kind, False), one(a, kind, True)
        for name, r in (("default", on), ("hedging off", off)):
            print(f"  {kind:10s} {name:11s}: {r.seconds:6.1f}s, {r.slow_requests} requests for {r.slow_items} slow "
                  f"items ({r.per_slow:.2f} per slow item), {r.requests} requests in all, {r.cut} slow answers cut "
                  f"off mid-stream; {r.lost} lost, {r.duplicated} duplicated, {r.errors} errors")
            print(f"  {'':10s} {'':11s}  {r.line}")
        ratio = on.seconds / off.seconds
        fits = on.per_slow <= 2 and ratio <= 1.2 and on.lost == on.duplicated == 0
        print(f"  {kind:10s} default / off: {ratio:.2f}x the wall time; requests per slow item {on.per_slow:.2f}: "
              f"{'within' if fits else 'NOT within'} the marks (<= 2 per slow item, <= 1.2x)", flush=True)
        if kind == "trickle":
            ok &= fits
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
