"""A fault-injecting server: every item ends completed or recorded as an error with its reason."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import toybench  # noqa: F401

from reasoneval.core import registry
from reasoneval.core.types import GenParams, Outcome
from reasoneval.models.openai_compat import HTTPOptions, OpenAICompatBackend
from reasoneval.report.collect import view
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.scoring.extract import double_brackets
from reasoneval.store.errors import StoreError
from reasoneval.store.sqlite import RunStore


def _run(store: RunStore, url: str, retries: int, timeout: float = 1.0, *, bench_name: str = "toy",
         mode: str = "zero-shot", http: HTTPOptions | None = None, api_key: str | None = None):
    bench = registry.get(bench_name)
    spec = RunSpec(bench_name, None, mode, f"openai-compat/fake@{url}", GenParams(max_tokens=32))
    backend = OpenAICompatBackend(spec.model, "fake", [url], api_key, 16,
                                  http or HTTPOptions(timeout_s=timeout, max_retries=retries, backoff_base_s=0.01,
                                                      backoff_max_s=0.05))

    async def go():
        try:
            return await Runner(bench, spec, store, backend, concurrency=16, progress=False).run()
        finally:
            await backend.aclose()

    return asyncio.run(go()), backend


def test_retries_survive_every_fault_kind(tmp_path: Path, make_server) -> None:
    # each distinct prompt first gets 429 (Retry-After 0), 500, a timeout, malformed JSON, then succeeds
    srv = make_server("--faults", "429,500,timeout,malformed", "--fail-every", "2", "--retry-after", "0",
                      "--timeout-sleep", "2")
    store = RunStore(tmp_path / "s.db")
    res, backend = _run(store, srv.url, retries=6)
    assert res.errors == 0
    rows = view(store, res.run_id).rows
    assert len(rows) == 50
    assert all(r.final.completion.error is None for r in rows)
    st = srv.stats()
    assert st["429"] == st["500"] == st["timeout"] == st["malformed"] == 25
    assert backend.limiter.limit < 16 or backend.limiter.max_limit == 16  # limiter reacted without dying


def test_exhausted_retries_are_errors_not_wrong_answers(tmp_path: Path, make_server) -> None:
    srv = make_server("--faults", "500,500,500,500", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, retries=2)
    rows = view(store, res.run_id).rows
    failed = [r for r in rows if r.final.completion.error]
    assert len(failed) == res.errors == 10  # every 5th distinct prompt
    for r in failed:
        assert r.final.verdict.outcome is Outcome.ERROR
        assert "HTTP 500" in r.final.completion.error
    table = view(store, res.run_id).tables[0]
    overall = table.rows[-1]
    assert overall[4] == 10  # errors column
    # accuracy is over answered items only: errors are not counted as wrong
    answered = [r for r in rows if not r.final.completion.error]
    right = sum(r.final.verdict.correct for r in answered)
    assert overall[2] == round(100 * right / len(answered), 2)


def test_retry_errors_reasks_only_failures(tmp_path: Path, make_server) -> None:
    srv = make_server("--faults", "500,500,500,500", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, retries=2)
    assert res.errors == 10
    before = srv.stats()["requests"]
    bench = registry.get("toy")
    spec = RunSpec("toy", None, "zero-shot", f"openai-compat/fake@{srv.url}", GenParams(max_tokens=32))
    backend = OpenAICompatBackend(spec.model, "fake", [srv.url], None, 16,
                                  HTTPOptions(max_retries=3, backoff_base_s=0.01))

    async def go():
        try:
            return await Runner(bench, spec, store, backend, concurrency=16, progress=False).run(True)
        finally:
            await backend.aclose()

    res2 = asyncio.run(go())
    assert res2.errors == 0 and res2.generated == 10 and res2.reused == 40
    assert srv.stats()["requests"] - before == 10 * 2  # one more 500 then success, for the 10 only


# ---- issue 16: nothing a model writes or a server does can stop, stall or corrupt a run ----------------------


def _cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def _one_line_error(p: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert p.returncode == 2, (p.stdout, p.stderr[-2000:])
    lines = [x for x in p.stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr[-2000:]
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def test_lone_surrogate_is_stored_escaped_and_scored(tmp_path: Path, make_server) -> None:
    # 10 of 50 answers are `The answer is [[\ud800]]` (valid ASCII JSON, a lone surrogate once decoded)
    srv = make_server("--faults", "surrogate", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    t0 = time.monotonic()
    res, _ = _run(store, srv.url, retries=2)
    assert time.monotonic() - t0 < 30
    assert res.errors == 0
    rows = view(store, res.run_id).rows
    assert len(rows) == 50
    odd = [r for r in rows if "[[\\ud800]]" in r.final.completion.text]
    assert len(odd) == 10
    for r in odd:  # stored losslessly as the escape, and scored like any other answer
        assert r.final.verdict.extracted == "\\ud800" and r.final.verdict.outcome is Outcome.INCORRECT
    assert store.get_run(res.run_id)["status"] == "done"
    res2, _ = _run(store, srv.url, retries=2)  # a re-run resumes instead of crashing again
    assert res2.generated == 0 and res2.reused == 50
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 50


def test_hung_requests_and_429s_do_not_stall_the_run(tmp_path: Path, make_server, monkeypatch) -> None:
    # 10% of 250 prompts: a 429 (Retry-After 1) or a 60 s hang on their first attempt; before: 243 s
    monkeypatch.setenv("REASONEVAL_TOYBIG_N", "250")
    srv = make_server("--fault-rate", "0.1", "--faults", "429,hang", "--timeout-sleep", "60",
                      "--retry-after", "1", "--delay", "0.01")
    store = RunStore(tmp_path / "s.db")
    http = HTTPOptions(timeout_s=120, hedge_after_s=1.0, backoff_base_s=0.05, backoff_max_s=1.0)
    t0 = time.monotonic()
    res, backend = _run(store, srv.url, 6, bench_name="toybig", http=http)
    elapsed = time.monotonic() - t0
    st = srv.stats()
    assert st["hang"] > 5 and st["429"] > 5
    assert res.errors == 0 and len(view(store, res.run_id).rows) == 250
    assert backend.hedges >= st["hang"]
    assert backend.limiter.limit >= 8  # concurrency grew back after the 429s
    assert elapsed < 25, elapsed  # no 60 s gap: budget 25 s (measured ~3-6 s)


def test_timeouts_are_configurable(tmp_path: Path, make_server) -> None:
    srv = make_server("--faults", "hang", "--fail-every", "5", "--timeout-sleep", "30")
    store = RunStore(tmp_path / "s.db")
    t0 = time.monotonic()
    res, _ = _run(store, srv.url, 0, http=HTTPOptions(timeout_s=0.5, hedge_after_s=0, max_retries=0))
    assert time.monotonic() - t0 < 15
    errors = [r.final.completion.error for r in view(store, res.run_id).rows if r.final.completion.error]
    assert len(errors) == res.errors == 10
    assert all("timeout after 0.5s" in e for e in errors), errors[0]
    help_text = _cli("run", "--help", cwd=tmp_path).stdout
    assert "--timeout-connect" in help_text and "--timeout-read" in help_text and "--timeout-total" in help_text


def test_slow_scoring_never_stops_requests(tmp_path: Path, make_server, monkeypatch) -> None:
    monkeypatch.setenv("REASONEVAL_TOYBIG_N", "40")
    srv = make_server("--delay", "0.01")
    store = RunStore(tmp_path / "s.db")
    t0 = time.monotonic()
    res, _ = _run(store, srv.url, 2, bench_name="toybig", mode="slow-score")
    total = time.monotonic() - t0  # 40 verdicts x 0.3 s on 2 scoring threads: >= 6 s
    con = sqlite3.connect(tmp_path / "s.db")
    spread = con.execute("SELECT MAX(created) - MIN(created) FROM completions").fetchone()[0]
    assert res.errors == 0 and total >= 5.5
    assert spread < total / 2, (spread, total)  # every request went out while scoring was still busy


def test_reflected_credentials_are_never_stored_or_shown(tmp_path: Path, make_server) -> None:
    from reasoneval.report.html import write_html
    from reasoneval.report.render import to_markdown
    from reasoneval.store.export import export

    secret = "sk-test-" + "Zq9" * 10
    srv = make_server("--faults", "echo401", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, 1, api_key=secret)
    assert res.errors == 10
    v = view(store, res.run_id)
    export(store, res.run_id, "default", tmp_path / "out.jsonl")
    write_html([v], tmp_path / "r.html")
    con = sqlite3.connect(tmp_path / "s.db")
    dumped = "\n".join("\n".join(map(str, r)) for t in ("completions", "verdicts")
                       for r in con.execute(f"SELECT * FROM {t}"))
    shown = [dumped, (tmp_path / "out.jsonl").read_text(), (tmp_path / "r.html").read_text(), to_markdown(v.tables)]
    errors = [r.final.completion.error for r in v.rows if r.final.completion.error]
    assert all("HTTP 401" in e and "[REDACTED]" in e for e in errors), errors[0]
    for text in shown:
        assert secret not in text and "Zq9Zq9Zq9" not in text


def test_markdown_report_escapes_model_names() -> None:
    from reasoneval.core.benchmark import Table
    from reasoneval.report.render import to_markdown

    evil = "openai-compat/<img src=x onerror=alert(1)>@http://h/v1"
    md = to_markdown([Table(f"toy <script>x</script> {evil}", ["model", "acc|x"], [[evil, 1.0]], ["<b>note</b>"])])
    assert "<img" not in md and "<script" not in md and "<b>" not in md
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and "acc\\|x" in md


def test_hostile_model_name_runs_and_is_escaped_in_the_markdown_report(tmp_path: Path, make_server) -> None:
    import json

    srv = make_server("--delay", "0.0")
    model = f"openai-compat/<img src=x onerror=alert(1)>@{srv.url}"
    db = str(tmp_path / "s.db")
    p = _cli("run", "toy", "--model", model, "--store", db, "--no-progress", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    run_id = json.loads(p.stdout)["runs"][0]["run"]["run_id"]
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 50  # nothing lost
    p = _cli("report", run_id, "--store", db, "--md", str(tmp_path / "r.md"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    md = (tmp_path / "r.md").read_text()
    assert "<img" not in md and "openai-compat/&lt;img src=x onerror=alert(1)&gt;@" in md


def _make_store(tmp_path: Path, make_server) -> tuple[Path, str]:
    srv = make_server("--delay", "0.0")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, 1)
    store.close()
    return tmp_path / "s.db", res.run_id


def test_read_only_store_serves_report_and_export(tmp_path: Path, make_server) -> None:
    path, run_id = _make_store(tmp_path, make_server)
    before = path.read_bytes()
    ro = RunStore(path, readonly=True)
    assert len(view(ro, run_id).rows) == 50
    with pytest.raises(StoreError, match="read-only"):
        ro.set_status(run_id, "x")
    ro.close()
    assert path.read_bytes() == before  # nothing created or changed
    p = _cli("report", run_id, "--store", str(path), "--md", str(tmp_path / "t.md"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    p = _cli("export", run_id, str(tmp_path / "o.jsonl"), "--store", str(path), cwd=tmp_path)
    assert p.returncode == 0 and len((tmp_path / "o.jsonl").read_text().splitlines()) == 50


def test_broken_store_files_are_one_line_errors(tmp_path: Path, make_server) -> None:
    path, run_id = _make_store(tmp_path, make_server)
    raw = bytearray(path.read_bytes())
    raw[:100] = bytes(100)  # header zeroed
    bad = tmp_path / "zeroed.db"
    bad.write_bytes(bytes(raw))
    _one_line_error(_cli("report", run_id, "--store", str(bad), cwd=tmp_path), "corrupted")
    _one_line_error(_cli("run", "toy", "--model", "openai-compat/m@http://127.0.0.1:9/v1", "--store", str(bad),
                         cwd=tmp_path), "zeroed.db")
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    _one_line_error(_cli("report", run_id, "--store", str(empty), cwd=tmp_path), "empty file")
    with pytest.raises(StoreError, match="empty file"):
        RunStore(empty)
    assert empty.stat().st_size == 0  # never silently turned into a new store


def test_full_disk_is_one_error_and_keeps_what_was_committed(tmp_path: Path) -> None:
    from reasoneval.core.types import Completion, Prompt

    store = RunStore(tmp_path / "s.db")
    store.db.execute("PRAGMA max_page_count=40")  # what SQLite reports on a full disk: SQLITE_FULL
    done = 0
    with pytest.raises(StoreError, match="disk is full") as ei:
        for i in range(1000):
            store.put_completion("r", str(i), 0, 0, "answer", "a", Prompt.chat("q"), f"k{i}",
                                 Completion(text="x" * 2000))
            done += 1
    assert "\n" not in str(ei.value) and 0 < done < 1000
    store.db.close()
    assert RunStore(tmp_path / "s.db").count("r") == done  # nothing committed is lost


def test_second_run_process_on_the_same_run_refuses(tmp_path: Path, make_server) -> None:
    srv = make_server("--delay", "0.3")
    args = ["run", "toy", "--model", f"openai-compat/m@{srv.url}", "--store", str(tmp_path / "s.db"),
            "--no-progress"]
    first = subprocess.Popen([sys.executable, "-m", "reasoneval.cli", *args, "--concurrency", "1"],
                             cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while not list(tmp_path.glob("s.db.*.lock")) and time.time() < deadline:
            time.sleep(0.2)
        assert list(tmp_path.glob("s.db.*.lock")), "first run never started"
        line = _one_line_error(_cli(*args, cwd=tmp_path), "already running")
        assert f"pid {first.pid}" in line
    finally:
        first.kill()
        first.wait()
    p = _cli(*args, cwd=tmp_path)  # the lock died with its holder: the run resumes and completes
    assert p.returncode == 0, p.stderr[-2000:]
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 50
    # every verdict matches its stored completion (no interleaved writers)
    pairs = con.execute("SELECT c.text, v.extracted FROM verdicts v JOIN completions c "
                        "USING (run_id, item_key, sample, turn)").fetchall()
    assert len(pairs) == 50 and all(double_brackets(t) == x for t, x in pairs)


def test_soak_every_fault_kind_at_20_percent(tmp_path: Path) -> None:
    """1,250 items, 20% of prompts with one of 11 fault kinds (429, 500, 60 s hang, malformed, no choices, 400,
    401 echoing the key, cross-host redirect, lone surrogate, empty answer, SymPy-style bomb); figures: bench/soak.py."""
    from reasoneval.testing.soak import FAULTS, soak

    r = soak(tmp_path, 1250, 0.2)
    assert (r.lost, r.duplicated, r.misscored, r.secret_leaks) == (0, 0, 0, 0), r.line()
    assert all(r.server.get(k, 0) > 0 for k in FAULTS), r.server
    assert 0 < r.errors < 1250 * 0.2 and r.seconds < 120, r.line()
