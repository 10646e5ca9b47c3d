"""Display names: derived from the model string without endpoint, stored by `run --name`, changed by
`reasoneval rename`, never part of the run id; labels that tell same-named runs apart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reasoneval.report import collect
from reasoneval.report.collect import RunView
from reasoneval.report.labels import clean_name, default_display_name, display_name, labels_of_runs
from reasoneval.store.sqlite import RunStore

CORE_TESTS = Path(__file__).parents[1] / "core"  # the toy benchmark the CLI tests run


@pytest.mark.parametrize("model, name", [
    ("openai-compat/Qwen2.5-7B@http://127.0.0.1:18931/v1", "Qwen2.5-7B"),
    ("openai-compat/Qwen2.5-7B@http://a:1/v1,http://b:2/v1", "Qwen2.5-7B"),
    ("openai/gpt-4o", "gpt-4o"),
    ("hf/Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct"),
    ("vllm//models/meta-llama/Llama-3.1-8B-Instruct/", "Llama-3.1-8B-Instruct"),
    ("llamacpp//data/gguf/tiny-model.Q4_K_M.gguf", "tiny-model.Q4_K_M"),
    ("llamacpp/default", "llamacpp/default"),
    ("anthropic/claude-3-5-sonnet@localhost:8080", "claude-3-5-sonnet"),
    ("my-model", "my-model"),
    ("openai/name\x1b[31mred", "name?[31mred"),  # never a terminal control code
])
def test_default_display_name(model: str, name: str) -> None:
    assert default_display_name(model) == name


def test_stored_name_wins_and_is_cleaned() -> None:
    run = {"model": "openai-compat/x@http://h:1/v1", "spec": {"display_name": "  My model\x07 "}}
    assert display_name(run) == "My model?"
    assert display_name({"model": "openai-compat/x@http://h:1/v1", "spec": {"display_name": ""}}) == "x"
    assert display_name({"model": "openai/gpt-4o"}) == "gpt-4o"


def test_clean_name_refuses_what_cannot_be_a_label() -> None:
    assert clean_name("  Qwen 7B (ours) ") == "Qwen 7B (ours)"
    for bad, why in (("", "empty"), ("   ", "empty"), ("a\nb", "control"), ("x" * 121, "at most 120")):
        with pytest.raises(ValueError, match=why):
            clean_name(bad)


def _run(model: str, mode: str = "zero-shot", bench: str = "korbench", run_id: str = "r", **spec: Any
         ) -> dict[str, Any]:
    return {"run_id": run_id, "model": model, "mode": mode, "benchmark": bench, "subset": "*",
            "spec": {"options": {"scoring": "official"}, "params": {"temperature": None}, **spec}}


def test_labels_tell_same_named_runs_apart_by_what_differs() -> None:
    q1 = "openai-compat/Qwen2.5-7B@http://127.0.0.1:18931/v1"
    q2 = "openai-compat/Qwen2.5-7B@http://127.0.0.1:18932/v1"
    runs = [_run(q1, run_id="a1"), _run(q1, "three-shot", run_id="a2"),
            _run(q1, run_id="a3", options={"scoring": "corrected"}),
            _run(q1, run_id="a4", params={"temperature": 0.7}),
            _run(q2, run_id="a5", params={"temperature": 0.7}),
            _run("openai/gpt-4o", run_id="b1"), _run("openai/gpt-4o", bench="rbench", run_id="b2")]
    assert labels_of_runs(runs) == [
        "Qwen2.5-7B (zero-shot, official, temperature=null)", "Qwen2.5-7B (three-shot)",
        "Qwen2.5-7B (zero-shot, corrected)",
        "Qwen2.5-7B (zero-shot, official, temperature=0.7, 127.0.0.1:18931)",
        "Qwen2.5-7B (zero-shot, official, temperature=0.7, 127.0.0.1:18932)",
        "gpt-4o", "gpt-4o"]  # another benchmark: another table, no suffix needed
    assert labels_of_runs(runs[-2:], per_benchmark=False) == ["gpt-4o (korbench)", "gpt-4o (rbench)"]
    # nothing differs but the run: the run id
    assert labels_of_runs([_run(q1, run_id="abcdef123456"), _run(q1, run_id="fedcba654321")]) == [
        "Qwen2.5-7B (#abcdef12)", "Qwen2.5-7B (#fedcba65)"]
    # a stored name: two models named alike on purpose are still told apart
    named = [_run(q1, run_id="n1", display_name="ours"), _run("openai/gpt-4o", run_id="n2", display_name="ours")]
    labels = labels_of_runs(named)
    assert len(set(labels)) == 2 and all(lab.startswith("ours (") for lab in labels)


def test_tables_use_the_display_name() -> None:
    views = [RunView(_run("openai-compat/Qwen2.5-7B@http://h:18931/v1", run_id="r1"), [], [
        collect.Table("t", ["accuracy"], [[50.0]])], {}),
             RunView(_run("openai-compat/Qwen2.5-7B@http://h:18932/v1", run_id="r2"), [], [
                 collect.Table("t", ["accuracy"], [[60.0]])], {})]
    (t,) = collect.merge(views)
    assert [r[0] for r in t.rows] == ["Qwen2.5-7B", "Qwen2.5-7B"] and "run" in t.columns  # one model, two runs


def test_store_sets_and_resets_the_name_outside_the_run_id(tmp_path: Path) -> None:
    st = RunStore(tmp_path / "s.db")
    st.upsert_run("r1", "korbench", "*", "zero-shot", "openai/gpt-4o", {"model": "openai/gpt-4o"})
    assert st.set_display_name("r1", "GPT-4o (May)") is True
    assert st.set_display_name("nope", "x") is False
    (run,) = st.find_runs()
    assert run["run_id"] == "r1" and run["spec"] == {"model": "openai/gpt-4o", "display_name": "GPT-4o (May)"}
    st.set_display_name("r1", None)
    assert st.find_runs()[0]["spec"] == {"model": "openai/gpt-4o"}
    st.close()


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REASONEVAL_PLUGINS": "toybench",
           "PYTHONPATH": os.pathsep.join([str(CORE_TESTS), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env)


def test_run_name_and_rename_end_to_end(tmp_path: Path) -> None:
    from reasoneval.testing.procs import FakeServerProc

    server = FakeServerProc("--delay", "0.01")
    try:
        model = f"openai-compat/m@{server.url}"
        named = _cli("run", "toy:a", "--limit", "3", "--model", model, "--no-progress", "--name", "Toy 7B",
                     cwd=tmp_path)
        assert named.returncode == 0, named.stderr
        plain = _cli("run", "toy:b", "--limit", "3", "--model", model, "--no-progress", cwd=tmp_path)
        assert plain.returncode == 0, plain.stderr
        # the same command with another --name is the same run (resumed), renamed
        again = _cli("run", "toy:a", "--limit", "3", "--model", model, "--no-progress", "--name", "Toy 7B v2",
                     cwd=tmp_path)
        assert "(resumed)" in again.stderr
    finally:
        server.stop()
    runs = json.loads(_cli("runs", "--json", cwd=tmp_path).stdout)
    assert [(r["subset"], r["name"]) for r in runs] == [("a", "Toy 7B v2"), ("b", "m")]
    rid = runs[1]["run"]
    p = _cli("rename", rid[:6], "Toy base", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.strip() == f"run {rid}: 'm' -> 'Toy base'", p.stderr
    report = _cli("report", rid, cwd=tmp_path)
    rows = [line for line in report.stdout.splitlines() if line.startswith("│")]
    assert rows and all("Toy base" in line and server.url not in line for line in rows), report.stdout
    runs = json.loads(_cli("runs", "--json", cwd=tmp_path).stdout)
    assert runs[1]["run"] == rid and runs[1]["name"] == "Toy base" and runs[1]["model"] == model
    assert _cli("rename", rid, "--reset", cwd=tmp_path).returncode == 0
    assert json.loads(_cli("runs", "--json", cwd=tmp_path).stdout)[1]["name"] == "m"
    for args, msg in ((["rename", rid, "bad\x1bname"], "control characters"),
                      (["rename", "zzzz", "x"], "no run matching"),
                      (["rename", rid], "give a NAME"),
                      (["run", "toy:a", "--name", " ", "--model", model], "--name: a display name may not be empty")):
        p = _cli(*args, cwd=tmp_path)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and msg in lines[0], (args, p.stderr)
