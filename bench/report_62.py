"""``reasoneval report`` of 62 runs of the KOR-Bench release's shape: time and peak memory per format, the LaTeX
compiled with pdflatex, screenshots of the HTML page, its plots and the PDF's first pages (issue 34).

    python bench/report_62.py STORE.db [--before SRC] [--out bench/out/report62]

STORE.db: a 62-run store (``python bench/report_store62.py /tmp/s62.db`` builds one from the release's raw
outputs; keep it outside the repository). ``--before SRC``: also time the same commands with another source
tree on PYTHONPATH (e.g. an older checkout's ``src``), for before/after figures, the two interleaved
(``--repeat`` tries each, medians printed). Each command runs in a fresh
process (figures from ``resource.getrusage`` of the child): wall seconds, CPU seconds (user + system: on a shared
machine the steadier figure) and peak RSS; the load average is printed beside each line. ``--pyc``: the children
keep compiled modules (``PYTHONPYCACHEPREFIX`` under --out, one untimed run first), as an installed package does,
even where ``PYTHONDONTWRITEBYTECODE`` is set (then every command compiles our ~100 modules again: ~0.15 s).
Prints one line per (tree, format); writes the outputs, screenshots (report.png: the page top; plots/*.png;
latex-p*.png: the PDF's pages) under --out, and the problems the plot check finds (none expected).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMATS: dict[str, list[str]] = {
    "text": [], "json": ["--json"], "md": ["--md", "{out}/r.md"], "csv": ["--csv", "{out}/r.csv"],
    "latex": ["--latex", "{out}/r.tex"], "html": ["--html", "{out}/r.html"],
}


#: ``--pyc``: the children write and read compiled modules under this folder of each tree's --out (as an
#: installed package has them), whatever PYTHONDONTWRITEBYTECODE says; None: the environment decides
PYC: str | None = None


def once(store: Path, ids: list[str], src: Path, out: Path, name: str) -> tuple[float, float, float, int] | str:
    """One ``report`` of format ``name`` in a fresh interpreter: (wall s, CPU s, peak MB, exit code), or the
    error it printed."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "200"}
    if PYC is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(out / PYC)
    out.mkdir(parents=True, exist_ok=True)
    args = [a.replace("{out}", str(out)) for a in FORMATS[name]]
    # a fresh interpreter per command: ru_maxrss of RUSAGE_CHILDREN is the largest child so far, so each
    # format runs in its own wrapper process that reports its child's peak
    wrapper = [sys.executable, "-c", _WRAP, sys.executable, "-m", "reasoneval", "report", *ids, "--store",
               str(store), *args]
    res = subprocess.run(wrapper, env=env, capture_output=True, text=True)
    m = re.search(r"WALL ([\d.]+) PEAK ([\d.]+) RC (\d+) CPU ([\d.]+)", res.stdout)
    if m is None:
        return res.stderr[-1500:]
    return float(m.group(1)), float(m.group(4)), float(m.group(2)), int(m.group(3))


def measure(store: Path, ids: list[str], trees: list[tuple[str, Path, Path]], formats: list[str],
            repeat: int) -> None:
    """Each format ``repeat`` times per tree, the trees interleaved (before, after, before, after, ...: a shared
    machine's load falls on both alike); one line per try, then the medians."""
    got: dict[tuple[str, str], list[tuple[float, float, float, int]]] = {}
    if PYC is not None:  # one untimed run per tree: its modules compiled (and the store in the page cache)
        for _, src, out in trees:
            once(store, ids, src, out, "json")
    for name in formats:
        for k in range(repeat):
            for label, src, out in trees:
                r = once(store, ids, src, out, name)
                if isinstance(r, str):
                    print(f"{label} {name}: failed\n{r}")
                    continue
                got.setdefault((label, name), []).append(r)
                print(f"  try {k + 1}  {label:7s} {name:6s} {r[0]:6.2f} s wall  {r[1]:6.2f} s CPU  {r[2]:7.0f} MB peak  "
                      f"exit {r[3]}  (load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"medians of {repeat}:")
    for (label, name), rs in got.items():
        print(f"{label:7s} {name:6s} {statistics.median(r[0] for r in rs):6.2f} s wall  "
              f"{statistics.median(r[1] for r in rs):6.2f} s CPU  {statistics.median(r[2] for r in rs):7.0f} MB peak  "
              f"exit {max(r[3] for r in rs)}")


_WRAP = """
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
w = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"WALL {w:.3f} PEAK {u.ru_maxrss / 1024:.1f} RC {r.returncode} CPU {u.ru_utime + u.ru_stime:.3f}")
"""


def latex_check(out: Path) -> None:
    tex = out / "r.tex"
    if not tex.exists() or shutil.which("pdflatex") is None:
        print("latex: no r.tex or no pdflatex")
        return
    for _ in range(2):  # longtable settles its column widths on the second pass
        subprocess.run(["pdflatex", "-interaction=nonstopmode", tex.name], cwd=out, stdout=subprocess.DEVNULL)
    log = (out / "r.log").read_text(encoding="latin-1")
    errors = [ln for ln in log.splitlines() if ln.startswith("!")]
    over = [float(x) for x in re.findall(r"Overfull \\[hv]box \(([\d.]+)pt", log)]
    pages = re.search(r"Output written on r\.pdf \((\d+) page", log)
    print(f"latex: {len(errors)} error(s), {len(over)} overfull box(es) (widest {max(over, default=0):.1f} pt), "
          f"{pages.group(1) if pages else '?'} pages")
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "3", "r.pdf", "latex-p"], cwd=out)
        print(f"  wrote {', '.join(sorted(p.name for p in out.glob('latex-p*.png')))}")


def shots(out: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT / "tests" / "report"))
    from report_screenshot import plot_screenshots, screenshot
    from test_plots_scale_browser import problems

    html = out / "r.html"
    for s in screenshot(html, out):
        print(f"  wrote {s}")
    bad = 0
    for f in plot_screenshots(html, out / "plots"):
        lay = f["layout"] if isinstance(f["layout"], dict) else None
        issues = problems({**f, "right": f["width"]}) if lay else ["no layout"]
        bad += len(issues)
        print(f"  {f['key']}: {f['width']:.0f}x{f['height']:.0f} px, {len(issues)} problem(s)")
        for line in issues[:5]:
            print("    ", line)
    print(f"plots: {bad} problem(s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--before", type=Path, help="another source tree to time the same commands with")
    ap.add_argument("--after", type=Path, default=ROOT / "src",
                    help="the source tree timed as 'after' (default: this checkout's; a copy keeps edits out)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "report62")
    ap.add_argument("--no-shots", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="tries per format and tree (medians printed)")
    ap.add_argument("--formats", default=",".join(FORMATS), help="comma-separated subset of " + ",".join(FORMATS))
    ap.add_argument("--pyc", action="store_true",
                    help="the commands with compiled modules cached (under each --out, after one untimed run), as an "
                         "installed package runs; default: as the environment says (PYTHONDONTWRITEBYTECODE)")
    a = ap.parse_args()
    global PYC
    PYC = "pycache" if a.pyc else None
    with sqlite3.connect(f"file:{a.store}?mode=ro", uri=True) as db:
        ids = [r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY run_id")]
    print(f"{len(ids)} runs in {a.store}; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}; "
          f"compiled modules {'cached' if a.pyc else 'as the environment says'}")
    trees = [("before", a.before, a.out / "before")] if a.before is not None else []
    measure(a.store, ids, [*trees, ("after", a.after, a.out)], a.formats.split(","), a.repeat)
    print(f"load average {os.getloadavg()[0]:.1f}")
    latex_check(a.out)
    if not a.no_shots:
        shots(a.out)


if __name__ == "__main__":
    main()
