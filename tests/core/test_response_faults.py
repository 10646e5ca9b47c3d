"""Issue 23 (defects 1, 2, 3, 7, 8, 11) and issue 25 point 9, against the fault server, streamed and plain.

Each faulted item must end as an error with its reason (never scored), the run must finish, and every other
item must be answered and scored as without the fault. ``--fail-every 5`` faults 10 of the toy benchmark's 50
prompts; a fault listed three times hits all three attempts of ``retries=2``.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import toybench  # noqa: F401

from reasoneval.core import registry
from reasoneval.core.values import GenParams, Outcome
from reasoneval.models.limits import ResponseLimits
from reasoneval.models.openai_compat import HTTPOptions, OpenAICompatBackend
from reasoneval.report.collect import view
from reasoneval.runner.engine import Runner, RunResult
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore

STREAM = [pytest.param(True, id="stream"), pytest.param(False, id="no-stream")]
SMALL = ResponseLimits(max_bytes=1 << 20, max_decoded_bytes=4 << 20, max_chars=500_000)


def _run(store: RunStore, url: str, stream: bool, retries: int = 2, api_key: str | None = None,
         limits: ResponseLimits | None = None) -> tuple[RunResult, OpenAICompatBackend]:
    bench = registry.get("toy")
    spec = RunSpec("toy", None, "zero-shot", f"openai-compat/fake@{url}", GenParams(max_tokens=32))
    opts = HTTPOptions(timeout_s=20, max_retries=retries, backoff_base_s=0.01, backoff_max_s=0.05, stream=stream,
                       limits=limits or ResponseLimits())
    backend = OpenAICompatBackend(spec.model, "fake", [url], api_key, 16, opts)

    async def go() -> RunResult:
        try:
            return await Runner(bench, spec, store, backend, concurrency=16, progress=False).run()
        finally:
            await backend.aclose()

    return asyncio.run(go()), backend


def _split(store: RunStore, res: RunResult) -> tuple[list[Any], list[Any]]:
    """(failed rows, answered rows); asserts the run finished with every item stored exactly once."""
    rows = view(store, res.run_id).rows
    assert len(rows) == 50 and len({r.item_key for r in rows}) == 50
    assert (store.get_run(res.run_id) or {}).get("status") in ("done", "done-with-errors")
    failed = [r for r in rows if r.final.completion.error]
    answered = [r for r in rows if not r.final.completion.error]
    for r in answered:  # unaffected: the fake's answer names the prompt's last word, scored as usual
        v = r.final.verdict
        assert v is not None and v.extracted == r.turns[0].prompt.last_user_text().split()[-1]
        assert v.outcome in (Outcome.CORRECT, Outcome.INCORRECT)
    return failed, answered


def _errors_only(failed: list[Any], *needles: str) -> None:
    for r in failed:
        assert r.final.verdict.outcome is Outcome.ERROR, r.final.verdict  # never scored
        for n in needles:
            assert n in r.final.completion.error, r.final.completion.error


# ---- defect 1: a 200 without choices is an error on both paths -------------------------------------------------


@pytest.mark.parametrize("stream", STREAM)
@pytest.mark.parametrize("fault", ["nochoices", "anthropicsse"])
def test_a_response_without_choices_is_an_error_streamed_or_not(tmp_path: Path, make_server, stream: bool,
                                                               fault: str) -> None:
    srv = make_server("--stream", "--faults", f"{fault},{fault},{fault}", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, answered = _split(store, res)
    assert res.errors == len(failed) == 10 and len(answered) == 40
    _errors_only(failed, "gave up after 3 attempts", "malformed response", "no choices")
    assert srv.stats()[fault] == 30  # retried, then recorded


@pytest.mark.parametrize("stream", STREAM)
def test_a_response_without_choices_once_is_retried_and_answered(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "nochoices", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, answered = _split(store, res)
    assert res.errors == 0 and not failed and len(answered) == 50
    assert srv.stats()["nochoices"] == 10


# ---- defect 2: a stream that ends without finish_reason or [DONE] is cut off, not complete -------------------


@pytest.mark.parametrize("stream", STREAM)
def test_a_cut_off_response_is_an_error(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "nofinish,nofinish,nofinish", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, _ = _split(store, res)
    assert res.errors == len(failed) == 10
    # streamed: every event parsed but no end; plain: the body is half a JSON document
    _errors_only(failed, "incomplete response" if stream else "malformed response")
    if stream:
        _errors_only(failed, "without a finish reason or end marker")


# ---- defect 3 and issue 25 point 9: malformed or missing usage is unknown, never a crash, never 0 ------------


@pytest.mark.parametrize("stream", STREAM)
@pytest.mark.parametrize("fault", ["usage1e999", "usagestr", "nousage"])
def test_malformed_or_missing_usage_is_unknown(tmp_path: Path, make_server, stream: bool, fault: str) -> None:
    srv = make_server("--stream", "--reasoning-tokens", "--faults", fault, "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, answered = _split(store, res)
    assert res.errors == 0 and len(answered) == 50  # the answers are fine: bad bookkeeping is not a bad answer
    unknown = [r for r in answered if r.final.completion.usage.prompt_tokens is None]
    assert len(unknown) == 10
    for r in unknown:
        c = r.final.completion
        assert c.usage.completion_tokens is None and c.reasoning_tokens is None
    for r in answered:
        if r not in unknown:
            assert r.final.completion.usage.prompt_tokens and r.final.completion.usage.completion_tokens
    con = sqlite3.connect(tmp_path / "s.db")
    nulls = con.execute("SELECT COUNT(*) FROM completions WHERE prompt_tokens IS NULL AND completion_tokens IS NULL"
                        ).fetchone()[0]
    assert nulls == 10  # NULL in the store, not 0
    stats = view(store, res.run_id).stats
    known = sum(r.final.completion.usage.completion_tokens or 0 for r in answered)
    assert stats["completion_tokens"] == known and stats["completion_tokens_unknown"] == 10
    assert stats["calls"] == 50


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=180, cwd=cwd, env={**os.environ, **(env or {})})


def _run_id(store_path: Path) -> str:
    return str(sqlite3.connect(store_path).execute("SELECT run_id FROM runs").fetchone()[0])


def test_cli_run_with_1e999_usage_finishes_and_shows_unknown_usage(tmp_path: Path, make_server) -> None:
    """The audit's crash: ``usage.prompt_tokens: 1e999`` raised OverflowError out of the CLI (streamed path)."""
    srv = make_server("--stream", "--reasoning-tokens", "--faults", "usage1e999", "--fail-every", "5")
    p = _cli("run", "toy", "--model", f"openai-compat/fake@{srv.url}", "--store", str(tmp_path / "s.db"),
             "--no-progress", cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Traceback" not in p.stderr + p.stdout
    assert "(10 of 50 calls without usage)" in p.stderr + p.stdout
    r = _cli("report", _run_id(tmp_path / "s.db"), "--store", str(tmp_path / "s.db"), "--html",
             str(tmp_path / "r.html"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    html = (tmp_path / "r.html").read_text()
    assert "(10 of 50 unknown)" in html  # the total says how many were unknown


# ---- defect 7: control codes from a server never reach the terminal (nor the store) -----------------------


@pytest.mark.parametrize("stream", STREAM)
@pytest.mark.parametrize("fault", ["ctlbody", "ctlredirect"])
def test_control_codes_from_a_server_are_stripped(tmp_path: Path, make_server, fault: str, stream: bool) -> None:
    srv = make_server("--stream", "--faults", fault, "--fail-every", "5")
    store_path = tmp_path / "s.db"
    p = _cli("run", "toy", "--model", f"openai-compat/fake@{srv.url}", "--store", str(store_path),
             "--no-progress", "--stream" if stream else "--no-stream", cwd=tmp_path)
    assert p.returncode == 3, p.stderr[-3000:]  # some items failed: the usual summary and status, as for any error
    assert "10 of 50 items failed and are excluded from accuracy" in p.stderr
    r = _cli("report", _run_id(store_path), "--store", str(store_path), cwd=tmp_path)
    e = _cli("export", _run_id(store_path), str(tmp_path / "out.jsonl"), "--store", str(store_path), cwd=tmp_path)
    shown = p.stdout + p.stderr + r.stdout + r.stderr + e.stdout + e.stderr + (tmp_path / "out.jsonl").read_text()
    errors = [row[0] for row in sqlite3.connect(store_path).execute(
        "SELECT error FROM completions WHERE error IS NOT NULL")]
    assert len(errors) == 10
    assert all(("HTTP 400" if fault == "ctlbody" else "HTTP 307 redirect") in x for x in errors), errors[0]
    for text in [shown, *errors]:
        assert not any(c in text for c in "\x1b\x07\x9b\x9d"), repr(text[:500])
        assert "PWNED" not in text  # the window-title payload went with its escape sequence


# ---- defect 8: a gzip bomb and an endless answer stop at the limits ----------------------------------------


@pytest.mark.parametrize("stream", STREAM)
def test_a_gzip_bomb_stops_at_the_decompressed_limit(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "gzipbomb,gzipbomb,gzipbomb", "--fail-every", "5", "--bomb-mb", "64")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream, limits=SMALL)
    failed, _ = _split(store, res)
    assert res.errors == len(failed) == 10
    _errors_only(failed, "oversized response", "once decompressed")


@pytest.mark.parametrize("stream", STREAM)
def test_an_endless_answer_stops_at_a_limit(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "endless,endless,endless", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream, limits=SMALL)
    failed, _ = _split(store, res)
    assert res.errors == len(failed) == 10
    # streamed: the characters of the answer run over first; plain: the body's bytes
    _errors_only(failed, "oversized response", "characters" if stream else "MiB")


# ---- defect 11: a key is redacted before the error is cut, and so are pieces of it ------------------------


@pytest.mark.parametrize("stream", STREAM)
def test_a_key_at_byte_280_of_an_error_body_is_redacted_whole(tmp_path: Path, make_server, stream: bool) -> None:
    from reasoneval.report.html_page import write_html
    from reasoneval.store.export import export

    key = "rk_live_" + "Qx7pLm2Vw9" * 3  # no sk- prefix: only the registered secret can find it
    srv = make_server("--stream", "--faults", "key401", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream, api_key=key)
    failed, _ = _split(store, res)
    assert res.errors == len(failed) == 10
    _errors_only(failed, "HTTP 401", "[REDACTED]")
    v = view(store, res.run_id)
    export(store, res.run_id, "default", tmp_path / "out.jsonl")
    write_html([v], tmp_path / "r.html")
    con = sqlite3.connect(tmp_path / "s.db")
    dumped = "\n".join("\n".join(map(str, r)) for t in ("completions", "verdicts")
                       for r in con.execute(f"SELECT * FROM {t}"))
    pieces = {key[i:i + 8] for i in range(len(key) - 7)}
    for text in (dumped, (tmp_path / "out.jsonl").read_text(), (tmp_path / "r.html").read_text()):
        assert not [p for p in pieces if p in text]


# ---- per-item isolation: whatever one response's handling raises is that item's error ---------------------


@pytest.mark.parametrize("stream", STREAM)
def test_any_exception_while_reading_one_response_is_that_items_error(tmp_path: Path, make_server,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      stream: bool) -> None:
    srv = make_server("--stream")
    original = OpenAICompatBackend._read

    async def flaky(self: OpenAICompatBackend, resp: Any, replica: Any, t0: float, body: dict[str, Any]) -> Any:
        comp = await original(self, resp, replica, t0, body)
        if "apple" in str(body["messages"]):
            raise OverflowError("cannot convert float infinity to integer")
        return comp

    monkeypatch.setattr(OpenAICompatBackend, "_read", flaky)
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream, retries=1)
    failed, answered = _split(store, res)
    assert len(failed) == res.errors == 5 and len(answered) == 45  # the 5 "repeat apple" prompts
    _errors_only(failed, "malformed response", "OverflowError")


def test_an_exception_out_of_a_backend_is_that_items_error(tmp_path: Path, make_server,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    srv = make_server()
    original = OpenAICompatBackend.generate

    async def broken(self: OpenAICompatBackend, prompt: Any, params: Any) -> Any:
        if "apple" in prompt.last_user_text():
            raise RecursionError("maximum recursion depth exceeded")
        return await original(self, prompt, params)

    monkeypatch.setattr(OpenAICompatBackend, "generate", broken)
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, False)
    failed, answered = _split(store, res)
    assert len(failed) == res.errors == 5 and len(answered) == 45
    _errors_only(failed, "internal error handling the response: RecursionError")
    assert (store.get_run(res.run_id) or {}).get("status") == "done-with-errors"


def test_a_backends_model_error_still_stops_the_run(tmp_path: Path, make_server,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``ModelError`` out of a backend is its word that the run cannot go on (a model that failed to load, every
    Ray worker lost): it stops the run, resumably, instead of becoming one item's error."""
    from reasoneval.models.base import ModelError

    srv = make_server()
    original = OpenAICompatBackend.generate

    async def dying(self: OpenAICompatBackend, prompt: Any, params: Any) -> Any:
        if "apple" in prompt.last_user_text():
            raise ModelError("the model is gone")
        return await original(self, prompt, params)

    monkeypatch.setattr(OpenAICompatBackend, "generate", dying)
    store = RunStore(tmp_path / "s.db")
    with pytest.raises(ModelError, match="the model is gone"):
        _run(store, srv.url, False)
    rows = store.db.execute("SELECT COUNT(*) FROM completions WHERE error IS NOT NULL").fetchone()[0]
    assert rows == 0  # nothing was stored as an item error
