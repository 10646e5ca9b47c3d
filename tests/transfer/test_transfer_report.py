"""FineReason's transfer report: runs of several checkpoints (base / math-only / mixed, a ratio sweep, a
scaling point) on the fake Hub and one scripted fake model, laid out as Tables 5, 7, 11, 12 and Figs. 6-7
with the paper's numbers beside ours; the CLI prints/writes them and refuses bad input in one line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from transferdata import GSM8K_TEST, MATH_TEST, MMLU_TEST, answers_file, checkpoint_answers

from reasoneval.benchmarks.finereason.transfer import Checkpoint, Measured, parse_label, tables
from reasoneval.benchmarks.mmlu.prompts import build_prompt
from reasoneval.core import registry
from reasoneval.core.values import GenParams
from reasoneval.models.openai_compat import from_spec
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.scoring.math_answer import boxed_cot_text
from reasoneval.store.sqlite import RunStore
from reasoneval.testing.procs import FakeServerProc

G, M, Q = "Gsm question ", "Math problem ", "Mmlu q"
CHECKPOINTS = {  # label -> (benchmarks run, tags answered right)
    "base": (("gsm8k", "math", "mmlu"), {G + "zero", M + "A", M + "B", Q + "0", Q + "1"}),
    "math-only": (("gsm8k", "math"), {G + "zero", G + "one", M + "A", M + "B", M + "C", M + "E"}),
    "mmlu-only": (("mmlu",), {Q + "0", Q + "1", Q + "3"}),
    "mixed": (("gsm8k", "math", "mmlu"), {G + "zero", G + "one", G + "two", M + "A", M + "B", M + "C", M + "D",
                                          M + "E", Q + "0", Q + "1", Q + "3", Q + "4"}),
    "mixed:rm=0.6": (("gsm8k",), {G + "zero"}),
    "mixed:ru=0.75": (("gsm8k",), {G + "zero", G + "two"}),
    "math-only:n=12.5k": (("gsm8k",), {G + "zero", G + "one"}),
    "mixed:n=12.5k": (("gsm8k",), {G + "zero", G + "one", G + "two", G + "three"}),
}


def _user_text(tag: str) -> str:
    """The user message of the item tagged ``tag`` (as the plugins build it)."""
    for r in GSM8K_TEST:
        if r["question"].startswith(tag):
            return boxed_cot_text(r["question"])
    for r in MATH_TEST:
        if r["problem"].startswith(tag):
            return boxed_cot_text(r["problem"])
    (r,) = [r for r in MMLU_TEST if r["question"].startswith(tag)]
    content = build_prompt(r["question"], r["choices"]).messages[0].content
    assert isinstance(content, str)
    return content


def _script() -> list[tuple[str, str]]:
    """One answer per (checkpoint, item): the checkpoint's name is its system message, which the fake server
    sees right before the user message."""
    return [(f"checkpoint {label}\n{_user_text(tag)}", answer) for label, (_, right) in CHECKPOINTS.items()
            for tag, answer in checkpoint_answers(right)]


def _run(store: RunStore, bench_name: str, url: str, label: str) -> str:
    bench = registry.create(bench_name)
    spec = RunSpec(bench_name, None, bench.default_mode, f"openai-compat/{label.replace(':', '-')}@{url}",
                   GenParams(max_tokens=1024, temperature=0.0, system=f"checkpoint {label}"),
                   options=bench.options, data_version=bench.data_version())
    backend = from_spec(spec.model, 8)

    async def go() -> str:
        try:
            return (await Runner(bench, spec, store, backend, concurrency=8, progress=False).run(False)).run_id
        finally:
            await backend.aclose()

    return asyncio.run(go())


@pytest.fixture
def checkpoint_runs(hub_env, tmp_path) -> tuple[Path, dict[str, dict[str, str]]]:
    server = FakeServerProc("--answers", answers_file(tmp_path / "answers.jsonl", _script()))
    db = tmp_path / "runs.db"
    store = RunStore(db)
    try:
        ids = {label: {b: _run(store, b, server.url, label) for b in benches}
               for label, (benches, _) in CHECKPOINTS.items()}
    finally:
        server.stop()
        store.close()
    return db, ids


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", "finereason", "transfer", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def _rows(doc: dict, title: str) -> list[list]:
    (t,) = [t for t in doc["tables"] if t["title"].startswith(title)]
    return t["rows"]


def test_transfer_tables_from_stored_runs(checkpoint_runs, tmp_path):
    db, ids = checkpoint_runs
    labels = [f"--label={label}={','.join(runs.values())}" for label, runs in ids.items()]
    md = tmp_path / "transfer.md"
    res = _cli("--store", str(db), *labels, "--md", str(md), "--json", "--plots", str(tmp_path / "figs"))
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)

    assert _rows(doc, "FineReason Table 5") == [
        ["1.5B", "base", "base", 25.0, None, 40.0, None],
        ["1.5B", "math-only", "math-only", 50.0, None, 80.0, None],
        ["1.5B", "mixed", "mixed", 75.0, None, 100.0, None],
        ["7B", "math-only", "(paper only)", None, 82.3, None, None],
        ["7B", "mixed", "(paper only)", None, 87.4, None, None]]
    assert _rows(doc, "FineReason Fig. 6") == [[0.6, "1.5B", "mixed", "mixed:rm=0.6", 25.0, None]]
    assert _rows(doc, "FineReason Fig. 7") == [[12500, "1.5B", 50.0, None, 100.0, 81.3]]
    assert _rows(doc, "FineReason Table 6") == [[0.75, "1.5B", "mixed", "mixed:ru=0.75", 50.0, None]]
    assert _rows(doc, "FineReason Table 7") == [["1.5B", "base", "base", 40.0, None],
                                                ["1.5B", "mmlu-only", "mmlu-only", 60.0, None],
                                                ["1.5B", "mixed", "mixed", 80.0, None]]
    # correct answers per level (base, math-only, mixed), the gain of mixed over math-only in %
    assert _rows(doc, "FineReason Table 11") == [["Level 1", 1, 1, 1, 1, 0.0, None],
                                                 ["Level 2", 1, 1, 1, 1, 0.0, None],
                                                 ["Level 3", 1, 0, 1, 1, 0.0, None],
                                                 ["Level 5", 2, 0, 1, 2, 100.0, None]]
    assert _rows(doc, "FineReason Table 12") == [["STEM", 50.0, 50.0, 100.0, 50.0, 10.0],
                                                 ["Humanities", 100.0, 100.0, 100.0, 0.0, None],
                                                 ["Social Sciences", 0.0, 0.0, 0.0, 0.0, 3.8],
                                                 ["Other", 0.0, 100.0, 100.0, 0.0, None]]
    overview = {r[0]: r for r in _rows(doc, "FineReason transfer: checkpoints")}
    assert overview["mixed:rm=0.6"][3] == 0.6 and overview["math-only:n=12.5k"][5] == 12500
    assert overview["mixed"][6].startswith(ids["mixed"]["gsm8k"])

    for fig in ("fig6.png", "fig7.png"):
        png = (tmp_path / "figs" / fig).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 5000

    text = md.read_text(encoding="utf-8")
    assert "### FineReason Table 5: math reasoning after training (accuracy %)" in text
    assert "| 7B | mixed | (paper only) |  | 87.40 |  |  |" in text
    assert "| 1.5B | mixed | mixed | 75.00 |  | 100.00 |  |" in text
    assert "Sec. 1 and Table 5" in text and "Empty paper cells" in text


def test_terminal_output_and_unlabelled_runs(checkpoint_runs):
    db, ids = checkpoint_runs
    res = _cli("--store", str(db), ids["base"]["gsm8k"], "--label", f"mixed@7B={ids['mixed']['gsm8k']}")
    assert res.returncode == 0, res.stderr
    assert "FineReason Table 5" in res.stdout and "87.40" in res.stdout and "75.00" in res.stdout
    assert "(unlabelled)" in res.stdout  # the base run without a label: listed, placed nowhere
    assert "FineReason Table 7" not in res.stdout and "FineReason Fig. 6" not in res.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--label", "mixed:rx=1=RUN"], "unknown key 'rx=1'"),
    (["--label", "mixed:rm=1.5=RUN"], "not a ratio in [0, 1]"),
    (["--label", "mixed"], "expected LABEL=RUN"),
    (["--label", "mixd=RUN"], "label 'mixd': unknown role 'mixd'; known: base, math-only, mmlu-only, mixed"),
    (["nosuchrun"], "no run matching 'nosuchrun'"),
])
def test_bad_input_is_one_line(checkpoint_runs, args, message):
    db, ids = checkpoint_runs
    real = ids["mixed"]["gsm8k"]
    res = _cli("--store", str(db), *[a.replace("RUN", real) for a in args])
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and message in res.stderr, res.stderr


def test_two_runs_of_one_benchmark_in_a_checkpoint_are_refused(checkpoint_runs):
    db, ids = checkpoint_runs
    res = _cli("--store", str(db), "--label", f"mixed={ids['mixed']['gsm8k']},{ids['base']['gsm8k']}")
    assert res.returncode == 2 and "has two gsm8k runs" in res.stderr


def test_labels():
    assert parse_label("mixed@7b:rm=0.8,n=10k") == Checkpoint("mixed@7b:rm=0.8,n=10k", "mixed", "7B", 0.8, None,
                                                                10000)
    assert parse_label("math-only").main and not parse_label("mixed:ru=0.5").main
    assert parse_label("mixed:n=2000").main
    for bad in ("", "@7B", "mixed:n=0", "mixed:n=1.5", "mixed@big"):
        with pytest.raises(ValueError):
            parse_label(bad)


def test_no_layout_without_a_placed_checkpoint():
    only = [Measured(Checkpoint("some-model", "(unlabelled)"))]
    assert [t.title for t in tables(only)] == ["FineReason transfer: checkpoints and their runs"]

