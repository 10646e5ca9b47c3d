"""``rescore``'s output: the verdicts of completions made elsewhere as JSON lines or tables, and ``--diff``."""

from __future__ import annotations

import sys
from typing import IO, Any

from ..core.benchmark import Benchmark
from ..core.errors import OptionError
from ..core.safetext import json_shown, shown
from ..runner.rescore_outside import diff_lines, score_outside


def rescore_outside(bench: Benchmark, paths: list[str], jsonl: bool, options: dict[str, Any],
                    out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Score, judge, summarise, render. Returns 0, 1 when any row was bad, 2 when there was nothing
    (or an option was wrong)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        got = score_outside(bench, bench.outside_rows(paths, options), options)
    except OptionError as e:
        print(f"error: {shown(e, keep_newlines=True)}", file=err)
        return 2
    for bad in got.errors:
        print(f"error: {shown(bad, keep_newlines=True)}", file=err)  # file names
    if not got.rows:
        if not got.errors:
            print(f"error: no rows found in {shown(', '.join(paths))}", file=err)
        return 1 if got.errors else 2
    if jsonl:
        for row, vs in zip(got.rows, got.verdicts, strict=True):
            out.write(json_shown(bench.outside_json(row, vs[-1])) + "\n")
    else:
        from rich.console import Console

        from ..report.render import to_terminal

        to_terminal(bench.summarize_outside(got.groups()),
                    Console(file=out, width=240) if out is not sys.stdout else None)
    if options.get("diff"):
        print(shown("\n".join(diff_lines(bench, got, options)), keep_newlines=True), file=err if jsonl else out)
    print(f"{bench.name} rescore: {len(got.rows)} row(s) scored, {len(got.errors)} bad row(s)", file=err)
    return 1 if got.errors else 0
