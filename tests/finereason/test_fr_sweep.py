"""`reasoneval finereason sweep`: one recipe builds every mix of the r_m, r_u and sample-count sweeps, each with
a manifest (config, counts, sha256); the packaged paper recipe expands to the paper's grid."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from reasoneval.benchmarks.finereason.cli import app as fr_app
from reasoneval.benchmarks.finereason.sweep import load_recipe

RECIPE = """
math: math.jsonl
puzzles: [sudoku, game24]
seed: 5
defaults: {total: 20, math_ratio: 0.8, unsolvable_ratio: 0.5, sc_ratio: 0.5}
sweeps:
  math_ratio: {vary: {math_ratio: [0.4, 0.7, 0.8, 1.0]}}
  unsolvable_ratio: {set: {math_ratio: 0.6}, vary: {unsolvable_ratio: [0.0, 0.25, 1.0]}}
  scaling: {vary: {total: [10, 20], math_ratio: [0.8, 1.0]}}
"""


def sweep(tmp: Path, recipe: str = RECIPE, *args: str) -> Any:
    (tmp / "math.jsonl").write_text("".join(json.dumps({"query": f"{i} + {i}?", "response": f"The answer is: {2 * i}"})
                                            + "\n" for i in range(40)))
    (tmp / "recipe.yaml").write_text(recipe)
    return CliRunner().invoke(fr_app, ["sweep", str(tmp / "recipe.yaml"), str(tmp / "out"), *args])


def test_one_command_builds_every_mix_with_a_manifest(tmp_path: Path) -> None:
    res = sweep(tmp_path)
    assert res.exit_code == 0, res.output
    out = tmp_path / "out"
    index = json.loads((out / "index.json").read_text())
    assert [m["mix"] for m in index["mixes"]] == [
        "math_ratio/rm0.4", "math_ratio/rm0.7", "math_ratio/rm0.8", "math_ratio/rm1", "unsolvable_ratio/ru0", "unsolvable_ratio/ru0.25",
        "unsolvable_ratio/ru1", "scaling/n10-rm0.8", "scaling/n10-rm1", "scaling/n20-rm0.8", "scaling/n20-rm1"]
    for entry in index["mixes"]:
        data = (out / entry["file"]).read_bytes()
        man = json.loads((out / entry["file"].replace(".jsonl", ".manifest.json")).read_text())
        assert man["sha256"] == entry["sha256"] == hashlib.sha256(data).hexdigest()
        rows = [json.loads(line) for line in data.decode().splitlines()]
        cfg = man["config"]
        n_math = round(cfg["total"] * cfg["math_ratio"])
        n_uns = round((cfg["total"] - n_math) * cfg["unsolvable_ratio"])
        assert man["counts"]["total"] == len(rows) == cfg["total"]
        assert man["counts"]["by_source"].get("math", 0) == n_math == sum(r["source"] == "math" for r in rows)
        assert man["counts"]["by_label"].get("Unsolvable", 0) == n_uns
        assert set(man["counts"]["by_puzzle"]) <= {"sudoku", "game24"} and cfg["seed"] == 5
        assert man["math"]["files"][0]["sha256"] == hashlib.sha256((tmp_path / "math.jsonl").read_bytes()).hexdigest()
    u = json.loads((out / "unsolvable_ratio" / "ru0.25.manifest.json").read_text())
    assert u["config"]["math_ratio"] == 0.6 and u["counts"]["by_label"] == {"Solvable": 6, "Unsolvable": 2}
    # the same config in two sweeps is the same bytes; a rebuild is identical
    same = {m["mix"]: m["sha256"] for m in index["mixes"]}
    assert same["scaling/n20-rm0.8"] == same["math_ratio/rm0.8"] != same["math_ratio/rm0.7"]
    assert res.exit_code == 0 and sweep(tmp_path, RECIPE, "--only", "scaling").exit_code == 0
    again = json.loads((out / "index.json").read_text())
    assert {m["mix"]: m["sha256"] for m in again["mixes"]} == {k: v for k, v in same.items() if k.startswith("scaling")}


def test_recipe_errors_name_the_file_and_key(tmp_path: Path) -> None:
    bad = RECIPE.replace("unsolvable_ratio: [0.0", "unsolvable_ratio: [1.5")
    res = sweep(tmp_path, bad)
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'recipe.yaml'}: sweeps.unsolvable_ratio (ru1.5): unsolvable_ratio must be in [0, 1], got 1.5"]
    res = sweep(tmp_path, RECIPE.replace("total: [10, 20]", "totl: [10, 20]"))
    assert res.exit_code == 2 and "sweeps.scaling.vary: unknown knob 'totl'" in res.stderr
    res = sweep(tmp_path, RECIPE, "--only", "nope")
    assert res.exit_code == 2 and "no sweep nope; the recipe has math_ratio, scaling, unsolvable_ratio" in res.stderr


def test_packaged_paper_recipe_is_the_papers_grid() -> None:
    rec = load_recipe("paper")
    assert rec.math == "hub:metamathqa" and rec.puzzles == ["sudoku", "graphcoloring", "game24"]
    by = {m.key: m.config for m in rec.mixes}
    rm = [c.math_ratio for k, c in by.items() if k.startswith("math_ratio/")]
    assert rm == [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] and {c.total for k, c in by.items() if "math_ratio/" in k} == {10000}
    assert {c.math_ratio for k, c in by.items() if k.startswith("unsolvable_ratio/")} == {0.8}
    assert {c.total for k, c in by.items() if k.startswith("scaling/")} >= {5000, 7500, 12500}
    assert by["main/rm0.5"].total == 2000 and by["main/rm1"].math_ratio == 1.0
    res = CliRunner().invoke(fr_app, ["sweep", "paper", "unused", "--list", "--only", "math_ratio"])
    assert res.exit_code == 0 and res.stdout.splitlines()[0] == (
        "math_ratio/rm0.4: total 10000, math 4000, puzzle 6000 (r_m 0.4, r_u 0.5, sc 0.5, seed 0)")


def test_a_sweep_cut_short_resumes(tmp_path: Path) -> None:
    """Each mix and its manifest are written as they are built; a second run keeps the finished ones (file sha256
    checked), rebuilds the missing or changed ones to the same bytes and reuses the state pool it wrote."""
    assert sweep(tmp_path).exit_code == 0
    out = tmp_path / "out"
    first = {m["mix"]: m["sha256"] for m in json.loads((out / "index.json").read_text())["mixes"]}
    assert (out / "states-pool.jsonl").is_file()
    (out / "math_ratio" / "rm0.7.manifest.json").unlink()  # as if the sweep stopped before this one's manifest
    (out / "scaling" / "n10-rm1.jsonl").write_text("damaged\n")
    res = sweep(tmp_path)
    assert res.exit_code == 0, res.output
    kept = [line for line in res.stderr.splitlines() if "kept from an earlier run" in line]
    built = [line for line in res.stderr.splitlines() if " samples, sha256 " in line]
    assert len(kept) == len(first) - 2
    assert sorted(line.split(":")[0] for line in built) == ["math_ratio/rm0.7", "scaling/n10-rm1"]
    assert "puzzle states:" in res.stderr and "states-pool.jsonl" in res.stderr
    again = {m["mix"]: m["sha256"] for m in json.loads((out / "index.json").read_text())["mixes"]}
    assert again == first
