"""``reasoneval import`` of other harnesses' logs: lm-evaluation-harness ``--log_samples`` and inspect-ai logs.

The fixtures under ``tests/fixtures/harness_logs`` were written by the real tools
(``scripts/make_harness_fixtures.py``; versions in ``VERSIONS``): ten KOR-Bench Operation items, the even ones
answered with their gold, the odd ones with ``nothing``. Importing them scores each sample with our scorer.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core import registry
from reasoneval.core.values import Prompt
from reasoneval.runner.harness_logs import _member

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


# ---- imported runs say what they are (issue 32)
def lmeval_lines() -> tuple[Path, list[dict[str, Any]]]:
    (f,) = (FIX / "lm-eval" / "fake-chat").glob("samples_*.jsonl")
    return f, [json.loads(x) for x in f.read_text().split("\n") if x]


def write_lmeval(dest: Path, f: Path, lines: list[dict[str, Any]]) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for g in f.parent.iterdir():
        shutil.copy(g, dest / g.name)
    (dest / f.name).write_text("".join(json.dumps(x) + "\n" for x in lines))
    return dest


def inspect_samples() -> dict[str, dict[str, Any]]:
    with zipfile.ZipFile(FIX / "inspect" / "korbench_operation.eval") as z:
        return {n: json.loads(_member(z, n)) for n in z.namelist() if n.startswith("samples/")}


def write_inspect(dest: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """The fixture's .eval log with each sample changed (written as a JSON log, as ``--log-format json`` does)."""
    with zipfile.ZipFile(FIX / "inspect" / "korbench_operation.eval") as z:
        header = json.loads(_member(z, "header.json"))
    samples = list(inspect_samples().values())
    for s in samples:
        change(s)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "log.json").write_text(json.dumps({**header, "samples": samples}))
    return dest


def runs_json(store: Path) -> dict[str, dict[str, Any]]:
    return {r["run"]: r for r in json.loads(cli("runs", "--store", str(store), "--json"))}


def exported(store: Path, run: str, tmp: Path) -> dict[str, dict[str, Any]]:
    out = tmp / f"{run}.jsonl"
    cli("export", run, str(out), "--store", str(store))
    return {r["item"]: r for r in (json.loads(x) for x in out.read_text().split("\n") if x)}


@pytest.mark.parametrize("kind", ["lm-eval", "inspect"])
def test_the_harness_prompt_is_kept_and_the_run_says_where_it_came_from(kind: str, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    (run,) = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(store), "--json"))
    harness = "lm-eval" if kind == "lm-eval" else "inspect-ai"
    label = f"imported: {harness} task korbench_operation"
    assert run["protocol"] == label
    listed = runs_json(store)[run["run"]]
    assert listed["protocol"] == label and listed["mode"] == "zero-shot"
    assert label in cli("runs", "--store", str(store)).replace("\n", "")  # the table's mode column says it
    rows = exported(store, run["run"], tmp_path)
    item = registry.get("korbench").load("operation", "zero-shot")[0]
    # the fixture's harnesses sent "Operation item <id>. Reply with: ..." as one user message, not our prompt
    sent = rows[item.key]["prompt"]["messages"]
    assert sent == [{"role": "user", "content": f"Operation item {item.id}. Reply with: 24"}]
    report = cli("report", run["run"], "--store", str(store))
    assert f"({label})" in report
    # a run imported before runs recorded their protocol: importing the same files again labels it
    con = sqlite3.connect(store)
    spec = json.loads(con.execute("SELECT spec_json FROM runs").fetchone()[0])
    del spec["protocol"]
    con.execute("UPDATE runs SET spec_json=?", (json.dumps(spec),))
    con.commit()
    con.close()
    assert runs_json(store)[run["run"]]["protocol"] is None
    (again,) = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(store), "--json"))
    assert again["existed"] and runs_json(store)[run["run"]]["protocol"] == label


def test_unknown_latency_is_null_not_zero(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    (lm,) = json.loads(cli("import", "korbench", str(FIX / "lm-eval"), "--store", str(store), "--json"))
    (ins,) = json.loads(cli("import", "korbench", str(FIX / "inspect"), "--store", str(store), "--json"))
    con = sqlite3.connect(store)
    lat = dict(con.execute("SELECT run_id, group_concat(coalesce(latency_s, 'NULL'), ' ') FROM completions "
                           "GROUP BY run_id").fetchall())
    con.close()
    assert lat[lm["run"]].split() == ["NULL"] * 10  # lm-eval does not time its calls
    assert all(r["latency_s"] is None for r in exported(store, lm["run"], tmp_path).values())
    # inspect-ai does (output.time): that latency is kept
    times = {s["id"]: s["output"]["time"] for s in inspect_samples().values()}
    got = {k.split("/")[1]: r["latency_s"] for k, r in exported(store, ins["run"], tmp_path).items()}
    assert got == pytest.approx(times)


def test_latency_means_skip_unknown_latencies() -> None:
    from reasoneval.core.benchmark import ScoredRow, Turn
    from reasoneval.core.values import Completion, Outcome, Prompt, Verdict
    from reasoneval.report import reasoning

    def row(i: int, latency: float | None) -> ScoredRow:
        c = Completion("x", "stop", latency_s=latency, reasoning_tokens=5)
        return ScoredRow(f"s/{i}", "s", 0, [Turn(Prompt(), c, Verdict(Outcome.CORRECT))])

    def latency(rows: list[ScoredRow]) -> Any:
        main = reasoning.tables(rows)[0]
        return main.rows[0][main.columns.index("latency s")]

    assert latency([row(0, 2.0), row(1, None), row(2, 4.0)]) == 3.0  # not 2.0: the unknown one is no 0
    assert latency([row(0, None), row(1, None)]) == reasoning.NA


def test_a_log_whose_prompts_are_ours_is_our_protocol(tmp_path: Path) -> None:
    bench = registry.get("korbench")
    ours = {it.id: bench.prompt(it, "zero-shot") for it in bench.load("operation", "zero-shot")[:10]}
    f, lines = lmeval_lines()
    for n, x in enumerate(lines):
        msgs = json.dumps(ours[x["doc"]["idx"]].to_json()["messages"])
        # lm-eval 0.4's form and the older list form
        x["arguments"] = {"gen_args_0": {"arg_0": [msgs], "arg_1": {}}} if n % 2 else [[msgs, {"until": []}]]
    store = tmp_path / "s.db"
    src = write_lmeval(tmp_path / "lm" / "fake-chat", f, lines)
    (run,) = json.loads(cli("import", "korbench", str(src), "--store", str(store), "--json"))
    assert run["protocol"] is None
    assert runs_json(store)[run["run"]]["protocol"] is None
    assert "imported:" not in cli("runs", "--store", str(store))
    rows = exported(store, run["run"], tmp_path)
    assert {k.split("/")[1]: r["prompt"] for k, r in rows.items()} == {i: p.to_json() for i, p in ours.items()}

    def our_input(s: dict[str, Any]) -> None:  # inspect: the input as a list of chat messages
        s["input"] = [{"role": "user", "content": ours[s["id"]].last_user_text(), "source": "input"}]

    (ins,) = json.loads(cli("import", "korbench", str(write_inspect(tmp_path / "ins", our_input)), "--store",
                            str(store), "--json"))
    assert ins["protocol"] is None and ins["items"] == 10
    # one sample that is not ours makes the run another harness's
    lines[4]["arguments"] = {"gen_args_0": {"arg_0": "Question: what is 2+2?\nAnswer:", "arg_1": {}}}
    (mixed,) = json.loads(cli("import", "korbench", str(write_lmeval(tmp_path / "lm2" / "fake-chat", f, lines)),
                              "--store", str(store), "--json"))
    assert mixed["protocol"] == "imported: lm-eval task korbench_operation"
    got = exported(store, mixed["run"], tmp_path)
    assert [r["prompt"] for r in got.values() if "text" in r["prompt"]] == [{"text": "Question: what is 2+2?\nAnswer:"}]
    # the HTML report ranks the two protocols apart
    page = tmp_path / "r.html"
    cli("report", run["run"], mixed["run"], "--store", str(store), "--html", str(page))
    html = page.read_text()
    assert "Runs · zero-shot protocol" in html
    assert "Runs · imported: lm-eval task korbench_operation (as zero-shot) protocol" in html


@pytest.mark.parametrize("kind", ["lm-eval", "inspect"])
def test_import_name_is_the_display_name_and_never_a_second_run(kind: str, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    (plain,) = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(store), "--json"))
    assert not plain["existed"] and plain["name"] is None
    (a,) = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(store), "--json", "--name", "A"))
    assert a["run"] == plain["run"] and a["existed"] and a["name"] == "A"
    assert runs_json(store)[plain["run"]]["name"] == "A"
    out = runner.invoke(app, ["import", "korbench", str(FIX / kind), "--store", str(store), "--name", "B model"])
    assert out.exit_code == 0 and "already stored" in out.stdout and plain["run"] in out.stdout
    listed = runs_json(store)
    assert list(listed) == [plain["run"]] and listed[plain["run"]]["name"] == "B model"
    assert listed[plain["run"]]["model"] == "fake-chat"
    # a fresh store, named at once: the same run id, the name in its record
    (named,) = json.loads(cli("import", "korbench", str(FIX / kind), "--store", str(tmp_path / "t.db"), "--json",
                              "--name", "A"))
    assert named["run"] == plain["run"] and not named["existed"]
    assert runs_json(tmp_path / "t.db")[plain["run"]]["name"] == "A"
    bad = runner.invoke(app, ["import", "korbench", str(FIX / kind), "--store", str(store), "--name", " "])
    assert bad.exit_code == 2 and "--name" in bad.output


def test_a_wrong_target_is_refused_naming_the_first_sample_unless_forced(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    logic = registry.get("korbench").load("logic", "zero-shot")
    r = runner.invoke(app, ["import", "korbench", str(FIX / "lm-eval"), "--store", str(store),
                            "--as", "korbench:logic"])
    (f,) = (FIX / "lm-eval" / "fake-chat").glob("samples_*.jsonl")
    assert r.exit_code == 2, r.output
    msg = r.output.replace("\n", "")
    # the first sample (line 1, doc_id 0) maps to logic item "1": the log's answer vs the item's gold
    assert f"{f}:1 (doc_id 0)" in msg and "logic item '1'" in msg and "--as korbench:logic" in msg
    assert "answer '[[24]]'" in msg and str(logic[0].gold)[:20] in msg and "--force" in msg
    assert runs_json(store) == {}  # nothing stored
    forced = json.loads(cli("import", "korbench", str(FIX / "lm-eval"), "--store", str(store), "--json",
                            "--as", "korbench:logic", "--force"))
    assert forced[0]["items"] == 10 and forced[0]["run"] in runs_json(store)
    # inspect-ai: its sample's target and input
    r = runner.invoke(app, ["import", "korbench", str(FIX / "inspect"), "--store", str(store),
                            "--as", "korbench:logic:zero-shot"])
    assert r.exit_code == 2
    msg = r.output.replace("\n", "")
    # (the first sample in the log's order: samples/10_... comes before samples/1_...)
    assert "samples/10_epoch_1.json (sample id '10')" in msg and "target '[[1]]'" in msg, msg
    assert "input 'Operation item 10. Reply with: nothing'" in msg and "logic item '10'" in msg
    # a task name that maps to the wrong subset is refused the same way
    src = tmp_path / "renamed" / "fake-chat"
    src.mkdir(parents=True)
    for g in f.parent.iterdir():
        shutil.copy(g, src / g.name.replace("korbench_operation", "korbench_logic"))
    r = runner.invoke(app, ["import", "korbench", str(src), "--store", str(store)])
    assert r.exit_code == 2 and "the task name 'korbench_logic'" in r.output.replace("\n", "")


def test_the_mapping_check_is_robust_and_silent_without_fields(tmp_path: Path) -> None:
    f, lines = lmeval_lines()
    items = registry.get("korbench").load("operation", "zero-shot")
    # the gold inside a worked answer, other spacing and case: agrees
    for x, it in zip(lines, items, strict=False):
        x["doc"]["answer"] = f"We compute it step by step.\n####   {str(it.gold).upper()} "
    store = tmp_path / "s.db"
    (run,) = json.loads(cli("import", "korbench", str(write_lmeval(tmp_path / "a" / "m", f, lines)), "--store",
                            str(store), "--json"))
    assert run["items"] == 10
    # no answer field, the question inside the doc's question field: agrees
    for x, it in zip(lines, items, strict=False):
        del x["doc"]["answer"]
        x["doc"]["question"] = f"Q:  {it.data['question']}"
    (run,) = json.loads(cli("import", "korbench", str(write_lmeval(tmp_path / "b" / "m", f, lines)), "--store",
                            str(store), "--json"))
    assert run["items"] == 10
    r = runner.invoke(app, ["import", "korbench", str(tmp_path / "b"), "--store", str(store), "--as",
                            "korbench:logic"])
    assert r.exit_code == 2 and "question" in r.output
    # neither kind of field: no check is possible, a wrong --as is not refused (nothing to compare)
    for x in lines:
        x["doc"] = {"idx": x["doc"]["idx"]}
    (run,) = json.loads(cli("import", "korbench", str(write_lmeval(tmp_path / "c" / "m", f, lines)), "--store",
                            str(store), "--json", "--as", "korbench:logic"))
    assert run["items"] == 10


def test_harness_prompt_and_answer_forms() -> None:
    from reasoneval.runner.harness_match import _gold_agrees, inspect_prompt, lmeval_prompt

    assert lmeval_prompt([["Q: 1+1?\nA:", {"until": ["\n"]}]]) == Prompt.raw("Q: 1+1?\nA:")
    assert lmeval_prompt({"gen_args_0": {"arg_0": "plain", "arg_1": {}}}) == Prompt.raw("plain")
    chat = '[{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]'
    assert lmeval_prompt({"gen_args_0": {"arg_0": [chat]}}) == Prompt.chat("hi", system="be brief")
    assert lmeval_prompt({}) is None and lmeval_prompt(None) is None
    assert inspect_prompt("hi") == Prompt.chat("hi")
    assert inspect_prompt([{"role": "user", "content": [{"type": "text", "text": "h"}, {"type": "text", "text": "i"}]}]
                          ) == Prompt.chat("hi")
    assert _gold_agrees([1], ["B"]) and not _gold_agrees([2], ["B"])  # an answer index and a letter gold
    assert _gold_agrees(["the answer is 18."], ["18"]) and not _gold_agrees(["118"], ["18"])
