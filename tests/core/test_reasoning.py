"""Reasoning models first-class: controls in the run id, reasoning fields stored and exported, streaming and
thinking time, the papers' settings, the reasoning report, stores from before these columns."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import toybench  # noqa: F401

from reasoneval.core.values import Completion, GenParams, Prompt, Usage
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import SCHEMA, RunStore

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 180) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env={**os.environ, **(env or {})})


def _requests(port: int) -> list[dict]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/requests", timeout=5) as r:
        return json.loads(r.read())


def _export(tmp_path: Path, run_id: str, store: Path) -> list[dict]:
    out = tmp_path / f"{run_id}.jsonl"
    p = _cli("export", run_id, str(out), "--store", str(store), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def _run_id(stderr: str) -> str:
    return next(line.split()[1].rstrip(":") for line in stderr.splitlines() if line.startswith("run "))


# ---- GenParams: new controls in the identity, old identities unchanged


def test_default_params_serialise_as_before_so_old_run_ids_hold() -> None:
    old = {"max_tokens": 2000, "temperature": None, "top_p": None, "stop": [], "seed": None}
    assert GenParams().to_json() == old
    assert GenParams.from_json(old) == GenParams()
    spec = RunSpec("toy", None, "zero-shot", "m", GenParams(max_tokens=64))
    # the id a run made before these controls existed (its params dict had exactly the five old keys)
    from reasoneval.core.hashing import hash_obj

    before = {**spec.identity(), "params": {"max_tokens": 64, "temperature": None, "top_p": None, "stop": [],
                                            "seed": None}}
    assert spec.run_id() == hash_obj(before)[:12]


def test_each_control_changes_the_run_id_and_round_trips() -> None:
    base = GenParams(max_tokens=64)
    variants = [GenParams(max_tokens=64, reasoning_effort="high"), GenParams(max_tokens=64, system="Be brief."),
                GenParams(max_tokens=64, extra_body=GenParams.canonical_extra({"top_k": 20})),
                GenParams(max_tokens=64, top_p=0.9), GenParams(max_tokens=64, seed=3)]
    ids = {RunSpec("toy", None, "zero-shot", "m", p).run_id() for p in [base, *variants]}
    assert len(ids) == 1 + len(variants)
    for p in variants:
        assert GenParams.from_json(json.loads(json.dumps(p.to_json()))) == p
    # key order of --extra-body does not matter
    assert GenParams.canonical_extra('{"b": 1, "a": 2}') == GenParams.canonical_extra({"a": 2, "b": 1})
    with pytest.raises(ValueError):
        GenParams.canonical_extra("[1, 2]")


def test_system_prompt_goes_first() -> None:
    assert Prompt.chat("q").with_system("S").messages[0].content == "S"
    merged = Prompt.chat("q", system="T").with_system("S")
    assert [m.role for m in merged.messages] == ["system", "user"] and merged.messages[0].content == "S\n\nT"
    assert Prompt.raw("q").with_system("S").text == "S\n\nq"


# ---- store: new columns, old stores


def test_old_store_is_migrated_and_read_only_old_store_reads_null(tmp_path: Path) -> None:
    db_path = tmp_path / "old.db"
    db = sqlite3.connect(db_path)
    db.executescript(SCHEMA)  # the schema before reasoning columns
    db.execute("INSERT INTO completions VALUES ('r','k',0,0,'answer','s','{\"text\":\"q\"}','ck','hi','stop',"
               "1,2,0.5,NULL,0)")
    db.execute("INSERT INTO cache VALUES ('ck','hi','stop',1,2,0.5,0)")
    db.commit()
    db.close()
    ro = RunStore(db_path, readonly=True)
    (c,) = list(ro.completions("r"))
    assert (c.completion.text, c.completion.reasoning, c.completion.reasoning_tokens, c.completion.ttft_s) == (
        "hi", None, None, None)
    assert ro.cache_get("ck") is not None
    ro.db.close()
    st = RunStore(db_path)
    cols = {r[1] for r in st.db.execute("PRAGMA table_info(completions)")}
    assert {"reasoning", "reasoning_tokens", "ttft_s"} <= cols
    st.put_completion("r", "k2", 0, 0, "answer", "s", Prompt.raw("q"), "ck2",
                      Completion("ans", "stop", Usage(1, 9), 1.5, None, "because", 7, 0.25), cache=True)
    got = {c.item_key: c.completion for c in st.completions("r")}
    assert (got["k2"].reasoning, got["k2"].reasoning_tokens, got["k2"].ttft_s) == ("because", 7, 0.25)
    assert st.cache_get("ck2").reasoning == "because"  # type: ignore[union-attr]
    st.close()


# ---- end to end against a fake reasoning server


def test_reasoning_fields_streaming_and_controls_end_to_end(tmp_path: Path, make_server) -> None:
    srv = make_server("--reasoning-field", "reasoning_content", "--reasoning-tokens", "--stream",
                      "--think-delay", "0.2")
    store = tmp_path / "r.db"
    model = f"openai-compat/m@{srv.url}"
    common = ["run", "toy:a", "--limit", "3", "--model", model, "--store", str(store), "--no-progress"]
    p = _cli(*common, "--reasoning-effort", "high", "--system", "Think hard.", "--extra-body", '{"top_k": 20}',
             "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rid = _run_id(p.stderr)
    bodies = _requests(srv.port)
    assert bodies and all(b["reasoning_effort"] == "high" and b["top_k"] == 20 and b["stream"] is True
                          for b in bodies)
    assert all(b["messages"][0] == {"role": "system", "content": "Think hard."} for b in bodies)
    rows = _export(tmp_path, rid, store)
    assert len(rows) == 3
    for r in rows:
        assert r["reasoning"].startswith("Let me reason step by step")
        assert r["reasoning_tokens"] == len(r["reasoning"].split())
        assert "<think>" not in r["response"] and r["response"].endswith("]].")
        assert r["ttft_s"] >= 0.2 and r["latency_s"] >= r["ttft_s"]
        assert r["prompt"]["messages"][0]["role"] == "user"  # stored as the benchmark built it
    rep = json.loads(p.stdout)
    tables = {t["title"]: t for t in rep["tables"]}
    main = tables["Reasoning and thinking time"]
    row = dict(zip(main["columns"], main["rows"][0], strict=True))
    assert row["reasoning tokens"] == rows[0]["reasoning_tokens"] and row["thinking time s"] >= 0.2
    assert row["truncated %"] == 0.0
    assert "Thinking time by subset (s)" in tables and "Accuracy against reasoning tokens" in tables
    assert rep["runs"][0]["stats"]["mean_thinking_time_s"] >= 0.2
    assert rep["runs"][0]["stats"]["items_reasoning_2000_plus"] == 0
    # the run id changes with the controls; without them it is another run
    p2 = _cli(*common, cwd=tmp_path)
    assert p2.returncode == 0, p2.stderr
    assert _run_id(p2.stderr) != rid
    plain = _export(tmp_path, _run_id(p2.stderr), store)
    assert all("reasoning_effort" not in b for b in _requests(srv.port)[-3:])
    assert all(r["reasoning"] and r["ttft_s"] is not None for r in plain)


def test_non_streaming_server_and_rejected_stream_fall_back(tmp_path: Path, make_server) -> None:
    srv = make_server("--reasoning-field", "reasoning", "--reject-stream")
    store = tmp_path / "r.db"
    p = _cli("run", "toy:a", "--limit", "4", "--model", f"openai-compat/m@{srv.url}", "--store", str(store),
             "--no-progress", "--concurrency", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert srv.stats()["stream_rejected"] == 1  # asked once, then plainly
    rows = _export(tmp_path, _run_id(p.stderr), store)
    assert all(r["reasoning"] and r["ttft_s"] is None and r["reasoning_tokens"] is None for r in rows)
    assert all(r["verdict"]["outcome"] in ("correct", "incorrect") for r in rows)
    p = _cli("run", "toy:b", "--limit", "2", "--model", f"openai-compat/m@{srv.url}", "--store", str(store),
             "--no-progress", "--no-stream", cwd=tmp_path)
    assert p.returncode == 0 and srv.stats()["stream_rejected"] == 1


def test_inline_think_is_split_for_scoring_and_truncation_is_reported(tmp_path: Path, make_server) -> None:
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"contains": "river", "response": "<think>hmm [[pear]]</think> [[river]]"})
                       + "\n" + json.dumps({"contains": "stone", "response": "<think>still going"}) + "\n")
    srv = make_server("--answers", str(answers))
    store = tmp_path / "r.db"
    p = _cli("run", "toy:a", "--limit", "3", "--limit-mode", "first", "--model", f"openai-compat/m@{srv.url}",
             "--store", str(store), "--no-progress", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = {r["item"]: r for r in _export(tmp_path, _run_id(p.stderr), store)}
    assert rows["a/1"]["verdict"]["outcome"] == "correct"  # the answer after </think>, not the reasoning
    assert rows["a/2"]["verdict"]["method"] == "truncated"
    # the export's reasoning column holds inline reasoning too; the response stays exactly as returned
    assert rows["a/1"]["reasoning"] == "hmm [[pear]]" and rows["a/1"]["response"].startswith("<think>")
    assert rows["a/2"]["reasoning"] == "still going"
    plain = [r for k, r in rows.items() if k not in ("a/1", "a/2")]
    assert plain and all(r["reasoning"] is None for r in plain)  # nothing to split: null, not ""
    tables = {t["title"]: t for t in json.loads(p.stdout)["tables"]}
    assert "Reasoning and thinking time" in tables


# ---- the papers' settings


@pytest.mark.parametrize("target, extra, expect", [
    ("korbench:operation", [], "max_tokens=2000 temperature=0.0"),
    ("finereason", [], "max_tokens=2048 temperature=0.0"),
    ("rbench", ["--data", str(REPO / "tests/fixtures/rbench/hf")], "temperature=0.0"),
    ("general365", ["--data", str(REPO / "tests/fixtures/general365/e2e.jsonl")],
     "temperature=1.0 top_p=1.0 max_tokens=65536 reasoning_effort=high"),
])
def test_settings_paper_prints_applies_and_stores(tmp_path: Path, make_server, target: str, extra: list[str],
                                                  expect: str) -> None:
    srv = make_server()
    store = tmp_path / "s.db"
    p = _cli("run", target, "--limit", "1", "--settings", "paper", "--model", f"openai-compat/m@{srv.url}",
             "--store", str(store), "--no-progress", *extra, cwd=tmp_path)
    assert p.returncode in (0, 1), p.stderr
    line = next(x for x in p.stderr.splitlines() if x.startswith("settings paper:"))
    assert expect in line
    assert "note:" in p.stderr  # where the paper is silent, it says so
    run = RunStore(store, readonly=True).find_runs()[0]
    assert run["spec"]["settings"]["name"] == "paper"
    for kv in expect.split():
        k, v = kv.split("=")
        assert str(run["spec"]["params"][k]) == v
    body = _requests(srv.port)[0]  # what was applied is what was sent
    assert body["max_tokens"] == run["spec"]["params"]["max_tokens"]
    assert body.get("temperature") == run["spec"]["params"]["temperature"]


def test_flags_override_settings_and_unknown_settings_are_refused(tmp_path: Path) -> None:
    p = _cli("run", "korbench:operation", "--settings", "nosuch", cwd=tmp_path)
    assert p.returncode == 2 and "known: paper" in p.stderr
    from reasoneval.core.presets import presets_for
    from reasoneval.core.registry import get

    preset = presets_for(get("general365"))["paper"]
    got = preset.apply(GenParams(), {"temperature": 0.5, "seed": None})
    assert (got.temperature, got.top_p, got.reasoning_effort) == (0.5, 1.0, "high")


def test_response_view_takes_separate_reasoning() -> None:
    from reasoneval.runner.verdict_of import response_of

    r = response_of(Completion("The answer is [[river]].", "stop", reasoning="first [[pear]]"))
    assert (r.final, r.reasoning, r.truncated) == ("The answer is [[river]].", "first [[pear]]", False)
    inline = response_of(Completion("<think>a</think> [[x]]", "stop"))
    assert (inline.final, inline.reasoning) == ("[[x]]", "a")
    assert response_of(Completion("", "length", reasoning="cut off")).truncated
