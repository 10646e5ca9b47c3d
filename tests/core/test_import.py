"""``reasoneval import``: outside completions become runs that every analysis reads.

On the KOR-Bench release's raw outputs (``shared/data/korbench-outputs``): one run per model and mode, the
release's model names, verdicts identical to ``rescore --jsonl`` of the same files item by item, a re-import is
a no-op, ``score`` keeps the numbers (the run's own stored golds), ``export`` rows carry ``category/idx`` and
``verdict.outcome``, and another scoring or other file content is another run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval.cli import app

runner = CliRunner()


def cli(*args: str, code: int = 0) -> str:
    r = runner.invoke(app, list(args))
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    return r.stdout


@pytest.fixture
def two_models(korbench_outputs: Path, tmp_path: Path) -> Path:
    d = tmp_path / "outputs"
    d.mkdir()
    for f in sorted((korbench_outputs / "main").glob("*.jsonl")):
        if f.name.startswith(("gpt-4o_", "Meta-Llama-3.1-8B_")):
            shutil.copy(f, d / f.name)
    assert len(list(d.iterdir())) == 10
    return d


def lines(text: str) -> list[str]:
    """JSON lines (not str.splitlines: a response may hold U+2028 and other line breaks of Unicode)."""
    return [x for x in text.split("\n") if x]


def runs(store: Path) -> list[dict]:
    return json.loads(cli("runs", "--store", str(store), "--json"))


def exported(store: Path, run: str, tmp: Path) -> dict[str, dict]:
    out = tmp / f"{run}.jsonl"
    cli("export", run, str(out), "--store", str(store))
    return {r["item"]: r for r in map(json.loads, lines(out.read_text()))}


def test_import_stores_one_run_per_model_and_mode_with_rescore_verdicts(two_models: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    cli("import", "korbench", str(two_models), "--store", str(store))
    got = {(r["model"], r["mode"]): r for r in runs(store)}
    assert set(got) == {("gpt-4o", "zero-shot"), ("Meta-Llama-3.1-8B", "three-shot")}
    assert all(r["items"] == 1250 and r["status"] == "complete" for r in got.values())
    # the release recorded no generation parameters: none are stored as if known
    from reasoneval.store.sqlite import RunStore

    st = RunStore(store, readonly=True)
    assert all(r["spec"]["params"] == {} and r["spec"]["params_unknown"] for r in st.find_runs())

    # item by item, the verdicts rescore gives for the same files
    recs = [json.loads(x) for x in lines(cli("rescore", "korbench", str(two_models), "--jsonl"))]
    want = {(x["model"], f"{x['category']}/{x['idx']}"): x["correct"] for x in recs}
    assert len(want) == 2500
    for (model, _mode), r in got.items():
        rows = exported(store, r["run"], tmp_path)
        assert len(rows) == 1250
        for key, row in rows.items():
            assert (row["verdict"]["outcome"] == "correct") == want[(model, key)], (model, key)
        # the run's accuracy is the rescore accuracy
        assert r["accuracy"] == round(100 * sum(want[(model, k)] for k in rows) / 1250, 2)
    # the release's prompts are kept (chat for zero-shot, raw text for three-shot)
    row = exported(store, got[("gpt-4o", "zero-shot")]["run"], tmp_path)["logic/1"]
    assert row["prompt"]["messages"] and "logical reasoning" in row["prompt"]["messages"][-1]["content"]
    row = exported(store, got[("Meta-Llama-3.1-8B", "three-shot")]["run"], tmp_path)["logic/1"]
    assert row["prompt"]["text"]
    # the release did not time its calls: the latency is unknown (null), not 0.0
    assert row["latency_s"] is None


def test_reimport_is_a_noop_and_other_scoring_or_content_is_another_run(two_models: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    first = json.loads(cli("import", "korbench", str(two_models), "--store", str(store), "--json"))
    again = json.loads(cli("import", "korbench", str(two_models), "--store", str(store), "--json"))
    assert [r["run"] for r in again] == [r["run"] for r in first]
    assert all(r["existed"] for r in again) and not any(r["existed"] for r in first)
    assert all(len(r["files"]) == 5 and all(len(f["sha256"]) == 64 for f in r["files"]) for r in first)
    assert len(runs(store)) == 2

    corrected = json.loads(cli("import", "korbench", str(two_models), "--store", str(store), "--json",
                               "--scoring", "corrected"))
    assert not {r["run"] for r in corrected} & {r["run"] for r in first}
    assert len(runs(store)) == 4

    f = two_models / "gpt-4o_logic_zero-shot.jsonl"
    recs = [json.loads(x) for x in lines(f.read_text())]
    recs[0]["response"] = "[[nothing]]"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    changed = json.loads(cli("import", "korbench", str(two_models), "--store", str(store), "--json"))
    by_model = {r["model"]: r for r in changed}
    assert by_model["gpt-4o"]["run"] not in {r["run"] for r in first}
    assert by_model["Meta-Llama-3.1-8B"]["existed"]


def test_score_on_an_imported_run_uses_the_golds_it_was_imported_with(two_models: Path, tmp_path: Path) -> None:
    """A release record's gold that differs from the packaged data stays the gold of the imported run."""
    f = two_models / "gpt-4o_operation_zero-shot.jsonl"
    recs = [json.loads(x) for x in lines(f.read_text())]
    recs[0]["answer"] = "[[12345]]"
    recs[0]["response"] = "so [[12345]]"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    store = tmp_path / "s.db"
    cli("import", "korbench", str(two_models), "--store", str(store))
    run = next(r for r in runs(store) if r["model"] == "gpt-4o")
    key = f"operation/{recs[0]['idx']}"
    before = exported(store, run["run"], tmp_path)
    assert before[key]["verdict"]["outcome"] == "correct"
    assert before[key]["gold"] == "[[12345]]"
    runner.invoke(app, ["score", run["run"], "--store", str(store)])
    after = exported(store, run["run"], tmp_path)
    assert {k: r["verdict"]["outcome"] for k, r in after.items()} == {
        k: r["verdict"]["outcome"] for k, r in before.items()}
    assert next(r for r in runs(store) if r["model"] == "gpt-4o")["accuracy"] == run["accuracy"]


def test_self_correction_rounds_are_stored_as_turns(korbench_outputs: Path, tmp_path: Path) -> None:
    src = sorted((korbench_outputs / "self-correction").glob("*.jsonl"))[:1]
    assert src
    store = tmp_path / "s.db"
    cli("import", "korbench", str(src[0]), "--store", str(store))
    (run,) = runs(store)
    rows = [json.loads(x) for x in (lambda p: (cli("export", run["run"], str(p), "--store", str(store)),
                                                p.read_text())[1])(tmp_path / "sc.jsonl").split("\n") if x]
    turns = {r["item"]: r["turn"] for r in rows}
    assert max(turns.values()) >= 1  # some item needed more than one round
    recs = [json.loads(x) for x in lines(cli("rescore", "korbench", str(src[0]), "--jsonl"))]
    final = {f"{x['category']}/{x['idx']}": x["correct"] for x in recs}
    last = {}
    for r in rows:
        if r["turn"] == turns[r["item"]]:
            last[r["item"]] = r["verdict"]["outcome"] == "correct"
    assert last == final


def test_import_of_a_missing_path_or_a_file_with_bad_rows(tmp_path: Path) -> None:
    r = runner.invoke(app, ["import", "korbench", str(tmp_path / "nope"), "--store", str(tmp_path / "s.db")])
    assert r.exit_code == 2 and "no such file" in r.output
    bad = tmp_path / "m_logic_zero-shot.jsonl"
    bad.write_text('{"idx": "1", "rule_id": "1", "answer": "[[x]]", "response": "[[x]]"}\n{not json\n')
    r = runner.invoke(app, ["import", "korbench", str(bad), "--store", str(tmp_path / "s.db")])
    assert r.exit_code == 1
    assert f"{bad}:2" in r.output
    (run,) = runs(tmp_path / "s.db")  # the good row is stored
    assert run["items"] == 1 and run["model"] == "m"
