"""Scale check of the HTML report: items -> file size, build time, time to first render in Chromium.

    python bench/report_scale.py [--items 20000] [--runs 4]
    python bench/report_scale.py --runs 62 --items 76500     # the 62 KOR-Bench release models (issue 27)

The page carries an item index (base64 gzip JSON) and the texts per run in chunks decoded on demand: embedded
up to ``item_chunks.EMBED_LIMIT``, else side files ``<page>_items/run-N.js``. Printed: the page's size and the
side folder's, time to first render, time to open an item (its run's texts decoded on demand), a search over
every text (all chunks loaded).

Items go through the real pipeline: RunStore -> report.collect.view -> report.html_page.write_html. The synthetic
items look like KOR-Bench's: a rule text shared by 10 items, a question, a completion of 200-2400 characters.
Time to first render = navigation start until the leaderboard is visible and the first page of items is in
the DOM (measured in headless Chromium through Playwright, system /usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from reasoneval.core.benchmark import Benchmark
from reasoneval.core.registry import register
from reasoneval.core.values import Completion, GenParams, Item, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.html_page import write_html
from reasoneval.store.sqlite import RunStore

CATS = ("operation", "logic", "cipher", "puzzle", "counterfactual")
WORDS = ("rule", "symbol", "apply", "cipher", "grid", "value", "step", "letter", "shift", "answer", "operation",
         "compute", "result", "therefore", "first", "then", "position", "matrix", "key", "plaintext")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@register("scalebench")
class ScaleBench(Benchmark):
    name = "scalebench"
    default_params = GenParams(max_tokens=1024)

    def subsets(self) -> list[str]:
        return list(CATS)

    def modes(self) -> list[str]:
        return ["zero-shot"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return []

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat("")

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return Verdict(Outcome.INCORRECT)


def words(rng: random.Random, n_chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < n_chars:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def fill(st: RunStore, n_items: int, n_runs: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    rules = {(c, r): f"### {c.title()} Rule {r}:\n" + "\n\n".join(words(rng, 400) for _ in range(4))
             for c in CATS for r in range(1, 26)}
    per_run = n_items // n_runs
    runs = []
    for k in range(n_runs):
        run_id = f"scale{k:03d}"
        model = f"openai/model-{k}"
        spec = {"benchmark": "scalebench", "subset": None, "mode": "zero-shot", "model": model,
                "params": {"max_tokens": 1024, "temperature": 0.0, "top_p": None, "stop": [], "seed": None},
                "samples": 1, "seed": 0, "limit": None, "judge": None, "options": {},
                "package_version": "bench", "data_version": "synthetic", "prompt_version": "synthetic"}
        st.upsert_run(run_id, "scalebench", "", "zero-shot", model, spec)
        for j in range(per_run):  # put_completion commits each row (its own transaction)
            cat = CATS[j % 5]
            idx = j // 5 + 1
            key = f"{cat}/{idx}"
            rule = rules[(cat, (idx - 1) // 10 % 25 + 1)]
            q = f"You are an intelligent assistant.\n\n{rule}\n\n### Question:\n{words(rng, 300)}\n\n### Answer:"
            text = words(rng, rng.randint(200, 2400)) + f"\n\nSo the answer is [[{idx % 97}]]."
            c = Completion(text, "stop", Usage(len(q) // 4, len(text) // 4), 0.5)
            st.put_completion(run_id, key, 0, 0, "answer", cat, Prompt.chat(q), f"{run_id}{key}", c)
            ok = rng.random() < 0.3 + 0.6 * k / n_runs
            v = Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, str(idx % 97), "korbench-official",
                        {"gold": str(idx % 97 if ok else idx % 89)})
            st.put_verdict(run_id, key, 0, 0, "default", v)
        st.flush()
        runs.append(run_id)
    return runs


def measure(path: Path, shot: Path | None) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    if not exe:
        raise SystemExit("no chromium: apt-get install -y chromium")
    out: dict[str, float] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        t0 = time.perf_counter()
        page.goto(path.resolve().as_uri(), wait_until="commit", timeout=120_000)
        page.wait_for_function(
            "() => document.querySelector('#leaderboard table.lb') && document.querySelector('#leaderboard table.lb')"
            ".getBoundingClientRect().height > 0 && document.querySelectorAll('#item-rows tr.item').length > 0",
            timeout=120_000, polling=10)
        out["first_render_wall_s"] = time.perf_counter() - t0
        out["first_render_browser_ms"] = page.evaluate(
            "performance.getEntriesByName('report-ready')[0].startTime")
        out["first_contentful_paint_ms"] = page.evaluate(
            "(() => { const e = performance.getEntriesByName('first-contentful-paint')[0]; "
            "return e ? e.startTime : -1; })()")
        out["load_event_ms"] = page.evaluate(
            "(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd || 0; })()")
        # drill-down: open the first item shown (its run's texts are not decoded yet)
        t = time.perf_counter()
        page.click("#item-rows tr.item >> nth=0")
        page.wait_for_selector("#item-rows tr.detail pre.text", timeout=120_000)
        out["open_item_ms"] = (time.perf_counter() - t) * 1000
        page.click("#item-rows tr.item >> nth=0")  # closed again
        # interaction latency: a verdict filter over every item, paging
        for name, action in (
            ("verdict_filter_ms", "const v = document.getElementById('f-verdict'); v.value = 'correct'; "
                                  "v.dispatchEvent(new Event('change'));"),
            ("next_page_ms", "document.getElementById('p-next').click();"),
        ):
            out[name] = page.evaluate(f"(() => {{ const t = performance.now(); {action} "
                                      "return performance.now() - t; })()")
        # a search over every text of every run (all the runs' texts decoded first)
        t = time.perf_counter()
        page.fill("#f-search", "plaintext matrix")
        page.press("#f-search", "Enter")
        page.wait_for_selector("body:not([data-busy])", timeout=120_000)
        out["full_text_search_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        page.fill("#f-search", "matrix plaintext")
        page.press("#f-search", "Enter")
        page.wait_for_selector("body:not([data-busy])", timeout=120_000)
        out["second_search_ms"] = (time.perf_counter() - t) * 1000
        out["heap_mb"] = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize / 1048576 : 0")
        if shot:
            page.screenshot(path=str(shot))
        browser.close()
    if errors:
        raise SystemExit(f"page errors: {errors}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "report_scale.html")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        st = RunStore(Path(tmp) / "scale.db")
        t = time.perf_counter()
        runs = fill(st, args.items, args.runs)
        print(f"store: {args.items} items in {args.runs} runs, filled in {time.perf_counter() - t:.1f}s")
        t = time.perf_counter()
        views = [collect.view(st, r) for r in runs]
        t_collect = time.perf_counter() - t
        t = time.perf_counter()
        side = write_html(views, args.out)
        t_write = time.perf_counter() - t
        st.close()
    size = args.out.stat().st_size
    print(f"collect: {t_collect:.2f}s   write_html: {t_write:.2f}s")
    print(f"page: {args.out}  {size / 1e6:.1f} MB ({size} bytes)")
    if side:
        side_size = sum(p.stat().st_size for p in side)
        print(f"side files: {len(side)} in {side[0].parent}, {side_size / 1e6:.1f} MB (item texts, loaded on demand)")
    if args.no_browser:
        return
    m = measure(args.out, args.out.with_suffix(".png"))
    print(f"time to first render (navigation -> leaderboard visible + first page of items): "
          f"{m['first_render_wall_s'] * 1000:.0f} ms wall, {m['first_render_browser_ms']:.0f} ms in-page "
          f"(first contentful paint {m['first_contentful_paint_ms']:.0f} ms, load event {m['load_event_ms']:.0f} ms)")
    print(f"open an item (its run's texts decoded on demand): {m['open_item_ms']:.0f} ms; verdict filter: "
          f"{m['verdict_filter_ms']:.0f} ms; next page: {m['next_page_ms']:.0f} ms")
    print(f"full-text search over every run: {m['full_text_search_ms']:.0f} ms (decoding every run's texts), "
          f"{m['second_search_ms']:.0f} ms the next time; JS heap {m['heap_mb']:.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
