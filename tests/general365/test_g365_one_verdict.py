"""One stored completion, one verdict: ``run``, ``score`` (of the stored run and of the imported one),
``rescore`` and ``import`` (the same completions as outside rows) all give General365's answers the same
verdict, judged, judge-missing (no judge), judge-error (a failed judge call) and truncated (never judged) alike
(``runner/session.py``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from reasoneval.benchmarks.general365.benchmark import General365
from reasoneval.core.benchmark import OutsideRow
from reasoneval.core.values import Completion, GenParams, Item, Prompt, Verdict
from reasoneval.runner.engine import SCORER, Runner
from reasoneval.runner.importer import import_rows
from reasoneval.runner.rescore_outside import score_outside
from reasoneval.runner.score_stored import rescore_run
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore

FIX = Path(__file__).parents[1] / "fixtures" / "general365"
MODE = "paper"  # the judge decides items 5, 6 and 7 (choices and text); numbers by the rule
CUT = "6"  # in the truncated variant: item 6's output was cut off, so the judge never sees it


class Answers:
    """The model: answers each question with the fixture's stored response."""

    spec = "fake/answers"
    max_concurrency = 4
    batched = False
    supports_images = False

    def __init__(self, by_question: dict[str, Completion]) -> None:
        self.by_question = by_question

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        text = prompt.last_user_text()
        return next(c for q, c in self.by_question.items() if q in text)

    async def aclose(self) -> None:
        return None


class Judge:
    """Correct when the student answer holds the reference; item 5's call fails (an HTTP 500)."""

    spec = "fake/judge"
    max_concurrency = 4
    batched = False
    supports_images = False

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        text = prompt.last_user_text()
        ref = text.split("### Reference Answer\n", 1)[1].split("\n", 1)[0]
        student = text.split("### Student Answer\n", 1)[1].split("\n\nNow, please", 1)[0]
        self.calls.append(ref)
        if ref == "C":
            return Completion(error="HTTP 500: the judge is down")
        return Completion(f"### Conclusion: {'Correct' if ref in student else 'Incorrect'}", "stop")

    async def aclose(self) -> None:
        return None


def _bench() -> General365:
    b = General365()
    b.configure({"data": str(FIX / "hf")})
    return b


def _completions(truncated: bool) -> dict[str, Completion]:
    out = {}
    for line in (FIX / "responses.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        out[r["id"]] = Completion(r["response"], "length" if truncated and r["id"] == CUT else "stop")
    return out


def _plain(vs: dict[str, Verdict]) -> dict[str, dict]:
    return {k: json.loads(json.dumps(v.to_json())) for k, v in vs.items()}


def _run(tmp_path: Path, items: list[Item], comps: dict[str, Completion], judge: Judge | None
         ) -> tuple[RunStore, str, dict[str, Verdict]]:
    bench = _bench()
    store = RunStore(tmp_path / "run.db")
    spec = RunSpec("general365", "test", MODE, Answers.spec, GenParams(max_tokens=64), judge=judge and judge.spec,
                   options=bench.options, data_version=bench.data_version())
    model = Answers({it.data["_g365"]["question"]: comps[it.id] for it in items})
    res = asyncio.run(Runner(bench, spec, store, model, judge, concurrency=4, progress=False).run())  # type: ignore[arg-type]
    return store, res.run_id, {k: v for (k, _, _), v in store.verdicts(res.run_id, SCORER).items()}


@pytest.mark.parametrize("truncated", [False, True])
@pytest.mark.parametrize("with_judge", [True, False])
def test_run_score_rescore_import_agree(tmp_path: Path, with_judge: bool, truncated: bool) -> None:
    items = _bench().load("test", MODE)
    comps = _completions(truncated)
    judge = Judge() if with_judge else None
    store, run_id, ran = _run(tmp_path, items, comps, judge)

    methods = {k.split("/")[1]: v.method for k, v in ran.items()}
    want = {"1": "rule", "2": "rule", "3": "rule", "4": "rule", "8": "unextractable"}
    if with_judge:
        want |= {"5": "judge-error", "6": "judge", "7": "judge"}
        assert sorted(judge.calls) == (["A, C", "C", "Monday"] if not truncated else ["C", "Monday"])  # type: ignore[union-attr]
    else:
        want |= {"5": "judge-missing", "6": "judge-missing", "7": "judge-missing"}
    if truncated:
        want[CUT] = "truncated"
    assert methods == want
    if with_judge:
        assert ran["test/5"].detail == {"error": "HTTP 500: the judge is down"}
    else:
        assert ran["test/7"].detail["rule_method"] == "judge-missing"  # the rule's own reading is kept

    # score: the stored run re-scored from its stored answers and judge answers, no model asked
    run = store.get_run(run_id)
    assert run is not None
    assert rescore_run(store, run) == len(items)
    rescored = {k: v for (k, _, _), v in store.verdicts(run_id, SCORER).items()}
    assert _plain(rescored) == _plain(ran)

    # rescore: the same completions as outside rows, the judge asked in one batch
    rows = [OutsideRow(it, MODE, comps[it.id], f"responses.jsonl:{it.id}", source="m") for it in items]
    got = score_outside(_bench(), rows, {"judge": Judge() if with_judge else None})
    outside = {row.item.key: vs[-1] for row, vs in zip(got.rows, got.verdicts, strict=True)}
    assert _plain(outside) == _plain(ran)

    # import: the run it stores (with the judge's answers), and that run re-scored
    imp = import_rows(_bench(), store, rows, {"judge": Judge() if with_judge else None}, "test rows")
    (r,) = imp.runs
    imported = {k: v for (k, _, _), v in store.verdicts(r.run_id, SCORER).items()}
    assert _plain(imported) == _plain(ran)
    run = store.get_run(r.run_id)
    assert run is not None and (run["spec"]["judge"] is not None) == with_judge
    assert rescore_run(store, run) == len(items)
    assert _plain({k: v for (k, _, _), v in store.verdicts(r.run_id, SCORER).items()}) == _plain(ran)
