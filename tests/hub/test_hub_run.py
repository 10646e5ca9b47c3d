"""Acceptance: `reasoneval run rbench:t_en` downloads from the (fake) Hub, caches, runs, stores the revision;
a second run works with the Hub stopped and HF_HUB_OFFLINE=1."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

from hubdata import RBENCH

from reasoneval.testing.procs import FakeServerProc


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], env=env, capture_output=True,
                          text=True, timeout=300)


def _specs(db: str) -> list[dict]:
    with sqlite3.connect(db) as con:
        return [json.loads(r[0]) for r in con.execute("SELECT spec_json FROM runs ORDER BY created")]


def test_run_downloads_then_runs_offline(hub_env, tmp_path):
    server = FakeServerProc()
    db = str(tmp_path / "runs.db")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        model = f"openai-compat/x@{server.url}"
        first = _run(["run", "rbench:t_en", "--limit", "5", "--model", model, "--store", db, "--no-progress"], env)
        assert first.returncode == 0, first.stderr
        commit = hub_env.repos[RBENCH].refs["main"]
        assert hub_env.requests["get"] >= 1
        (spec,) = _specs(db)
        assert spec["data_version"].startswith(f"hf:R-Bench/R-Bench@{commit} (revision main); "
                                               "rbench-t_en/test-00000-of-00001.parquet sha256:")
        assert server.stats()["requests"] == 5

        hub_env.stop()
        off = {**env, "HF_HUB_OFFLINE": "1"}
        second = _run(["run", "rbench:t_en", "--limit", "5", "--mode", "no-cot", "--model", model, "--store", db,
                       "--no-progress"], off)
        assert second.returncode == 0, second.stderr
        specs = _specs(db)
        assert len(specs) == 2 and specs[1]["data_version"] == spec["data_version"]
        assert server.stats()["requests"] == 10  # the offline run really ran its 5 items
    finally:
        server.stop()


def test_run_offline_without_cache_fails_in_one_line(hub_env, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1"}
    res = _run(["run", "rbench:t_en", "--limit", "1", "--model", "openai-compat/x@http://127.0.0.1:9/v1",
                "--store", str(tmp_path / "r.db"), "--no-progress"], env)
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    assert "never been pulled" in res.stderr and "reasoneval data pull rbench" in res.stderr, res.stderr


def test_run_offline_flag_asks_the_hub_nothing(hub_env, tmp_path):
    """``run --offline`` (no HF_HUB_OFFLINE) with the Hub up and an empty cache: one line, no request."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = _run(["run", "rbench:t_en", "--offline", "--limit", "1", "--model", "openai-compat/x@http://127.0.0.1:9/v1",
                "--store", str(tmp_path / "r.db"), "--no-progress"], env)
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert "never been pulled" in res.stderr, res.stderr
    assert sum(hub_env.requests.values()) == 0
