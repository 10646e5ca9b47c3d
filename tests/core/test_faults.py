"""A fault-injecting server: every item ends completed or recorded as an error with its reason."""

from __future__ import annotations

import asyncio
from pathlib import Path

import toybench  # noqa: F401

from reasoneval.core import registry
from reasoneval.core.types import GenParams, Outcome
from reasoneval.models.openai_compat import HTTPOptions, OpenAICompatBackend
from reasoneval.report.collect import view
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


def _run(store: RunStore, url: str, retries: int, timeout: float = 1.0):
    bench = registry.get("toy")
    spec = RunSpec("toy", None, "zero-shot", f"openai-compat/fake@{url}", GenParams(max_tokens=32))
    backend = OpenAICompatBackend(spec.model, "fake", [url], None, 16,
                                  HTTPOptions(timeout_s=timeout, max_retries=retries, backoff_base_s=0.01,
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
