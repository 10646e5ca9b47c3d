"""The Python API (reasoneval.evaluate / evaluate_async / load_run): the same run id, figures and store as
`reasoneval run`, nothing on stdout, usable inside a running event loop."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

import reasoneval
from reasoneval.runner.launch import SpecError
from reasoneval.testing.procs import FakeServerProc


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=180, cwd=cwd)


def _cli_run(url: str, store: Path, *extra: str) -> dict[str, object]:
    p = _cli("run", "toy", "--model", f"openai-compat/fake@{url}", "--limit", "7", "--store", str(store),
             "--no-progress", "--temperature", "0.5", *extra, cwd=store.parent)
    assert p.returncode == 0, p.stderr[-2000:]
    q = _cli("runs", "--json", "--store", str(store), cwd=store.parent)
    assert q.returncode == 0, q.stderr
    (row,) = json.loads(q.stdout)
    return dict(row)


def test_evaluate_equals_the_cli(fake_server: FakeServerProc, tmp_path: Path,
                                 capfd: pytest.CaptureFixture[str]) -> None:
    cli_store, api_store = tmp_path / "cli.db", tmp_path / "api.db"
    row = _cli_run(fake_server.url, cli_store)
    capfd.readouterr()
    res = reasoneval.evaluate("toy", f"openai-compat/fake@{fake_server.url}", limit=7, store=api_store,
                              temperature=0.5)
    out = capfd.readouterr()
    assert out.out == ""  # no output unless asked
    assert res.run_id == row["run"]
    assert res.accuracy is not None and round(res.accuracy, 2) == row["accuracy"]
    assert res.answers == row["items"] and res.errors == row["errors"] == 0
    assert {k: v.answers for k, v in res.subsets.items()} == {"a": 7, "b": 7}
    assert 0 < res.correct < 14  # toy: every third gold is "wrong", the fake answers the last word
    assert res.this_call is not None and res.this_call["generated"] == 14
    answers = list(res.completions())
    assert len(answers) == 14 and sum(a.correct for a in answers) == res.correct
    assert all("The answer is [[" in a.text and a.outcome in ("correct", "incorrect") for a in answers)
    assert res.tables and res.tables[0].columns[:3] == ["subset", "n", "accuracy"]
    assert res.figures("eval/")["eval/a/accuracy"] == pytest.approx(100 * res.subsets["a"].correct / 7)

    # the CLI's store: the API resumes the CLI's run (same id, nothing asked again)
    again = reasoneval.evaluate("toy", f"openai-compat/fake@{fake_server.url}", limit=7, store=cli_store,
                                temperature=0.5)
    assert again.run_id == row["run"] and again.this_call is not None
    assert again.this_call["resumed"] and again.this_call["generated"] == 0
    loaded = reasoneval.load_run(row["run"][:6], store=cli_store)  # type: ignore[index]
    assert loaded.run_id == res.run_id and loaded.accuracy == res.accuracy and loaded.this_call is None


def test_evaluate_inside_a_running_loop(fake_server: FakeServerProc, tmp_path: Path) -> None:
    model = f"openai-compat/fake@{fake_server.url}"

    async def main() -> tuple[str, str]:
        a = await reasoneval.evaluate_async("toy:b", model, limit=3, store=tmp_path / "s.db")
        b = reasoneval.evaluate("toy:b", model, limit=3, store=tmp_path / "s.db")  # as a notebook cell would
        return a.run_id, b.run_id

    first, second = asyncio.run(main())
    assert first == second


def test_a_bad_request_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="unknown subset 'zz' of toy; known: a, b"):
        reasoneval.evaluate("toy:zz", "openai-compat/fake@http://127.0.0.1:9/v1", store=tmp_path / "s.db")
    with pytest.raises(SpecError, match="unknown toy option 'colour'"):
        reasoneval.evaluate("toy", "openai-compat/fake@http://127.0.0.1:9/v1", store=tmp_path / "s.db",
                            colour="red")
    assert not (tmp_path / "s.db").exists()  # nothing made for a request that cannot run


def test_import_reasoneval_is_cheap() -> None:
    code = "import sys, reasoneval; print(sorted(m for m in sys.modules if m.startswith('reasoneval')))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "['reasoneval']"
