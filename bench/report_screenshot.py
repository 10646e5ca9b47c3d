"""Write an HTML report and PNG screenshots of it under bench/out/ (gitignored).

    python bench/report_screenshot.py [--store PATH] [--run RUN_ID ...]

Without --run it first runs ``reasoneval run korbench:operation --limit 5 --max-tokens 64`` on the embedded
model (llamacpp/default) into the store; if that is not possible (KOR-Bench or llama-cpp missing) it reports
every run already in the store. Outputs: report.html, report.png (the page top: leaderboard and plots),
report_items.png (the item browser with the first item opened).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from reasoneval.report import collect
from reasoneval.report.html import write_html
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, default=OUT / "screenshot.db")
    ap.add_argument("--run", action="append", default=[], help="run id or unique prefix (repeatable)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
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
