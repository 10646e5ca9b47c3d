"""Issue 25 point 8: ``--limit N`` draws a seeded sample that keeps the release's label and category shares;
the first N stay available with ``--limit-mode first``; the draw is part of the run id."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import toybench  # noqa: F401  (registers "toy")

from reasoneval.core import registry
from reasoneval.core.hashing import hash_obj
from reasoneval.core.values import GenParams
from reasoneval.models.openai_compat import from_spec
from reasoneval.runner.engine import Runner, load_items
from reasoneval.runner.sample import allocate, limit_items
from reasoneval.runner.score_stored import spec_of
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


def _spec(subset: str | None, limit: int | None, **kw: object) -> RunSpec:
    return RunSpec("finereason", subset, "state-checking", "m", GenParams(max_tokens=8), limit=limit, **kw)  # type: ignore[arg-type]


def test_game24_first_100_are_all_solvable_the_sample_is_balanced() -> None:
    b = registry.get("finereason")
    first = load_items(b, _spec("game24", 100, limit_mode="first"))
    sample = load_items(b, _spec("game24", 100))
    assert Counter(i.gold for i in first) == {"Solvable": 100}  # why first-N is no default
    assert Counter(i.gold for i in sample) == {"Solvable": 50, "Unsolvable": 50}
    assert [i.key for i in first] == [i.key for i in b.load("game24", "state-checking")[:100]]


def test_sample_keeps_the_label_share_of_each_subset() -> None:
    b = registry.get("finereason")
    got = Counter((i.subset, i.gold) for i in load_items(b, _spec(None, 50)))
    assert got[("gridpuzzle", "Solvable")] + got[("gridpuzzle", "Unsolvable")] == 50
    assert got[("gridpuzzle", "Solvable")] == round(50 * 94 / 500)  # 9 of 50, as 94 of 500
    for p in ("sudoku", "graphcoloring", "game24"):
        assert got[(p, "Solvable")] == got[(p, "Unsolvable")] == 25


def test_korbench_sample_keeps_every_rule() -> None:
    k = registry.get("korbench")
    spec = RunSpec("korbench", "cipher", "zero-shot", "m", GenParams(max_tokens=8), limit=50)
    assert Counter(Counter(i.data["rule_id"] for i in load_items(k, spec)).values()) == {2: 25}


def test_seeded_reproducible_nested_and_in_release_order() -> None:
    b = registry.get("finereason")
    release = [i.key for i in b.load("sudoku", "state-checking")]
    a = [i.key for i in load_items(b, _spec("sudoku", 40, limit_seed=7))]
    assert a == [i.key for i in load_items(b, _spec("sudoku", 40, limit_seed=7))]
    assert a != [i.key for i in load_items(b, _spec("sudoku", 40, limit_seed=8))]
    assert a == sorted(a, key=release.index)
    prev: set[str] = set()
    for n in (1, 5, 13, 40, 41, 200):
        cur = {i.key for i in load_items(b, _spec("sudoku", n, limit_seed=7))}
        assert len(cur) == n and prev <= cur  # a larger limit reuses the smaller one's items (and cache)
        prev = cur


def test_allocation_is_proportional_and_monotone() -> None:
    rng = random.Random(1)
    for _ in range(200):
        sizes = [rng.randint(0, 30) for _ in range(rng.randint(1, 6))]
        total = sum(sizes)
        prev = [0] * len(sizes)
        for n in range(total + 2):
            take = allocate(sizes, n, random.Random(0))
            assert sum(take) == min(n, total) and all(0 <= t <= s for t, s in zip(take, sizes, strict=True))
            assert all(t >= p for t, p in zip(take, prev, strict=True))
            if total and n <= total:  # within one item of the exact share
                assert all(abs(t - n * s / total) <= 1 + 1e-9 for t, s in zip(take, sizes, strict=True))
            prev = take
    with pytest.raises(ValueError, match="unknown limit mode 'middle'"):
        limit_items([1, 2, 3], 2, "middle")


def test_run_identity() -> None:
    plain = _spec("sudoku", None)
    assert "limit_sample" not in plain.identity()  # runs without a limit keep their ids
    first = _spec("sudoku", 10, limit_mode="first")
    old_id = hash_obj({k: v for k, v in _spec("sudoku", 10).identity().items() if k != "limit_sample"})[:12]
    assert first.run_id() == old_id  # --limit-mode first is what --limit meant before: same id as then
    ids = {_spec("sudoku", 10).run_id(), _spec("sudoku", 10, limit_seed=1).run_id(), first.run_id(),
           _spec("sudoku", 11).run_id()}
    assert len(ids) == 4
    assert _spec("sudoku", 10, limit_mode="first", limit_seed=5).run_id() == first.run_id()  # seed unused
    # stored records read back with the same draw; a record from before the sample existed took the first N
    for spec in (_spec("sudoku", 10, limit_seed=3), first, plain):
        back = spec_of({"spec": spec.record(spec.data_version, "pv")})
        assert (back.limit_mode if spec.limit else "", back.limit_seed, back.run_id()) == (
            spec.limit_mode if spec.limit else "", spec.limit_seed if spec.limit_mode == "sample" else 0,
            spec.run_id())
    old_record = {k: v for k, v in _spec("sudoku", 10).record("dv", "pv").items() if k != "limit_sample"}
    assert spec_of({"spec": old_record}).limit_mode == "first"


def test_stored_run_records_the_draw(tmp_path: Path, fake_server) -> None:  # type: ignore[no-untyped-def]
    store = RunStore(tmp_path / "s.db")
    bench = registry.get("toy")
    spec = RunSpec("toy", "a", "zero-shot", f"openai-compat/fake@{fake_server.url}", GenParams(max_tokens=8),
                   limit=4, limit_seed=2)
    backend = from_spec(spec.model, 4)

    async def go():  # type: ignore[no-untyped-def]
        try:
            return await Runner(bench, spec, store, backend, concurrency=4, progress=False).run()
        finally:
            await backend.aclose()

    res = asyncio.run(go())
    run = store.get_run(res.run_id)
    assert run is not None and run["spec"]["limit_sample"] == {"mode": "sample", "seed": 2, "version": 1}
    back = spec_of(run)  # how `score` and `export` re-read it: the same draw
    assert (back.limit, back.limit_mode, back.limit_seed) == (4, "sample", 2)
    keys = {c.item_key for c in store.completions(res.run_id, "answer")}
    assert keys == {it.key for it in load_items(bench, back)} == {it.key for it in load_items(bench, spec)}
    assert len(keys) == 4


def test_unknown_limit_mode_is_one_line(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "reasoneval.cli", "run", "toy:a", "--limit", "3", "--limit-mode",
                        "middle", "--model", "openai-compat/m@http://127.0.0.1:9/v1"], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert p.returncode == 2
    (line,) = [x for x in p.stderr.splitlines() if x.strip()]
    assert line == "error: unknown --limit-mode 'middle': sample or first"


def test_report_tells_samples_apart() -> None:
    from reasoneval.core.benchmark import Table
    from reasoneval.report.collect import RunView, merge

    def v(seed: int) -> RunView:
        spec = _spec("sudoku", 10, limit_seed=seed)
        run = {"run_id": spec.run_id(), "model": "m", "mode": spec.mode, "subset": "sudoku",
               "spec": spec.record("dv", "pv")}
        return RunView(run, [], [Table("t", ["acc"], [[50.0]])], {})

    (t,) = merge([v(1), v(2)])
    assert t.columns == ["model", "limit_sample", "acc"]
    assert ["'seed': 1" in str(r[1]) for r in t.rows] == [True, False]
