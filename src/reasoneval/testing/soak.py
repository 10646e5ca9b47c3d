"""Soak run: many items against the fake server with every fault kind mixed in, then an audit of the store.

Used by ``tests/core/test_faults.py::test_soak`` and ``bench/soak.py`` (which prints the figures). Each
prompt's fault is known in advance (:func:`~reasoneval.testing.fake_openai.planned_fault`), so the audit can
say for every item what its stored verdict must be: 0 lost, 0 duplicated, 0 mis-scored is the pass mark.

Every :data:`MATH_EVERY`-th item is a LaTeX item scored by a benchmark's real scoring path (a :class:`MathScorer`
the caller supplies, e.g. a benchmark's official judge + SymPy through a sandboxed
:class:`~reasoneval.scoring.latexcmp.LatexCanonicalizer`): its gold ``[[\frac{1}{2}or-k]]`` holds "or" and the
model answers ``[[-kor\frac{k}{2k}]]``, equal only up to LaTeX equivalence, so the SymPy comparison decides it;
a ``bomb`` fault on such an item answers the "or"-separated power towers and must cost one verdict budget
(:data:`SOAK_VERDICT_BUDGET_S`), not hundreds of sandbox timeouts. The slowest verdict is reported.

Nothing is canonicalised before the clock starts: a right answer whose LaTeX strings are still uncached,
scored while a bomb's hundreds of parts are queued, must still be decided by SymPy within its own budget (the
sandbox serves verdicts round-robin; ``tests/core/test_faults.py::test_a_bomb_does_not_starve_a_concurrent_sympy_verdict``).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.benchmark import Benchmark
from ..core.values import GenParams, Item, Outcome, Prompt, Verdict
from ..models.limits import ResponseLimits
from ..models.openai_compat import HTTPOptions, OpenAICompatBackend
from ..runner.spec import RunSpec
from ..scoring.extract import double_brackets
from ..scoring.latexcmp import LatexCanonicalizer
from ..store.sqlite import RunStore
from .engine_run import run_and_close
from .fake_openai import planned_fault
from .procs import FakeServerProc

#: every fault kind of the fake server: transport and status faults, then the response faults that hit every attempt
#: (no choices, an Anthropic-shaped stream, a stream without its end, control codes, a gzip bomb, an endless answer,
#: a 401 echoing the key) and the usage faults whose answer is fine (usage recorded as unknown)
RESPONSE_ERRORS = ("nochoices", "anthropicsse", "nofinish", "ctlbody", "ctlredirect", "gzipbomb", "endless", "key401")
#: issue 36: answers to read to the letter (two choices, multi-line data, CR / CR LF, a BOM; a broken event is an
#: error when streamed), replies that are not plain answers (a refusal, tool calls, a filtered answer: an error),
#: and legitimately slow answers (:data:`SOAK_SLOW_S` seconds: trickling, plain, silent then fast)
SHAPES = ("nchoices", "multiline", "crlf", "bom", "brokenevent", "refusal", "toolcalls", "contentfilter")
SLOW = ("trickle", "slowplain", "silentfast")
#: (the order sets which prompts get which kind, by hash: the shapes go before "bomb" so that bombs land on two of
#: the SymPy-scored items)
FAULTS = ("429", "500", "hang", "malformed", "empty", "400", "echo401", "redirect", "surrogate", "empty200", *SHAPES,
          "bomb", "hangforever", *RESPONSE_ERRORS, "usage1e999", "usagestr", "nousage", *SLOW)
PERMANENT_ERRORS = frozenset({"400", "echo401", "redirect", "contentfilter", *RESPONSE_ERRORS})
SOAK_SLOW_S = 5.0  # how long a slow answer takes in the soak
#: the soak's response limits: small, so that the bombs and endless answers are cut quickly (the defaults are
#: exercised in tests/core/test_response_faults.py)
SOAK_LIMITS = ResponseLimits(max_bytes=4 * 1024 * 1024, max_decoded_bytes=4 * 1024 * 1024, max_chars=200_000)
SECRET = "sk-soak-" + "S3cr3t" * 5
WORDS = ("apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "island", "jungle")
MATH_EVERY = 10  # every 10th item is a SymPy-scored LaTeX item (subset "latex")
SOAK_VERDICT_BUDGET_S = 3.0  # the soak's budget of one SymPy verdict, all its "or" parts together
SOAK_SYMPY_TIMEOUT_S = 1.0  # one sandbox task (one distinct LaTeX string)


@dataclass(frozen=True)
class MathScorer:
    """How the soak's LaTeX items are scored: ``score(text, gold, lc, deadline) -> (extracted, correct, method)``
    (``deadline``: ``time.monotonic()`` at which the verdict's budget ends), and the method prefixes of verdicts
    that went through the SymPy comparison (counted as ``sympy_items``)."""

    score: Callable[[str, str, LatexCanonicalizer | None, float], tuple[str | None, bool, str]]
    sympy_methods: tuple[str, ...]


class SoakBench(Benchmark):
    name = "soak"
    description = "soak test: repeat the last word; every 10th item a SymPy-scored LaTeX item"
    default_params = GenParams(max_tokens=32)

    def __init__(self, n: int, math: MathScorer, lc: LatexCanonicalizer | None = None) -> None:
        self.n = n
        self.math = math
        self.lc = lc
        self.verdict_s: dict[str, float] = {}  # seconds per scored SymPy item (the slowest is reported)
        self._lock = threading.Lock()

    def subsets(self) -> list[str]:
        return ["a", "latex"]

    def modes(self) -> list[str]:
        return ["zero-shot"]

    def load(self, subset: str, mode: str) -> list[Item]:
        out = []
        for i in range(self.n):
            if i % MATH_EVERY == MATH_EVERY - 1:
                k = 2 + (i // MATH_EVERY) % 5  # 5 variants: 11 distinct LaTeX strings, all met by item 49
                if subset == "latex":  # the prompt's last word is what the fake server answers in [[...]]
                    q = f"Item {i}: find both roots, -{k}or\\frac{{{k}}}{{{2 * k}}}"
                    out.append(Item("soak", "latex", str(i), {"q": q}, f"[[\\frac{{1}}{{2}}or-{k}]]"))
            elif subset == "a":
                out.append(Item("soak", "a", str(i), {"q": f"Item {i}: repeat {WORDS[i % 10]}"}, WORDS[i % 10]))
        return out

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat(item.data["q"])

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        if item.subset == "latex":
            return self._score_math(item, text)
        got = double_brackets(text)
        if got is None:
            return Verdict(Outcome.UNANSWERABLE, None, "brackets")
        return Verdict(Outcome.CORRECT if got == item.gold else Outcome.INCORRECT, got, "brackets")

    def _score_math(self, item: Item, text: str) -> Verdict:
        """The :class:`MathScorer`'s verdict, within one budget."""
        t0 = time.monotonic()
        extracted, correct, method = self.math.score(text, item.gold, self.lc, t0 + SOAK_VERDICT_BUDGET_S)
        with self._lock:
            self.verdict_s[item.key] = max(self.verdict_s.get(item.key, 0.0), time.monotonic() - t0)
        if extracted is None:
            return Verdict(Outcome.UNANSWERABLE, None, method)
        return Verdict(Outcome.CORRECT if correct else Outcome.INCORRECT, extracted, method)


def expected_outcome(fault: str | None, stream: bool = False) -> Outcome:
    if fault in PERMANENT_ERRORS or (stream and fault == "brokenevent"):
        return Outcome.ERROR
    if fault in ("empty200", "refusal", "toolcalls"):
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
    abandoned: int = 0  # attempts abandoned (no copy answered within the abandonment window) and retried
    decreases: int = 0  # times the 429s lowered the concurrency
    sympy_items: int = 0  # math items answered and scored through the SymPy comparison
    sympy_bombs: int = 0  # math items whose answer was the "or"-separated power towers
    slowest_verdict_s: float = 0.0  # the slowest SymPy verdict, in the run and in the audit's re-scoring
    methods: dict[str, int] | None = None  # verdict methods of the math items
    misscored_items: dict[str, str] | None = None  # item key -> what was stored, expected and re-scored
    requests: dict[str, Any] | None = None  # the backend's request_stats (requests sent per call, extra requests)
    slow_items: int = 0  # items whose answer is slow (SLOW kinds)
    slow_requests: int = 0  # requests the server received for them

    def line(self) -> str:
        return (f"{self.items} items in {self.seconds:.1f}s: {self.lost} lost, {self.duplicated} duplicated, "
                f"{self.misscored} mis-scored, {self.errors} errors (expected), {self.secret_leaks} secret leaks, "
                f"{self.hedges} hedged requests, {self.abandoned} abandoned attempts, {self.decreases} concurrency "
                f"decreases; {self.sympy_items} SymPy-scored items ({self.sympy_bombs} bombs), "
                f"slowest verdict {self.slowest_verdict_s:.2f}s (budget {SOAK_VERDICT_BUDGET_S:g}s); "
                f"{self.slow_requests} requests for {self.slow_items} slow items, "
                f"{(self.requests or {}).get('sent')} requests for {self.items} items in all")


def soak(workdir: Path, math: MathScorer, n: int = 1250, rate: float = 0.2, concurrency: int = 32,
         hang_s: float = 60.0, stream: bool = False) -> SoakResult:
    """Run ``n`` items with a fraction ``rate`` of faulty prompts (0: the fault-free baseline) and audit;
    ``math`` scores the LaTeX items; ``stream``: ask for event streams (the server streams), else plain bodies."""
    faults = list(FAULTS)
    mix = ["--fault-rate", str(rate), "--faults", ",".join(faults)] if rate > 0 else []
    srv = FakeServerProc("--delay", "0.01", *mix, "--timeout-sleep", str(hang_s), "--retry-after", "1",
                         "--bomb-mb", "64", "--slow-s", str(SOAK_SLOW_S), "--trickle-gap", "0.1",
                         *(["--stream"] if stream else []))
    lc = LatexCanonicalizer(workers=2, timeout=SOAK_SYMPY_TIMEOUT_S, persistent=False)
    try:
        lc.get("1")  # the sandbox's start-up (SymPy import) is not part of any verdict's budget
        bench = SoakBench(n, math, lc)
        db = workdir / f"soak-{rate:g}{'-stream' if stream else ''}.db"
        store = RunStore(db)
        spec = RunSpec("soak", None, "zero-shot", f"openai-compat/fake@{srv.url}", bench.default_params)
        backend = OpenAICompatBackend(spec.model, "fake", [srv.url], SECRET, concurrency,
                                      HTTPOptions(timeout_s=30, hedge_min_s=1.0, backoff_base_s=0.05,
                                                  backoff_max_s=1.0, limits=SOAK_LIMITS,
                                                  stream=stream))  # adaptive hedging, abandonment

        res, seconds = run_and_close(bench, spec, store, backend, concurrency)
        server = srv.stats()
        store.close()
        out = _audit(db, bench, res.run_id, faults, rate, seconds, backend.hedges, server, stream)
        out.abandoned, out.decreases = backend.abandoned, backend.limiter.decreases
        out.requests = res.extra.get("requests") or {}
        seen = srv.seen()
        slow = [it for sub in bench.subsets() for it in bench.load(sub, "zero-shot")
                if planned_fault(it.data["q"], faults, rate) in SLOW]
        out.slow_items = len(slow)
        out.slow_requests = sum(seen.get(hashlib.sha256(it.data["q"].encode()).hexdigest(), 0) for it in slow)
        return out
    finally:
        srv.stop()
        lc.close()


def _audit(db: Path, bench: SoakBench, run_id: str, faults: list[str], rate: float, seconds: float, hedges: int,
           server: dict[str, Any], stream: bool = False) -> SoakResult:
    con = sqlite3.connect(db)
    comps = con.execute("SELECT item_key, text, error FROM completions WHERE run_id=? AND role='answer'",
                        (run_id,)).fetchall()
    verdicts = dict(((k, (o, x)) for k, o, x in con.execute(
        "SELECT item_key, outcome, extracted FROM verdicts WHERE run_id=?", (run_id,))))
    methods: dict[str, int] = {}
    for (m,) in con.execute("SELECT method FROM verdicts WHERE run_id=? AND item_key LIKE 'latex/%'", (run_id,)):
        methods[m] = methods.get(m, 0) + 1
    items = {it.key: it for sub in bench.subsets() for it in bench.load(sub, "zero-shot")}
    keys = [k for k, _, _ in comps]

    def rescore(key: str, text: str | None, error: str | None) -> tuple[str, str | None]:
        if error is not None:
            return Outcome.ERROR.value, None
        v = bench.score(items[key], text or "", "zero-shot")
        return v.outcome.value, v.extracted

    with ThreadPoolExecutor(max_workers=8) as pool:  # the bombs' re-scoring (one budget each) side by side
        fresh = list(pool.map(lambda c: rescore(*c), comps))
    wrong: dict[str, str] = {}
    for (key, _, _), again in zip(comps, fresh, strict=True):
        want = expected_outcome(planned_fault(items[key].data["q"], faults, rate), stream)
        got = verdicts.get(key)
        if got is None or got[0] != want.value or got != again:
            wrong[key] = f"stored {got}, expected {want.value}, re-scored {again}"
    dump = "\n".join(str(r) for t in ("completions", "verdicts") for r in con.execute(f"SELECT * FROM {t}"))
    con.close()
    latex = [it for it in items.values() if it.subset == "latex"]
    return SoakResult(len(items), seconds, lost=len(set(items) - set(keys)), duplicated=len(keys) - len(set(keys)),
                      misscored=len(wrong), errors=sum(1 for _, _, e in comps if e is not None),
                      secret_leaks=dump.count(SECRET), hedges=hedges, server=server,
                      sympy_items=sum(c for m, c in methods.items() if m.startswith(bench.math.sympy_methods)),
                      sympy_bombs=sum(1 for it in latex if planned_fault(it.data["q"], faults, rate) == "bomb"),
                      slowest_verdict_s=max(bench.verdict_s.values(), default=0.0), methods=methods,
                      misscored_items=wrong)
