"""``report`` reads its runs with the cyclic garbage collector paused (``runner.gcquiet.paused``: the rows are
acyclic, and the collections while they were made walked them again and again) and leaves it as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from report_fixtures import fill_store
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.report import collect
from reasoneval.runner.gcquiet import paused


def test_paused_restores_the_collector_as_it_was() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused():
        assert not gc.isenabled()
        raise RuntimeError("inside")
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # off before: still off
    finally:
        gc.enable()


def test_report_reads_the_runs_with_the_collector_paused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    st, _ = fill_store(tmp_path / "runs.db")
    st.close()
    seen: list[bool] = []
    view = collect.view

    def watched(*args: object, **kw: object) -> collect.RunView:
        seen.append(gc.isenabled())
        return view(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(collect, "view", watched)
    for extra in ([], ["--json"], ["--md", str(tmp_path / "r.md")]):
        res = CliRunner().invoke(app, ["report", "run_zero_1", "run_sc_2", "--store", str(tmp_path / "runs.db"),
                                       *extra])
        assert res.exit_code == 0, res.output
        assert gc.isenabled()
    assert seen == [False] * 6
