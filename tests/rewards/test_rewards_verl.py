"""verl's compute_score on export rows converted with verl_row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rewardrows import as_model, export_rows, wrong

from reasoneval.rewards import compute_score, verl_row


def test_compute_score_on_verl_rows(mix_rows: list[dict[str, Any]]) -> None:
    rows = [verl_row(r, i) for i, r in enumerate(mix_rows)]
    assert {r["data_source"] for r in rows} == {"finereason", "math"}
    assert all(r["reward_model"]["style"] == "rule" and r["prompt"] == m["prompt"] for r, m in zip(rows, mix_rows,
                                                                                                    strict=True))
    for vr, row in zip(rows, mix_rows, strict=True):
        truth = vr["reward_model"]["ground_truth"]
        assert compute_score(vr["data_source"], as_model(row["answer"]), truth, vr["extra_info"]) == 1.0
        assert compute_score(vr["data_source"], wrong(row), truth) == 0.0
    with pytest.raises(ValueError, match="finereason ground_truth must be"):
        compute_score("finereason", "Answer: (A)", '{"task": "e2e"}')
    assert compute_score("openai/gsm8k", "... #### 18", "18") == 1.0


def test_export_format_verl(tmp_path: Path) -> None:
    rows = export_rows(tmp_path, "--total", "6", "--math-ratio", "0.5", "--puzzles", "game24", "--format", "verl")
    assert len(rows) == 6 and {r["ability"] for r in rows} == {"math", "puzzle"}
    assert [r["extra_info"]["index"] for r in rows] == list(range(6))
    for r in rows:
        assert compute_score(r["data_source"], as_model(r["extra_info"]["answer"]),
                             r["reward_model"]["ground_truth"]) == 1.0


LOADER = """
import importlib, importlib.util, os, sys
path, name = sys.argv[1], sys.argv[2]
# as verl's load_module does it: pkg:// is imported by name; a file (file:// or a path) is run from its
# location under a made-up module name, outside any package and not in sys.modules
if path.startswith("pkg://"):
    module = importlib.import_module(path[len("pkg://"):].replace("/", "."))
else:
    path = path[len("file://"):] if path.startswith("file://") else path
    spec = importlib.util.spec_from_file_location(f"custom_module_{hash(os.path.abspath(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
fn = getattr(module, name)
print(fn("math", "So it is 18.\\nThe answer is: 18", "18"), fn("math", "It is 17. The answer is: 17", "18"),
      fn("openai/gsm8k", "... #### 1/2", "0.5"))
"""


@pytest.mark.parametrize("how", ["path", "file://", "pkg://"])
def test_verl_loads_the_installed_file(how: str, tmp_path: Path) -> None:
    """verl's custom_reward_function.path: the installed file (its loader runs it outside the package, where a
    relative import fails) or pkg://reasoneval.rewards.verl; a fresh process, as a verl worker is."""
    import subprocess
    import sys

    import reasoneval.rewards.verl as entry

    where = {"path": entry.__file__, "file://": "file://" + entry.__file__, "pkg://": "pkg://reasoneval.rewards.verl"}
    (tmp_path / "load.py").write_text(LOADER, encoding="utf-8")
    p = subprocess.run([sys.executable, str(tmp_path / "load.py"), where[how], "compute_score"], capture_output=True,
                       text=True, timeout=180, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["1.0", "0.0", "1.0"]
