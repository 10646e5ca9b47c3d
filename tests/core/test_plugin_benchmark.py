"""A benchmark added from outside the package, in two files (a module and its entry-point declaration, as
``pip install`` of a package with ``[project.entry-points."reasoneval.benchmarks"]`` writes it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import reasoneval
from reasoneval.testing.procs import FakeServerProc

SRC = str(Path(reasoneval.__file__).resolve().parents[1])

MODULE = '''
from reasoneval.core.benchmark import Benchmark
from reasoneval.core.values import Item, Outcome, Prompt, Verdict
from reasoneval.scoring.extract import choice_letter

QUESTIONS = [("2+2?", {"A": "3", "B": "4"}, "B"), ("Capital of France?", {"A": "Paris", "B": "Rome"}, "A")]


class LetterBench(Benchmark):
    name = "letters"
    description = "two letter-choice questions"

    def subsets(self) -> list[str]:
        return ["all"]

    def modes(self) -> list[str]:
        return ["zero-shot"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return [Item("letters", "all", str(i), {"q": q, "options": o}, g) for i, (q, o, g) in enumerate(QUESTIONS)]

    def prompt(self, item: Item, mode: str) -> Prompt:
        opts = "\\n".join(f"{k}) {v}" for k, v in item.data["options"].items())
        return Prompt.chat(f"{item.data['q']}\\n{opts}\\nEnd with ANSWER: X")

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        got = choice_letter(text, "".join(item.data["options"]))
        if got is None:
            return Verdict(Outcome.UNANSWERABLE, None, "unextractable")
        return Verdict(Outcome.CORRECT if got == item.gold else Outcome.INCORRECT, got, "rule")
'''


def test_third_party_benchmark_in_two_files(tmp_path: Path) -> None:
    pkg = tmp_path / "site"
    (pkg / "letterbench-0.1.dist-info").mkdir(parents=True)
    (pkg / "letterbench.py").write_text(MODULE)  # file 1
    (pkg / "letterbench-0.1.dist-info" / "entry_points.txt").write_text(  # file 2
        "[reasoneval.benchmarks]\nletters = letterbench:LetterBench\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pkg), SRC])}  # this checkout's reasoneval
    env.pop("REASONEVAL_PLUGINS", None)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path, env=env)

    listed = cli("list")
    assert listed.returncode == 0 and "letters: two letter-choice questions" in listed.stdout
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"contains": "2+2?", "response": "ANSWER: B"}) + "\n"
                       + json.dumps({"contains": "France", "response": "<think>ANSWER: B</think>ANSWER: A"}) + "\n")
    srv = FakeServerProc("--answers", str(answers))
    try:
        r = cli("run", "letters", "--model", f"openai-compat/m@{srv.url}", "--no-progress", "--json")
    finally:
        srv.stop()
    assert r.returncode == 0, r.stderr
    table = next(t for t in json.loads(r.stdout)["tables"] if t["title"].startswith("letters"))
    overall = next(row for row in table["rows"] if "overall" in row)
    assert overall[overall.index("overall") + 2] == 100.0  # n=2, accuracy 100
