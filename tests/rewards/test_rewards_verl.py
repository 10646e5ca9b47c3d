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
