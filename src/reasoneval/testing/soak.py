"""Soak run: many items against the fake server with every fault kind mixed in, then an audit of the store.

Used by ``tests/core/test_faults.py::test_soak`` and ``bench/soak.py`` (which prints the figures). Each
prompt's fault is known in advance (:func:`~reasoneval.testing.fake_openai.planned_fault`), so the audit can
say for every item what its stored verdict must be: 0 lost, 0 duplicated, 0 mis-scored is the pass mark.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.benchmark import Benchmark
from ..core.types import GenParams, Item, Outcome, Prompt, Verdict
from ..models.openai_compat import HTTPOptions, OpenAICompatBackend
from ..runner.engine import Runner
from ..runner.spec import RunSpec
from ..scoring.extract import double_brackets
from ..store.sqlite import RunStore
from .fake_openai import planned_fault
from .procs import FakeServerProc

FAULTS = ("429", "500", "hang", "malformed", "empty", "400", "echo401", "redirect", "surrogate", "empty200", "bomb")
PERMANENT_ERRORS = frozenset({"400", "echo401", "redirect"})
SECRET = "sk-soak-" + "S3cr3t" * 5
WORDS = ("apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "island", "jungle")


class SoakBench(Benchmark):
    name = "soak"
    description = "soak test: repeat the last word"
    default_params = GenParams(max_tokens=32)

    def __init__(self, n: int) -> None:
        self.n = n

    def subsets(self) -> list[str]:
        return ["a"]

    def modes(self) -> list[str]:
        return ["zero-shot"]

    def load(self, subset: str, mode: str) -> list[Item]:
        return [Item("soak", "a", str(i), {"q": f"Item {i}: repeat {WORDS[i % 10]}"}, WORDS[i % 10])
                for i in range(self.n)]

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat(item.data["q"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        got = double_brackets(text)
        if got is None:
            return Verdict(Outcome.UNANSWERABLE, None, "brackets")
        return Verdict(Outcome.CORRECT if got == item.gold else Outcome.INCORRECT, got, "brackets")


def expected_outcome(fault: str | None) -> Outcome:
    if fault in PERMANENT_ERRORS:
        return Outcome.ERROR
    if fault == "empty200":
        return Outcome.UNANSWERABLE
    if fault in ("surrogate", "bomb"):
        return Outcome.INCORRECT
    return Outcome.CORRECT


@dataclass
class SoakResult:
    items: int
    seconds: float
    lost: int
    duplicated: int
    misscored: int
    errors: int
    secret_leaks: int
    hedges: int
    server: dict[str, Any]

    def line(self) -> str:
        return (f"{self.items} items in {self.seconds:.1f}s: {self.lost} lost, {self.duplicated} duplicated, "
                f"{self.misscored} mis-scored, {self.errors} errors (expected), {self.secret_leaks} secret leaks, "
                f"{self.hedges} hedged requests")


def soak(workdir: Path, n: int = 1250, rate: float = 0.2, concurrency: int = 32, hang_s: float = 60.0) -> SoakResult:
    """Run ``n`` items with a fraction ``rate`` of faulty prompts (0: the fault-free baseline) and audit."""
    faults = list(FAULTS)
    mix = ["--fault-rate", str(rate), "--faults", ",".join(faults)] if rate > 0 else []
    srv = FakeServerProc("--delay", "0.01", *mix, "--timeout-sleep", str(hang_s), "--retry-after", "1")
    try:
        bench = SoakBench(n)
        db = workdir / f"soak-{rate:g}.db"
        store = RunStore(db)
        spec = RunSpec("soak", None, "zero-shot", f"openai-compat/fake@{srv.url}", bench.default_params)
        backend = OpenAICompatBackend(spec.model, "fake", [srv.url], SECRET, concurrency,
                                      HTTPOptions(timeout_s=30, hedge_after_s=1.0, backoff_base_s=0.05,
                                                  backoff_max_s=1.0))

        async def go() -> Any:
            try:
                return await Runner(bench, spec, store, backend, concurrency=concurrency, progress=False).run()
            finally:
                await backend.aclose()

        t0 = time.monotonic()
        res = asyncio.run(go())
        seconds = time.monotonic() - t0
        server = srv.stats()
        store.close()
    finally:
        srv.stop()
    return _audit(db, bench, res.run_id, faults, rate, seconds, backend.hedges, server)


def _audit(db: Path, bench: SoakBench, run_id: str, faults: list[str], rate: float, seconds: float, hedges: int,
           server: dict[str, Any]) -> SoakResult:
    con = sqlite3.connect(db)
    comps = con.execute("SELECT item_key, text, error FROM completions WHERE run_id=? AND role='answer'",
                        (run_id,)).fetchall()
    verdicts = dict(((k, (o, x)) for k, o, x in con.execute(
        "SELECT item_key, outcome, extracted FROM verdicts WHERE run_id=?", (run_id,))))
    items = {it.key: it for it in bench.load("a", "zero-shot")}
    keys = [k for k, _, _ in comps]
    misscored = 0
    for key, text, error in comps:
        it = items[key]
        want = expected_outcome(planned_fault(it.data["q"], faults, rate))
        got = verdicts.get(key)
        again = (Outcome.ERROR.value, None) if error is not None else (
            lambda v: (v.outcome.value, v.extracted))(bench.score(it, text or "", "zero-shot"))
        if got is None or got[0] != want.value or got != again:
            misscored += 1
    dump = "\n".join(str(r) for t in ("completions", "verdicts") for r in con.execute(f"SELECT * FROM {t}"))
    con.close()
    return SoakResult(len(items), seconds, lost=len(set(items) - set(keys)), duplicated=len(keys) - len(set(keys)),
                      misscored=misscored, errors=sum(1 for _, _, e in comps if e is not None),
                      secret_leaks=dump.count(SECRET), hedges=hedges, server=server)
