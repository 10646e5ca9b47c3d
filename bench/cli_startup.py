"""Start-up of ``reasoneval --help``: wall time and the CLI's own import time (``-X importtime``), per source tree.

    python bench/cli_startup.py [--runs 20] [SRC ...]

Each SRC is a ``src`` folder put first on PYTHONPATH (default: this checkout's); with several (another commit's
``src``, e.g. from ``git archive <commit> src | tar -x -C /tmp/base``) the runs are interleaved, so a busy machine
slows each tree alike. Prints min and median wall time of ``python -m reasoneval --help``, min and median of the
cumulative import time of ``reasoneval.cli`` (with ``reasoneval.cli.commands``, which registers the commands),
and how many modules the process imported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CLI_MODULES = ("reasoneval.cli", "reasoneval.cli.commands")


def once(src: str) -> tuple[float, float, int]:
    """(wall ms, CLI import ms, modules imported) of one ``python -m reasoneval --help`` with ``src`` first."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "reasoneval", "--help"], env=env,
                       capture_output=True, text=True, check=True)
    wall = (time.perf_counter() - t0) * 1000
    cli_us = 0
    modules = 0
    for line in p.stderr.splitlines():
        parts = [x.strip() for x in line.removeprefix("import time:").split("|")]
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        modules += 1
        if parts[2] in CLI_MODULES:
            cli_us += int(parts[1])
    return wall, cli_us / 1000, modules


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src", nargs="*", default=[str(Path(__file__).resolve().parents[1] / "src")])
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    got: dict[str, list[tuple[float, float, int]]] = {s: [] for s in a.src}
    for _ in range(a.runs):
        for s in a.src:
            got[s].append(once(s))
    for s, runs in got.items():
        wall = [r[0] for r in runs]
        cli = [r[1] for r in runs]
        print(f"{s}: wall min {min(wall):.0f} ms, median {statistics.median(wall):.0f} ms; CLI imports min "
              f"{min(cli):.0f} ms, median {statistics.median(cli):.0f} ms; {runs[-1][2]} modules ({a.runs} runs)")


if __name__ == "__main__":
    main()
