"""What a run holds in memory does not grow with its size: units are started as slots free up, the progress
history is bounded by time, the generated-key set is a fixed-size bit set, stored rows are read in batches."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest
import toybench  # noqa: F401  (registers "toy")

from reasoneval.core import registry
from reasoneval.core.values import Completion, GenParams, Prompt, Usage
from reasoneval.report.collect import view
from reasoneval.runner import engine
from reasoneval.runner.engine import Runner, SeenKeys
from reasoneval.runner.progress import BUCKET_S, RATE_WINDOW_S, RunProgress
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


class CountingBackend:
    """Answers every prompt with its last word; records the most asyncio tasks alive during any call."""

    spec = "fake/counting"
    max_concurrency = 1000

    def __init__(self) -> None:
        self.calls = 0
        self.most_tasks = 0

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        self.calls += 1
        self.most_tasks = max(self.most_tasks, len(asyncio.all_tasks()))
        await asyncio.sleep(0)
        last = prompt.messages[-1].content if prompt.is_chat else prompt.text
        word = last.split()[-1] if isinstance(last, str) else ""
        return Completion(text=f"[[{word}]]", finish_reason="stop", usage=Usage(10, 3))

    async def aclose(self) -> None:
        pass


def _run(store: RunStore, backend: CountingBackend, samples: int, concurrency: int):
    spec = RunSpec("toy", None, "zero-shot", backend.spec, GenParams(max_tokens=32), samples=samples)
    return asyncio.run(Runner(registry.get("toy"), spec, store, backend, concurrency=concurrency,  # type: ignore[arg-type]
                              progress=False).run())


def test_units_are_started_as_they_are_taken_not_all_at_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "MIN_UNITS_AHEAD", 8)
    store = RunStore(tmp_path / "s.db")
    backend = CountingBackend()
    res = _run(store, backend, samples=40, concurrency=4)  # 50 items x 40 samples = 2,000 units
    assert res.units == 2000 and res.generated == 2000 and backend.calls == 2000
    # 16 unit workers (4 per slot; at least 4 + 8) plus the run's own task: not one task per unit
    assert backend.most_tasks <= 16 + 2
    assert store.count(res.run_id) == 2000
    # every unit's verdict stored, and the report reads them all (rows read from the store in batches)
    v = view(store, res.run_id, prompts=False)
    assert v.stats["items"] == 2000 and v.stats["errors"] == 0


def test_a_resumed_run_reuses_every_stored_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "MIN_UNITS_AHEAD", 8)
    store = RunStore(tmp_path / "s.db")
    first = _run(store, CountingBackend(), samples=3, concurrency=4)
    again = CountingBackend()
    res = _run(store, again, samples=3, concurrency=4)
    assert res.run_id == first.run_id and res.resumed
    assert again.calls == 0 and res.reused == 150 and res.generated == 0


def test_the_generated_key_set_has_no_false_negatives_and_few_false_positives() -> None:
    seen = SeenKeys()
    added = [secrets.token_hex(32) for _ in range(20_000)]
    for k in added:
        seen.add(k)
    assert all(k in seen for k in added)
    others = [secrets.token_hex(32) for _ in range(20_000)]
    assert sum(k in seen for k in others) < 100  # 20,000 of 16M bits set: ~0.1% expected
    short = SeenKeys()
    short.add("abc")  # a key that is not a hex digest still works
    assert "abc" in short


def test_the_progress_history_is_bounded_by_time_not_by_the_run() -> None:
    t = [0.0]
    p = RunProgress(10**6, "x", enabled=False, clock=lambda: t[0])
    for _ in range(200_000):  # 1,000 answers per second for 200 s
        t[0] += 0.001
        p.advance()
    assert len(p._recent) <= RATE_WINDOW_S / BUCKET_S + 2
    assert p.rate() == pytest.approx(1000, rel=0.01)
    t[0] += 15  # nothing for 15 s: half the window is empty
    assert p.rate() == pytest.approx(500, rel=0.01)
    assert "no answer for 0:00:15" in p.status()


def test_an_items_first_prompt_is_built_once_for_all_its_samples(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    bench = registry.get("toy")
    built: list[str] = []
    real = type(bench).prompt

    def counting(self, item, mode):  # type: ignore[no-untyped-def]
        built.append(item.key)
        return real(self, item, mode)

    monkeypatch.setattr(type(bench), "prompt", counting)
    store = RunStore(tmp_path / "s.db")
    res = _run(store, CountingBackend(), samples=5, concurrency=4)
    assert res.generated == 250
    assert sorted(built) == sorted({k for k in built}) and len(built) == 50  # once per item, not per sample
    rows = list(store.completions(res.run_id))
    by_item: dict[str, set[Prompt]] = {}
    for c in rows:
        by_item.setdefault(c.item_key, set()).add(c.prompt)
    # every sample stored its item's prompt, and the samples are still told apart by their cache keys
    assert all(len(ps) == 1 and next(iter(ps)) == real(bench, _item(bench, k), "zero-shot") for k, ps in by_item.items())
    assert len({c.sample for c in rows}) == 5


def _item(bench, key):  # type: ignore[no-untyped-def]
    return next(it for sub in bench.subsets() for it in bench.load(sub, "zero-shot") if it.key == key)


def test_answers_are_read_with_their_verdicts_in_one_pass(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "s.db")
    res = _run(store, CountingBackend(), samples=2, concurrency=4)
    by_key = store.verdicts(res.run_id, "default")
    got = list(store.answers(res.run_id, "default", prompts=False))
    assert len(got) == 100 and all(v == by_key[(c.item_key, c.sample, c.turn)] for c, v in got)
    assert {v.outcome for _, v in got if v is not None} == {o.outcome for o in by_key.values()}
    c0 = got[0][0]
    store.db.execute("DELETE FROM verdicts WHERE run_id=? AND item_key=? AND sample=?",
                     (res.run_id, c0.item_key, c0.sample))
    again = list(store.answers(res.run_id, "default", prompts=False))
    assert again[0][1] is None and all(v is not None for _, v in again[1:])
    assert list(store.answers(res.run_id, "other-scorer")) != [] and all(
        v is None for _, v in store.answers(res.run_id, "other-scorer"))
