"""The training mix at the paper's sizes: the state pool is topped up when instances equal to released ones (or a
generator that runs short) leave a label below its need, so every total and ratio the paper uses builds.

The sizing logic is tested fast with a stand-in generator (deterministic records, a share of them on released
instances, some repeated across draws); one small real export checks the whole path, and
bench/finereason_mix_sizes.py runs a full paper-size export."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from reasoneval.benchmarks.finereason import export as E
from reasoneval.benchmarks.finereason.engines.base import SOLVABLE, UNSOLVABLE
from reasoneval.benchmarks.finereason.export import MixConfig, build_mix, label_needs, training_states

RELEASED_EVERY = 9  # one instance in 9 is "released" (dropped), as Game of 24's small instance space does


def _fake_generate(calls: list[tuple[str, int, int]]) -> Any:
    def generate(puzzle: str, n: int, seed: int = 0, progress: Any = None, **_: Any) -> list[dict[str, Any]]:
        calls.append((puzzle, n, seed))
        rng = random.Random(f"{puzzle}-{seed}")
        out = []
        for i in range(n):
            inst = rng.randrange(4000)  # instances repeat across draws: top-ups must not take a state twice
            out.append({"inputs": {"initial": inst, "initial_state": inst, "graph": inst, "chromatic_number": 3,
                                   "current": i % 2},
                        "outputs": {"current_status": SOLVABLE if i % 2 == 0 else UNSOLVABLE}})
        if progress is not None:
            progress(len(out))
        return out

    return generate


@pytest.fixture
def fake_states(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    calls: list[tuple[str, int, int]] = []
    monkeypatch.setattr(E, "generate_states", _fake_generate(calls))
    monkeypatch.setattr(E, "_released_keys", lambda puzzle: {json.dumps([i], sort_keys=True) for i in
                                                             range(0, 4000, RELEASED_EVERY)}
                        | {json.dumps([i, 3], sort_keys=True) for i in range(0, 4000, RELEASED_EVERY)})
    monkeypatch.setattr(E, "puzzle_sample", lambda puzzle, task, rec: {
        "source": "finereason", "puzzle": puzzle, "task": task, "label": rec["outputs"]["current_status"],
        "state": json.dumps(rec["inputs"], sort_keys=True)})
    monkeypatch.setattr(E, "math_sample", lambda item: {"source": "math", "label": None})  # sizes, not texts
    return calls


MATH = [{"question": f"q{i}", "answer": f"The answer is: {i}"} for i in range(10_000)]


@pytest.mark.parametrize("total", [1000, 2500, 7500, 10000])
def test_every_paper_total_and_ratio_builds(total: int, fake_states: list[tuple[str, int, int]]) -> None:
    topped_up = 0
    for rm, ru in itertools.product([0.2, 0.4, 0.5, 0.6, 0.8], [0.2, 0.5, 0.8]):
        cfg = MixConfig(total, rm, ru, 0.5, seed=3)
        fake_states.clear()
        pool = training_states(cfg)
        topped_up += len({seed for _, _, seed in fake_states}) > 3  # rounds after the first draw
        have = {lab: sum(r["outputs"]["current_status"] == lab for rs in pool.values() for r in rs)
                for lab in (SOLVABLE, UNSOLVABLE)}
        need = label_needs(cfg)
        assert all(have[lab] >= need[lab] for lab in need), (cfg, have, need)
        for puzzle, recs in pool.items():  # no state twice, none on a released instance
            idents = [json.dumps(r["inputs"], sort_keys=True) for r in recs]
            assert len(idents) == len(set(idents)), puzzle
            assert all(r["inputs"]["initial"] % RELEASED_EVERY for r in recs)
        mix = build_mix(MATH, pool, cfg)
        n_math = round(total * rm)
        assert len(mix) == total and sum(m["source"] == "math" for m in mix) == n_math
        labels = [m["label"] for m in mix if m["source"] == "finereason"]
        assert labels.count(UNSOLVABLE) == need[UNSOLVABLE] and labels.count(SOLVABLE) == need[SOLVABLE]
    assert topped_up > 0  # the stand-in's drops did make the first draw short: the top-up was exercised


def test_the_first_draw_is_what_it_was(fake_states: list[tuple[str, int, int]]) -> None:
    """A pool the first draw fills is made by exactly the calls it always was (same mixes as before)."""
    cfg = MixConfig(100, 0.5, 0.5, 0.5, seed=2)
    E.states_pool(E.per_label_need(cfg), cfg.seed, needs={SOLVABLE: 1, UNSOLVABLE: 1})
    assert fake_states == [("sudoku", 17, 2000), ("graphcoloring", 17, 2001), ("game24", 17, 2002)]


def test_a_pool_that_stays_short_names_the_shortfall(monkeypatch: pytest.MonkeyPatch,
                                                      fake_states: list[tuple[str, int, int]]) -> None:
    monkeypatch.setattr(E, "_released_keys", lambda puzzle: {json.dumps([i], sort_keys=True) for i in range(4000)}
                        | {json.dumps([i, 3], sort_keys=True) for i in range(4000)})
    with pytest.raises(ValueError, match=r"could not draw enough fresh puzzle states .* need 50 Solvable, have 0"):
        training_states(MixConfig(200, 0.5, 0.5))


def test_progress_counts_up_to_the_need(fake_states: list[tuple[str, int, int]]) -> None:
    seen: list[tuple[int, int]] = []
    training_states(MixConfig(1000, 0.2, 0.5), progress=lambda done, total: seen.append((done, total)))
    assert seen and all(t == 800 for _, t in seen) and seen[-1][0] == 800
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_real_export_at_1000_default_ratios(tmp_path: Path) -> None:
    """The issue's failing case at its smallest (1,000 samples, r_m 0.8): real states, released ones dropped."""
    from typer.testing import CliRunner

    from reasoneval.benchmarks.finereason.cli import app

    math = tmp_path / "m.jsonl"
    math.write_text("".join(json.dumps({"query": f"q{i}", "response": f"The answer is: {i}"}) + "\n"
                            for i in range(900)), encoding="utf-8")
    res = CliRunner().invoke(app, ["export", str(math), "--total", "1000"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert len(rows) == 1000 and sum(r["source"] == "finereason" for r in rows) == 200
