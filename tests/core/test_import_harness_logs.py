"""``reasoneval import`` of other harnesses' logs: lm-evaluation-harness ``--log_samples`` and inspect-ai logs.

The fixtures under ``tests/fixtures/harness_logs`` were written by the real tools
(``scripts/make_harness_fixtures.py``; versions in ``VERSIONS``): ten KOR-Bench Operation items, the even ones
answered with their gold, the odd ones with ``nothing``. Importing them scores each sample with our scorer.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval.cli import app

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "harness_logs"
runner = CliRunner()


def cli(*args: str, code: int = 0) -> str:
    r = runner.invoke(app, list(args))
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    return r.stdout


def outcomes(store: Path, run: str, tmp: Path) -> dict[str, str]:
    out = tmp / "x.jsonl"
    cli("export", run, str(out), "--store", str(store))
    rows = [json.loads(x) for x in out.read_text().split("\n") if x]
    return {r["item"]: r["verdict"]["outcome"] for r in rows}


def expected() -> dict[str, str]:
    from reasoneval.core import registry

    items = registry.get("korbench").load("operation", "zero-shot")[:10]
    return {it.key: ("correct" if n % 2 == 0 else "incorrect") for n, it in enumerate(items)}


@pytest.mark.parametrize("kind", ["lm-eval", "inspect"])
def test_a_harness_log_imports_and_scores(kind: str, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    got = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(store), "--json"))
    (run,) = got
    assert run["mode"] == "zero-shot" and run["items"] == 10
    assert run["model"] == ("fake-chat")
    assert outcomes(store, run["run"], tmp_path) == expected()
    again = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(store), "--json"))
    assert again[0]["existed"] and again[0]["run"] == run["run"]


def test_the_target_can_be_named_when_the_task_name_is_not_ours(tmp_path: Path) -> None:
    src = tmp_path / "logs" / "m"
    src.mkdir(parents=True)
    for f in (FIX / "lm-eval" / "fake-chat").iterdir():
        shutil.copy(f, src / f.name.replace("korbench_operation", "my_task"))
    r = runner.invoke(app, ["import", "korbench", str(src), "--store", str(tmp_path / "s.db")])
    assert r.exit_code == 1 and "--as korbench:SUBSET" in r.output
    got = json.loads(cli("import", "korbench", str(src), "--store", str(tmp_path / "s.db"), "--json",
                         "--as", "korbench:operation:zero-shot", "--name", "my-model"))
    assert got[0]["name"] == "my-model" and got[0]["model"] == "fake-chat" and got[0]["items"] == 10
    assert outcomes(tmp_path / "s.db", got[0]["run"], tmp_path) == expected()


def test_a_sample_that_matches_no_item_is_named(tmp_path: Path) -> None:
    src = tmp_path / "logs" / "m"
    src.mkdir(parents=True)
    (f,) = (FIX / "lm-eval" / "fake-chat").glob("samples_*.jsonl")
    lines = [json.loads(x) for x in f.read_text().split("\n") if x]
    lines[3]["doc"]["idx"] = "no-such-item"
    (src / f.name).write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = runner.invoke(app, ["import", "korbench", str(src), "--store", str(tmp_path / "s.db")])
    assert r.exit_code == 1
    assert f"{src / f.name}:4" in r.output and "no-such-item" in r.output
    assert "9 items" in r.stdout
