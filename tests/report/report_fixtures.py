"""Data of the report tests: a small run store with a fake benchmark, hostile completions included.

A uniquely named module (not ``conftest``) so test modules can import its helpers unambiguously.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reasoneval.benchmarks.korbench.report import TABLE2_COLUMNS
from reasoneval.core.benchmark import Benchmark, Cell, ScoredRow, Table, TableKind, Turn
from reasoneval.core.registry import register
from reasoneval.core.values import Completion, GenParams, Item, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.store.sqlite import RunStore

HOSTILE = "Sure. <script>alert(1)</script> and <img src=x onerror=alert(2)> [[</script><b>x</b>]]"
HOSTILE_GOLD = "</script><script>alert(3)</script>"
RULE_TEXT = ("### Rule:\nAn operation a§b means 2a+b. " * 4).strip()


@register("htmltoy")
class HtmlToy(Benchmark):
    """Only ``summarize`` is used by the report (the default per-subset accuracy table)."""

    name = "htmltoy"
    default_params = GenParams(max_tokens=64)

    def subsets(self) -> list[str]:
        return ["alpha", "beta"]

    def modes(self) -> list[str]:
        return ["zero-shot", "self-correction"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return []

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat(str(item.data))

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return Verdict(Outcome.INCORRECT)


def _spec(model: str, mode: str, **kw: Any) -> dict[str, Any]:
    return {"benchmark": "htmltoy", "subset": None, "mode": mode, "model": model,
            "params": {"max_tokens": 64, "temperature": None, "top_p": None, "stop": [], "seed": None},
            "samples": 1, "seed": 0, "limit": None, "judge": None, "options": {},
            "package_version": "0.1.0", "data_version": "toy-v1", "prompt_version": "toy-p1", **kw}


def fill_store(path: Path) -> tuple[RunStore, list[str]]:
    """Two runs of htmltoy: a zero-shot one (with the hostile item and an error) and a self-correction one."""
    st = RunStore(path)
    st.upsert_run("run_zero_1", "htmltoy", "", "zero-shot", "openai/toy-model", _spec("openai/toy-model", "zero-shot"))
    for sub, n in (("alpha", 12), ("beta", 8)):
        for i in range(1, n + 1):
            key = f"{sub}/{i}"
            q = f"{RULE_TEXT}\n\n### Question:\nWhat is {i}§{i + 1}? Item {key}.\n\n### Answer:"
            text = f"The answer is [[{3 * i + 1}]]." if i % 3 else f"I think [[{i}]]."
            err = None
            if key == "alpha/3":
                text = HOSTILE
            if key == "beta/8":
                text, err = "", "HTTP 500: upstream failed"
            c = Completion(text, "stop", Usage(40 + i, 10 + i), 0.1, err)
            p = Prompt.chat(q, system="You are a helpful assistant.")
            st.put_completion("run_zero_1", key, 0, 0, "answer", sub, p, f"k{key}", c)
            if err:
                st.put_verdict("run_zero_1", key, 0, 0, "default", Verdict(Outcome.ERROR, None, "error"))
                continue
            if key == "alpha/3":
                v = Verdict(Outcome.INCORRECT, "</script><b>x</b>", "brackets",
                            {"gold": HOSTILE_GOLD, "note": "<img src=y onerror=alert(4)>"})
            elif key == "alpha/5":
                v = Verdict(Outcome.UNANSWERABLE, None, "brackets", {"gold": str(3 * i + 1)})
            else:
                ok = bool(i % 3)
                v = Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, str(3 * i + 1) if ok else str(i),
                            "brackets", {"gold": str(3 * i + 1)})
            st.put_verdict("run_zero_1", key, 0, 0, "default", v)
    # self-correction: up to 3 rounds; wrong answers get corrected on a later round for some items
    st.upsert_run("run_sc_2", "htmltoy", "", "self-correction", "hf/other-model",
                  _spec("hf/other-model", "self-correction"))
    for i in range(1, 11):
        key = f"alpha/{i}"
        hist: list[tuple[str, str]] = []
        fix_at = {1: 0, 2: 1, 3: 2, 4: 1, 5: 9, 6: 0, 7: 2, 8: 9, 9: 0, 10: 1}[i]
        for turn in range(3):
            ok = turn >= fix_at
            text = f"Round {turn + 1}: [[{3 * i + 1 if ok else 0}]]"
            p = Prompt.chat(f"{RULE_TEXT}\n\nQuestion {i}" if turn == 0 else "Please re-check your answer.",
                            history=hist)
            st.put_completion("run_sc_2", key, 0, turn, "answer", "alpha", p, f"s{key}{turn}",
                              Completion(text, "stop", Usage(50, 20 + turn), 0.1))
            st.put_verdict("run_sc_2", key, 0, turn, "default",
                           Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, str(3 * i + 1 if ok else 0),
                                   "brackets", {"gold": str(3 * i + 1), "round": turn + 1}))
            hist.append((p.last_user_text(), text))
            if ok:
                break
    return st, ["run_zero_1", "run_sc_2"]


def korbench_view(model: str = "openai/gpt-4o", mode: str = "zero-shot") -> RunView:
    """A hand-made KOR-Bench view: a Table 2 of typed cells (Counterfactual with its real-life rate), columns
    with KOR-Bench's ids, as its summary makes them."""
    rows = []
    for cat in ("operation", "logic", "cipher", "puzzle", "counterfactual"):
        for i in (1, 2, 11, 12, 25):
            ok = (i + len(cat)) % 2 == 0
            rows.append(ScoredRow(f"{cat}/{i}", cat, 0, [Turn(
                Prompt.chat(f"rule text of {cat}\n\nQuestion {i}"),
                Completion(f"answer [[{i}]]", "stop", Usage(100, 30 + i)),
                Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, str(i), "korbench-official",
                        {"gold": str(i if ok else i + 1)}))]))
    t2 = Table("KOR-Bench Table 2 (zero-shot)", list(TABLE2_COLUMNS),
               [[57.0, 84.0, 52.4, 44.8, 16.8, Cell(90.0, 6.0)]], kind=TableKind.LEADERBOARD)
    run = {"run_id": "kor_run_3", "model": model, "benchmark": "korbench", "subset": None, "mode": mode,
           "status": "done", "created": 1.7e9, "updated": 1.7e9 + 60,
           "spec": {**_spec(model, mode), "benchmark": "korbench", "data_version": "kor-d1",
                    "prompt_version": "kor-p1"}}
    return RunView(run, rows, [t2], collect.run_stats(rows))


@pytest.fixture(scope="session")
def toy_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "runs.db"
    st, _ = fill_store(path)
    st.close()
    return path


@pytest.fixture(scope="session")
def toy_views(toy_store: Path) -> list[RunView]:
    st = RunStore(toy_store)
    views = [collect.view(st, r) for r in ("run_zero_1", "run_sc_2")]
    st.close()
    return views


@pytest.fixture(scope="session")
def all_views(toy_views: list[RunView]) -> list[RunView]:
    return [*toy_views, korbench_view()]


@pytest.fixture(scope="session")
def report_file(all_views: list[RunView], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of all three runs, written once per session (plots included when matplotlib is there)."""
    from reasoneval.report.html_page import write_html

    out = tmp_path_factory.mktemp("report") / "report.html"
    write_html(all_views, out)
    return out


def chromium_or_skip() -> tuple[Any, str]:
    """(playwright sync_playwright, chromium path) or pytest.skip with the reason printed."""
    import shutil

    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        msg = f"playwright is not installed ({e}): pip install playwright"
        print(msg, file=sys.stderr)
        pytest.skip(msg)
    if not exe:
        msg = "no chromium binary (/usr/bin/chromium): apt-get install -y chromium"
        print(msg, file=sys.stderr)
        pytest.skip(msg)
    return sync_playwright, exe


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (skips where Chromium or Playwright is missing)."""
    sync_playwright, exe = chromium_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()
