"""Acceptance: a recipe builds a small R-Bench-style set (options -> difficulty -> reasoning tokens -> cap)
through a fake server, writes a manifest, re-runs from the cache, and `reasoneval run rbench --data` reads it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.benchmarks.rbench.build_options import NONE_CORRECT, arrange, choose
from reasoneval.builder.rows import read_rows

SEED = 7
QUESTIONS = [  # id, answer, distractors the writer proposes, subject, words of the strong model's reasoning
    ("q1", "11 m", ["11.2 m", "15 m", "20 m", "30 m", "40 m"], "Mechanics", 12),
    ("q2", "22 m", ["10 m", "15 m", "30 m", "44 m"], "Mechanics", 12),
    ("q3", "33 m", ["10 m", "15 m", "20 m", "44 m"], "Mechanics", 2),
    ("q4", "44 m", ["10 m", "15 m", "20 m", "33 m"], "Mechanics", 12),
    ("q5", "55 s", ["10 s", "15 s", "20 s", "33 s"], "Optics", 12),
    ("q6", "66 m", ["66.5 m", "66.1 m", "70 m", "90 m"], "Optics", 12),  # too close: rejected
]


def _question(i: str) -> str:
    return f"A block slides in case {i}zeta. How far does it go?"


def _script() -> list[tuple[str, str]]:
    writer = [(f"Reference answer:\n{ans}", json.dumps({"correct": ans, "distractors": ds}))
              for _, ans, ds, _, _ in QUESTIONS]
    strong = [(f"case {i}zeta", "<think>" + " ".join(["step"] * words) + "</think>ANSWER: A")
              for i, _, _, _, words in QUESTIONS]
    return writer + strong  # first match wins: the writer's prompts carry "Reference answer:"


def _write_inputs(tmp: Path, url: str) -> Path:
    (tmp / "questions.jsonl").write_text("".join(json.dumps(
        {"id": i, "question": _question(i), "answer": ans, "department": "Physics", "subject": subj}) + "\n"
        for i, ans, _, subj, _ in QUESTIONS), encoding="utf-8")
    recipe = tmp / "recipe.yaml"
    recipe.write_text(f"""
name: rbench-next-test
input: questions.jsonl
file: rbench-t_en.jsonl
output: out
store: build.db
steps:
  - step: options
    model: openai-compat/writer@{url}
    seed: {SEED}
  - step: difficulty
    target: rbench:t_en
    models: [openai-compat/strong@{url}]
    max_pass: 0.5
    max_tokens: 256
  - step: reasoning
    target: rbench:t_en
    model: openai-compat/strong@{url}
    min_tokens: 5
    max_tokens: 256
  - step: cap
    field: subject
    max: 1
    seed: 3
""", encoding="utf-8")
    return recipe


def _expected_after_difficulty() -> list[str]:
    """Rows whose correct letter is not A (the strong model always answers A) and whose options survived."""
    keep = []
    for i, ans, ds, _, _ in QUESTIONS:
        kept, _ = choose(ans, ds, "en", 0.05)
        if len(kept) < 4:
            continue
        _, letter = arrange(i, ans, kept, "en", SEED)
        if letter != "A":
            keep.append(i)
    return keep


def test_recipe_builds_rbench_set_and_run_reads_it(tmp_path: Path, scripted_server) -> None:
    srv = scripted_server(_script(), "--reasoning-field", "reasoning_content", "--reasoning-tokens")
    recipe = _write_inputs(tmp_path, srv.url)
    runner = CliRunner()
    r = runner.invoke(cli.app, ["build", "recipe", str(recipe)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    out = tmp_path / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    steps = {s["step"]: s for s in manifest["steps"]}

    opts = read_rows(Path(steps["options"]["output"]))
    assert [o["id"] for o in opts] == ["q1", "q2", "q3", "q4", "q5"]
    assert "q6" in steps["options"]["report"]["rejected"]
    q1 = opts[0]
    assert sorted(q1["options"]) == list("ABCDEF")
    assert NONE_CORRECT["en"] in q1["options"].values()
    assert "11.2 m" not in q1["options"].values()  # within 5% of the answer: dropped
    assert q1["options"][q1["answer"]] == "11 m"

    after_diff = [o["id"] for o in read_rows(Path(steps["difficulty"]["output"]))]
    assert after_diff == _expected_after_difficulty()
    assert 0 < len(after_diff) < 5  # the seed puts some answers on A: the test means something
    rep = steps["reasoning"]["report"]
    assert rep["token_source"] == "reasoning_tokens"
    after_reason = [o["id"] for o in read_rows(Path(steps["reasoning"]["output"]))]
    assert after_reason == [i for i in after_diff if i != "q3"]  # q3's reasoning is 2 words
    final = read_rows(out / "rbench-t_en.jsonl")
    subjects = [o["subject"] for o in final]
    assert len(subjects) == len(set(subjects))  # one per subject
    assert manifest["outputs"]["rbench-t_en.jsonl"]
    assert manifest["inputs"][str(tmp_path / "questions.jsonl")]
    assert steps["difficulty"]["runs"][0]["model"].startswith("openai-compat/strong@")
    assert steps["options"]["params"]["seed"] == SEED
    # the hashes chain: sha256sum of each step's input file (the recipe's input, then the previous output)
    chain = [hashlib.sha256((tmp_path / "questions.jsonl").read_bytes()).hexdigest()]
    for s in manifest["steps"]:
        assert s["input_sha256"] == chain[-1], s["step"]
        assert s["output_sha256"] == hashlib.sha256(Path(s["output"]).read_bytes()).hexdigest()
        chain.append(s["output_sha256"])
    assert manifest["outputs"]["rbench-t_en.jsonl"] == chain[-1]

    # the same recipe again: nothing is asked again, the same files come out
    before = srv.stats()["requests"]
    r2 = runner.invoke(cli.app, ["build", "recipe", str(recipe)], catch_exceptions=False)
    assert r2.exit_code == 0, r2.output
    assert srv.stats()["requests"] == before
    again = json.loads((out / "manifest.json").read_text())
    assert again["outputs"] == manifest["outputs"]
    assert all(run["generated"] == 0 for s in again["steps"] for run in s["runs"])

    # the built file is an R-Bench data file
    r3 = runner.invoke(cli.app, ["run", "rbench:t_en", "--data", str(out / "rbench-t_en.jsonl"), "--model",
                                 f"openai-compat/strong@{srv.url}", "--store", str(tmp_path / "eval.db"),
                                 "--no-progress", "--json", "--max-tokens", "256"], catch_exceptions=False)
    assert r3.exit_code == 0, r3.output
    assert f"{len(final)} items" in r3.output


def test_missing_dependencies_stop_before_any_model_call(tmp_path: Path, monkeypatch, scripted_server) -> None:
    """A step that needs what is not installed (dedup: MiniLM, torch) fails the recipe at once, naming the step
    and what to install, before the options step asks the writer anything."""
    from reasoneval.builder import steps as S

    srv = scripted_server(_script())
    recipe = _write_inputs(tmp_path, srv.url)
    recipe.write_text(recipe.read_text() + "  - step: dedup\n    threshold: 0.9\n", encoding="utf-8")
    real = S.missing
    monkeypatch.setattr(S, "missing", lambda needs: real([S.Need(f"no_such_module_{n.module}", n.install)
                                                          for n in needs]))
    import reasoneval.builder.recipe as R

    monkeypatch.setattr(R, "missing", S.missing)
    r = CliRunner().invoke(cli.app, ["build", "recipe", str(recipe)])
    assert r.exit_code != 0
    assert "step 5 (dedup) needs no_such_module_torch" in r.output and "reasoneval[diversity]" in r.output
    assert srv.stats().get("requests", 0) == 0
    assert not (tmp_path / "out" / "work").exists()
