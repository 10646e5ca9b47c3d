"""The embedded engine runs out of process: a native crash becomes errors on the items, never a dead harness."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.models import llamacpp
from reasoneval.store.sqlite import RunStore

FAKE = "reasoneval.testing.fake_engine:FakeEngine"


def _run(tmp_path: Path, *extra: str):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"not used by the fake engine")
    args = ["run", "toy:a", "--model", f"llamacpp/{gguf}", "--store", str(tmp_path / "s.db"), "--no-progress",
            "--json", *extra]
    return CliRunner().invoke(cli.app, args, catch_exceptions=False)


def _rows(tmp_path: Path) -> list[tuple[str, int, int, str | None]]:
    st = RunStore(tmp_path / "s.db")
    (run,) = st.find_runs()
    return [(c.item_key, c.sample, c.turn, c.completion.error) for c in st.completions(run["run_id"])]


@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL])
def test_engine_crash_mid_run_is_recorded_and_resumable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       sig: signal.Signals) -> None:
    counter = tmp_path / "calls"
    monkeypatch.setattr(llamacpp, "ENGINE", FAKE)
    monkeypatch.setattr(llamacpp, "ENGINE_OPTIONS", {"answer": "[[apple]]", "crash_at": 5, "signal": int(sig),
                                                     "counter": str(counter)})
    r = _run(tmp_path)
    assert r.exit_code == 1, r.output
    assert f"embedded engine died: signal {int(sig)} ({sig.name})" in r.stderr
    assert "--retry-errors" in r.stderr
    rows = _rows(tmp_path)
    assert len(rows) == 30  # every item stored: 29 answers and the one the crash took
    errors = [e for *_, e in rows if e]
    assert errors == [f"embedded engine died: signal {int(sig)} ({sig.name})"]
    # the report still came out, with the failure excluded from accuracy
    rep = json.loads(r.stdout)
    assert rep["runs"][0]["stats"]["errors"] == 1

    # re-running with --retry-errors asks only the failed item and completes the run, nothing duplicated
    monkeypatch.setattr(llamacpp, "ENGINE_OPTIONS", {"answer": "[[apple]]", "counter": str(counter)})
    r2 = _run(tmp_path, "--retry-errors")
    assert r2.exit_code == 0, r2.output
    assert int(counter.read_text()) == 31  # 30 first time (one crashed), exactly one more now
    rows2 = _rows(tmp_path)
    assert len(rows2) == 30 and len({(k, s, t) for k, s, t, _ in rows2}) == 30
    assert not [e for *_, e in rows2 if e]


def test_engine_that_keeps_crashing_stops_quickly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = tmp_path / "calls"
    monkeypatch.setattr(llamacpp, "ENGINE", FAKE)
    monkeypatch.setattr(llamacpp, "ENGINE_OPTIONS", {"crash_at": 3, "crash_every": True,
                                                     "counter": str(counter)})
    r = _run(tmp_path)
    assert r.exit_code == 1, r.output
    # 2 answers, then 3 deaths (two restarts); the other 25 items fail at once without a new engine
    assert int(counter.read_text()) == 5
    errors = [e for *_, e in _rows(tmp_path) if e]
    assert len(errors) == 28
    assert sum("not restarted after 3 deaths" in e for e in errors) == 25
    assert "25 x embedded engine died: signal 11 (SIGSEGV) (not restarted after 3 deaths)" in r.stderr
    assert "3 x embedded engine died: signal 11 (SIGSEGV)" in r.stderr


def test_engine_that_dies_while_loading_is_one_clear_line(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp, "ENGINE", FAKE)
    monkeypatch.setattr(llamacpp, "ENGINE_OPTIONS", {"fail_load": True, "signal": int(signal.SIGSEGV)})
    r = _run(tmp_path)
    assert r.exit_code == 2
    lines = [x for x in r.stderr.splitlines() if x.startswith("error: ")]
    assert lines == ["error: embedded engine died while loading: signal 11 (SIGSEGV)"]
