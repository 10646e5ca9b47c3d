"""Rewards called from stdin (`python - <<EOF`) and from a script without an `if __name__ == "__main__":` guard:
right values, and the caller's top-level code runs exactly once (the sandbox workers are clean interpreters of
our own module, never the caller's __main__)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rewardrows import as_model, columns, wrong

SCRIPT = """
import json, os, sys
with open(os.environ["COUNT_FILE"], "a") as f:   # top-level code, no __main__ guard
    f.write("ran\\n")
from reasoneval.rewards import finereason_reward, math_reward
rows = json.load(open(os.environ["ROWS_FILE"]))
cols = {k: [r[k] for r in rows["rows"]] for k in rows["rows"][0] if k != "prompt"}
out = {
    "math": math_reward(completions=["So 7.\\nThe answer is: 7", "\\\\boxed{\\\\frac{1}{2}}", "It is 9"],
                        gold=["7", "0.5", "8"]),
    "right": finereason_reward(completions=rows["right"], **cols),
    "wrong": finereason_reward(completions=rows["wrong"], **cols),
}
print("RESULT " + json.dumps(out))
"""


def _payload(tmp: Path, mix_rows: list[dict[str, Any]]) -> dict[str, str]:
    rows = mix_rows[:12]
    assert {r["task"] for r in rows} >= {"math", "state_checking"}
    data = {"rows": rows, "right": [as_model(a) for a in columns(rows)["answer"]], "wrong": [wrong(r) for r in rows]}
    (tmp / "rows.json").write_text(json.dumps(data), encoding="utf-8")
    env = dict(os.environ, COUNT_FILE=str(tmp / "count.txt"), ROWS_FILE=str(tmp / "rows.json"))
    return env


def _check(p: subprocess.CompletedProcess[str], tmp: Path, n: int) -> None:
    assert p.returncode == 0, p.stderr[-3000:]
    (line,) = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
    got = json.loads(line[len("RESULT "):])
    assert got == {"math": [1.0, 1.0, 0.0], "right": [1.0] * n, "wrong": [0.0] * n}
    assert (tmp / "count.txt").read_text() == "ran\n"  # the top-level code ran once, in the caller alone


@pytest.mark.parametrize("how", ["stdin", "unguarded-script"])
def test_rewards_from_stdin_and_unguarded_script(how: str, tmp_path: Path, mix_rows: list[dict[str, Any]]) -> None:
    env = _payload(tmp_path, mix_rows)
    if how == "stdin":
        cmd, stdin = [sys.executable, "-"], SCRIPT
    else:
        script = tmp_path / "train.py"
        script.write_text(SCRIPT, encoding="utf-8")
        cmd, stdin = [sys.executable, str(script)], None
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    _check(p, tmp_path, 12)


def test_workers_never_import_the_callers_main(tmp_path: Path) -> None:
    """A worker's modules: ours and what the task needs, not the caller's script (nor what it imported)."""
    script = tmp_path / "caller.py"
    script.write_text(
        "import sys, json\n"
        "import colorsys  # something the caller imports and no worker needs\n"
        "from reasoneval.scoring.sandbox import SandboxPool\n"
        "from reasoneval.testing.sandbox_probe import loaded_modules\n"
        "with SandboxPool(1, memory_limit_mb=None) as pool:\n"
        "    mods = pool.call(loaded_modules)\n"
        "print(json.dumps(mods))\n", encoding="utf-8")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    mods = json.loads(p.stdout)
    assert mods["main"] == "reasoneval.scoring.sandbox_worker"  # __main__ (and multiprocessing's alias) is ours
    assert "colorsys" not in mods["modules"] and "caller" not in mods["modules"]
