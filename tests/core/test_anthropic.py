"""anthropic/<model> against a local fake of the Messages API: thinking -> reasoning, streaming, retries,
the key only from the environment and never stored."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from reasoneval.core.values import GenParams, Prompt
from reasoneval.models.anthropic import AnthropicBackend, thinking_budget
from reasoneval.models.base import ModelError
from reasoneval.models.http_backend import HTTPOptions
from reasoneval.testing.procs import FakeServerProc

KEY = "sk-ant-test-0123456789abcdef"


@pytest.fixture
def fake_anthropic():
    made: list[FakeServerProc] = []

    def make(*args: str) -> FakeServerProc:
        s = FakeServerProc(*args, module="reasoneval.testing.fake_anthropic")
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()


def _requests(srv: FakeServerProc) -> list[dict]:
    with urllib.request.urlopen(f"http://127.0.0.1:{srv.port}/requests", timeout=5) as r:
        return json.loads(r.read())


def _generate(srv: FakeServerProc, prompt: Prompt, params: GenParams, **opts: object):
    async def go():
        b = AnthropicBackend("anthropic/claude-x", "claude-x", f"http://127.0.0.1:{srv.port}", KEY, 4,
                             HTTPOptions(backoff_base_s=0.01, **opts))  # type: ignore[arg-type]
        try:
            return await b.generate(prompt, params)
        finally:
            await b.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("stream", [False, True])
def test_thinking_maps_to_reasoning(fake_anthropic, stream: bool) -> None:
    srv = fake_anthropic("--stream", "--think-delay", "0.2")
    c = _generate(srv, Prompt.chat("repeat river", system="Be exact."),
                  GenParams(max_tokens=4000, reasoning_effort="high", temperature=1.0), stream=stream)
    assert c.error is None, c.error
    assert c.text.endswith("[[river]].") and c.reasoning and c.reasoning.startswith("I should look")
    assert c.finish_reason == "stop" and c.usage.prompt_tokens > 0 and c.usage.completion_tokens > 0
    assert c.reasoning_tokens is None  # the API does not report thinking tokens apart
    assert (c.ttft_s is not None and c.ttft_s >= 0.2) if stream else c.ttft_s is None
    (body,) = _requests(srv)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 3200}
    assert body["system"] == "Be exact." and body["messages"] == [{"role": "user", "content": "repeat river"}]
    assert body["_key_len"] == len(KEY) and body["_version"] and body.get("stream", False) is stream


def test_extra_body_thinking_wins_and_overload_is_retried(fake_anthropic) -> None:
    srv = fake_anthropic("--faults", "529,429")
    c = _generate(srv, Prompt.raw("repeat stone"),
                  GenParams(max_tokens=3000, reasoning_effort="low",
                            extra_body=GenParams.canonical_extra({"thinking": {"type": "enabled",
                                                                               "budget_tokens": 1500}})))
    assert c.error is None and c.reasoning
    reqs = _requests(srv)
    assert len(reqs) == 3 and reqs[-1]["thinking"]["budget_tokens"] == 1500
    assert reqs[-1]["messages"] == [{"role": "user", "content": "repeat stone"}]


def test_budget_rules() -> None:
    assert thinking_budget("low", 2000) == 1024 and thinking_budget("medium", 10000) == 5000
    with pytest.raises(ModelError):
        thinking_budget("high", 1024)
    with pytest.raises(ModelError):
        thinking_budget("extreme", 100000)


def test_cli_run_key_from_environment_only(tmp_path: Path, fake_anthropic) -> None:
    srv = fake_anthropic("--stream")
    store = tmp_path / "a.db"
    env = {**os.environ, "REASONEVAL_PLUGINS": "toybench", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{srv.port}"}
    env.pop("ANTHROPIC_API_KEY", None)
    cmd = [sys.executable, "-m", "reasoneval.cli", "run", "toy:a", "--limit", "3", "--model", "anthropic/claude-x",
           "--store", str(store), "--no-progress", "--max-tokens", "3000", "--reasoning-effort", "medium"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert p.returncode == 2 and "ANTHROPIC_API_KEY" in p.stderr
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={**env, "ANTHROPIC_API_KEY": KEY})
    assert p.returncode == 0, p.stderr
    out = tmp_path / "x.jsonl"
    rid = next(line.split()[1].rstrip(":") for line in p.stderr.splitlines() if line.startswith("run "))
    assert subprocess.run([sys.executable, "-m", "reasoneval.cli", "export", rid, str(out), "--store", str(store)],
                          cwd=tmp_path, env=env, capture_output=True).returncode == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 3 and all(r["reasoning"] and r["ttft_s"] is not None for r in rows)
    assert all(KEY.encode() not in f.read_bytes() for f in tmp_path.glob("a.db*"))
