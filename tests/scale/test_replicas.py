"""Several OpenAI-compatible replicas behind one --model: one dies mid-run, nothing is lost or doubled."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import toybench  # noqa: F401  (registers "toy")

from reasoneval.core import registry
from reasoneval.core.values import GenParams
from reasoneval.models.openai_compat import from_spec
from reasoneval.report.collect import view
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore
from reasoneval.testing.fake_openai import answer_for

SAMPLES = 4  # 50 toy items x 4 samples = 200 requests


def _expected(prompt) -> str:
    return answer_for("\n".join(m.content for m in prompt.messages))


def test_replica_killed_mid_run_loses_and_doubles_nothing(tmp_path: Path, replicas) -> None:
    reps = [replicas("--delay", "0.1", "--capacity", "4") for _ in range(3)]
    spec = RunSpec("toy", None, "zero-shot", "openai-compat/fake@" + ",".join(r.url for r in reps),
                   GenParams(max_tokens=32), samples=SAMPLES)
    store = RunStore(tmp_path / "s.db")
    backend = from_spec(spec.model, 12)
    victim = backend.replicas[0]
    seen: dict[str, int] = {}

    async def killer() -> None:
        while victim.done < 15 or victim.outstanding == 0:  # kill it with requests in flight
            await asyncio.sleep(0.002)
        seen["in_flight_at_kill"] = victim.outstanding
        reps[0].proc.kill()  # SIGKILL: connections reset, in-flight requests never answered
        seen["done_at_kill"] = victim.done

    async def go():
        k = asyncio.create_task(killer())
        try:
            return await Runner(registry.get("toy"), spec, store, backend, concurrency=12,
                                progress=False).run()
        finally:
            k.cancel()
            await backend.aclose()

    res = asyncio.run(go())
    assert seen["in_flight_at_kill"] > 0  # the kill really interrupted requests
    assert res.errors == 0 and res.generated == res.units == 50 * SAMPLES

    rows = view(store, res.run_id).rows
    assert len(rows) == 50 * SAMPLES
    for r in rows:
        assert r.final.completion.error is None
        assert r.final.completion.text == _expected(r.final.prompt)
    db = sqlite3.connect(tmp_path / "s.db")
    n, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT item_key || '/' || sample || '/' || turn) "
                             "FROM completions").fetchone()
    assert n == distinct == 50 * SAMPLES

    stats = {s["url"]: s for s in backend.replica_stats()}
    dead = stats[reps[0].url]
    assert dead["failures"] >= seen["in_flight_at_kill"]
    # nothing answered after the kill but what was already on the wire
    assert dead["done"] <= seen["done_at_kill"] + seen["in_flight_at_kill"]
    # every request succeeded exactly once, somewhere
    assert sum(s["done"] for s in stats.values()) == 50 * SAMPLES
    for r in reps[1:]:
        s = stats[r.url]
        assert s["done"] > 0 and s["throughput_rps"] and s["throughput_rps"] > 0
        assert r.stats()["ok"] == s["done"]  # the server saw each of its successes once


def test_cli_reports_per_replica_throughput(tmp_path: Path, replicas) -> None:
    reps = [replicas("--delay", "0.02", "--capacity", "4") for _ in range(2)]
    model = "openai-compat/fake@" + ",".join(r.url for r in reps)
    out = subprocess.run([sys.executable, "-m", "reasoneval.cli", "run", "toy:a", "--model", model,
                          "--limit", "20", "--store", str(tmp_path / "s.db"), "--no-progress"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("replica ")]
    assert len(lines) == 2
    for r, ln in zip(reps, lines, strict=True):
        assert r.url in ln and "req/s" in ln
    assert sum(r.stats()["ok"] for r in reps) == 20
