"""Write an HTML report and PNG screenshots of it under bench/out/ (gitignored).

    python bench/report_screenshot.py [--store PATH] [--run RUN_ID ...]
    python bench/report_screenshot.py --models 1 --models 8 --models 60

With ``--models N`` it generates N models' runs (``tests/report/report_runs.py``'s ``fill_models``: KOR-Bench
zero-shot, trick, self-correction, sub-steps and FineReason state checking per model, written through
RunStore) into bench/out/models-N/, writes that report and screenshots of every plot as the browser draws it
(plots/<key>.png), and prints each plot's size on the page and the problems the browser check finds (data
areas under 200 px, legends on data, repeated, tiny, cut or overlapping labels; none expected).

Without --run it first runs ``reasoneval run korbench:operation --limit 5 --max-tokens 64`` on the embedded
model (llamacpp/default) into the store; if that is not possible (KOR-Bench or llama-cpp missing) it reports
every run already in the store. Outputs: report.html, report.png (the page top: leaderboard and plots),
report_items.png (the item browser with the first item opened).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from reasoneval.report import collect
from reasoneval.report.html_page import write_html
from reasoneval.store.sqlite import RunStore

OUT = Path(__file__).parent / "out"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def default_run(store: Path) -> str | None:
    cmd = [sys.executable, "-m", "reasoneval.cli", "run", "korbench:operation", "--limit", "5",
           "--max-tokens", "64", "--store", str(store), "--no-progress"]
    print("$", " ".join(cmd[2:]), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    m = re.search(r"^run ([0-9a-f]+)", p.stderr, re.M)
    if p.returncode != 0 or not m:
        print(f"korbench run not possible (exit {p.returncode}); using the runs already in {store}")
        return None
    return m.group(1)


def screenshot(html: Path, out_dir: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    if not exe:
        raise SystemExit("no chromium: apt-get install -y chromium")
    shots = [out_dir / "report.png", out_dir / "report_items.png"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(html.resolve().as_uri())
        page.wait_for_selector("body[data-ready]")
        height = page.evaluate("document.getElementById('items').offsetTop")
        page.screenshot(path=str(shots[0]), full_page=True,
                        clip={"x": 0, "y": 0, "width": 1400, "height": min(max(height, 1000), 6000)})
        page.locator("#items").scroll_into_view_if_needed()
        first = page.locator("#item-rows tr.item").first
        if first.count():
            first.click()
            page.locator("#item-rows tr.detail details.prompt > summary").first.click()
        top = page.evaluate("document.getElementById('items').offsetTop")
        page.screenshot(path=str(shots[1]), full_page=True,
                        clip={"x": 0, "y": top, "width": 1400, "height": 1600})
        browser.close()
    return shots


def plot_screenshots(html: Path, out_dir: Path) -> list[dict[str, object]]:
    """Screenshot every plot figure of the report at 1400 px; returns each one's key, page size and scale."""
    from playwright.sync_api import sync_playwright

    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    if not exe:
        raise SystemExit("no chromium: apt-get install -y chromium")
    out_dir.mkdir(parents=True, exist_ok=True)
    got = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(html.resolve().as_uri())
        page.wait_for_selector("body[data-ready]", timeout=120_000)
        figs = page.locator("#plots figure.plot")
        for i in range(figs.count()):
            f = figs.nth(i)
            key = f.get_attribute("id") or f"plot-{i}"
            img = f.locator("img")
            box = img.bounding_box() or {"width": 0.0, "height": 0.0}
            natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
            layout = json.loads(img.get_attribute("data-layout") or "null")
            shot = out_dir / f"{key}.png"
            f.screenshot(path=str(shot))
            got.append({"key": key, "width": box["width"], "height": box["height"], "natural": natural,
                        "scale": box["width"] / natural[0] if natural[0] else 0.0, "layout": layout, "file": shot})
        browser.close()
    return got


def models_report(n: int, out: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "report"))
    from report_runs import fill_models  # the test helper that writes many models' runs
    from test_plots_scale_browser import problems  # the checks the browser test makes

    d = out / f"models-{n}"
    d.mkdir(parents=True, exist_ok=True)
    store = d / "runs.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    t0 = time.perf_counter()
    ids = fill_models(store, n)
    st = RunStore(store, readonly=True)
    views = [collect.view(st, r, prompts=False) for r in ids]
    st.close()
    t1 = time.perf_counter()
    html = d / "report.html"
    write_html(views, html)
    t2 = time.perf_counter()
    print(f"{n} models: {len(ids)} runs stored and read in {t1 - t0:.1f} s; report written in {t2 - t1:.1f} s, "
          f"{html.stat().st_size / 1e6:.1f} MB: {html}")
    for shot in screenshot(html, d):  # the page top (leaderboard, plots) and the item browser
        print(f"  wrote {shot}")
    figs = plot_screenshots(html, d / "plots")
    bad = 0
    for f in figs:
        lay = f["layout"] if isinstance(f["layout"], dict) else None
        issues = problems({**f, "right": f["width"]}) if lay else ["no layout"]
        bad += len(issues)
        areas = [round((a[3] - a[1]) * float(str(f["scale"]))) for a in lay["axes"]] if lay else []
        print(f"  {f['key']}: {f['width']:.0f}x{f['height']:.0f} px on the page, scale {f['scale']:.2f}, "
              f"smallest data area {min(areas, default=0)} px high, {len(issues)} problem(s)")
        for line in issues[:5]:
            print("    ", line)
    print(f"  {len(figs)} plots, {bad} problem(s); screenshots in {d / 'plots'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, default=OUT / "screenshot.db")
    ap.add_argument("--run", action="append", default=[], help="run id or unique prefix (repeatable)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--models", type=int, action="append", default=[],
                    help="generate N models' runs and screenshot every plot (repeatable: --models 1 --models 60)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.models:
        for n in args.models:
            models_report(n, args.out)
        return
    runs = list(args.run)
    if not runs:
        rid = default_run(args.store)
        runs = [rid] if rid else []
    st = RunStore(args.store)
    if not runs:
        runs = [r["run_id"] for r in st.find_runs()]
    if not runs:
        raise SystemExit(f"no runs in {args.store}")
    views = [collect.view(st, r) for r in runs]
    st.close()
    html = args.out / "report.html"
    write_html(views, html)
    print(f"wrote {html} ({html.stat().st_size} bytes) for run(s) {', '.join(v.run['run_id'] for v in views)}")
    for s in screenshot(html, args.out):
        print(f"wrote {s}")


if __name__ == "__main__":
    main()
