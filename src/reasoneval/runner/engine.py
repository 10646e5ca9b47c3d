"""The runner: items -> prompts -> model -> store -> verdicts, resumable and cached."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
from collections import defaultdict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..core.benchmark import Benchmark, Turn
from ..core.hashing import CacheKeyer, canonical_json
from ..core.response import Response
from ..core.safetext import server_text
from ..core.values import Completion, GenParams, Item, Prompt, Verdict
from ..models.base import ModelBackend, ModelError, prompt_has_images
from ..models.identity import identify
from ..models.ratelimit import Lease, Slots
from ..store.sqlite import RunStore
from .batcher import Batcher
from .gcquiet import quiet_gc
from .identity import adopt_legacy, check_served, run_metadata, served_key
from .progress import RunProgress
from .sample import limit_items
from .session import JUDGE_PARAMS, Ask, ScoringSession
from .spec import RunSpec

SCORER = "default"
INLINE_SCORE_CHARS = 32_000  # outputs up to this size may be scored on the event loop (Benchmark.score_now)
Generate = Callable[[Prompt, GenParams], Awaitable[Completion]]
FIRST_PROMPTS_KEPT = 4096  # first prompts (and their JSON) kept for the other samples of the same item
UNITS_PER_SLOT = 4  # units under way at once per request slot (the rest are not started yet: memory stays flat)
MIN_UNITS_AHEAD = 256  # ... and at least this many beyond the slots, for units being scored or stored meanwhile


class SeenKeys:
    """Which cache keys this run generated, as a fixed-size bit set (2 MiB, whatever the run's size): a key
    never added is reported absent except for a rare false positive (one in 16 at a million keys), which costs
    only a cache lookup that misses; an added key is always reported present."""

    BITS = 1 << 24

    def __init__(self) -> None:
        self._bits = bytearray(self.BITS >> 3)

    def _bit(self, key: str) -> int:
        return int(key[:12], 16) % self.BITS if len(key) >= 12 else hash(key) % self.BITS

    def add(self, key: str) -> None:
        bit = self._bit(key)
        self._bits[bit >> 3] |= 1 << (bit & 7)

    def __contains__(self, key: str) -> bool:
        bit = self._bit(key)
        return bool(self._bits[bit >> 3] & (1 << (bit & 7)))


@dataclass
class RunResult:
    run_id: str
    resumed: bool
    units: int
    generated: int = 0
    cached: int = 0
    reused: int = 0
    errors: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def load_items(bench: Benchmark, spec: RunSpec) -> list[Item]:
    subsets = spec.subset.split(",") if spec.subset else bench.subsets()
    items: list[Item] = []
    for sub in subsets:
        if sub not in bench.subsets():
            raise ValueError(f"unknown subset {sub!r} of {bench.name}; known: {', '.join(bench.subsets())}")
        got = bench.load(sub, spec.mode)
        items.extend(limit_items(got, spec.limit, spec.limit_mode, spec.limit_seed, f"{bench.name}:{sub}",
                                 lambda item: bench.stratum(item, spec.mode)))
    return items


async def _isolated(gen: Generate, prompt: Prompt, params: GenParams) -> Completion:
    """One model call whose failure, whatever it is, is this item's error: nothing in one response's handling
    can end the run (the backends turn what they expect into errors themselves; this catches the rest). A
    ``ModelError`` is a backend saying the run cannot go on, and stops it (resumable) as it always did."""
    try:
        return await gen(prompt, params)
    except ModelError:  # a backend's own word that the run cannot go on (model failed to load, every worker lost)
        raise
    except Exception as e:  # noqa: BLE001 - see the docstring; cancellation (a BaseException) still stops the run
        return Completion(error=server_text(f"internal error handling the response: {e.__class__.__name__}: {e}",
                                            500))


def _generator(backend: ModelBackend) -> Generate:
    if getattr(backend, "batched", False):
        return Batcher(backend).generate  # type: ignore[arg-type]
    return backend.generate


class Runner:
    def __init__(self, bench: Benchmark, spec: RunSpec, store: RunStore, backend: ModelBackend,
                 judge: ModelBackend | None = None, concurrency: int = 32, progress: bool = True) -> None:
        self.bench, self.spec, self.store = bench, spec, store
        self.backend, self.judge = backend, judge
        self.concurrency = max(1, min(concurrency, backend.max_concurrency))
        self.progress_enabled = progress
        self._gen = _generator(backend)
        self._judge_gen = _generator(judge) if judge is not None else None
        self.session = ScoringSession(bench, spec.mode)
        self._score_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="score")
        #: requests in flight; a unit holds a slot only while it waits for the model, never while it is
        #: scored, so slow scoring (a SymPy bomb, a backlog) never stops requests from going out; a backend that
        #: waits (backoff, Retry-After, a hedged straggler) gives it back meanwhile (``ratelimit.current_lease``)
        self._slots: Slots | None = None
        self._cache_was_empty = False  # set when the run starts
        self._generated = SeenKeys()  # cache keys this run generated
        self._keyers: dict[tuple[str, str], CacheKeyer] = {}  # (model, canonical parameters) -> its key maker
        #: (subset, item key) -> its first prompt and that prompt's canonical JSON: the samples of an item are
        #: taken one after another, so each is built and encoded once, not once per sample (oldest dropped first)
        self._first_prompts: dict[tuple[str, str], tuple[Prompt, str]] = {}
        #: the models' keys in the cache (``models/identity.py``): the answering model's from the run spec, with
        #: the id its server says it serves (two servers serving other models under one name share nothing)
        self._model_key = served_key(spec.model_key(), backend)
        self._judge_key = served_key(identify(judge.spec).key, judge) if judge is not None else ""
        #: freeze the process's garbage collector's old objects during the run (``gcquiet.py``): the CLI's choice
        self.quiet_gc = False
        self._refresh_all = False  # --refresh: no answer comes from the cache
        self._reask: set[tuple[str, int]] = set()  # --retry-unanswered: these units skip the cache

    async def _call(self, gen: Generate, model_spec: str, prompt: Prompt | Callable[[], Prompt],
                    params: GenParams, sample: int, res: RunResult,
                    first_of: Item | None = None, fresh: bool = False) -> tuple[Completion, str, bool, Prompt, str]:
        """``prompt`` may be a function that builds it: it is called once the request slot is held. Returns the
        completion, its cache key, whether it came from the cache, the prompt and the prompt's canonical JSON
        (made once: the cache key hashes it and the store keeps it). ``first_of``: the prompt is this item's first
        (the same for each of its samples). ``fresh``: the cache is not read (the answer is asked again and
        replaces the cached one)."""
        assert self._slots is not None
        # the prompt is built and the cache looked up once a request slot is free, not when the unit starts:
        # a thousand units start at once, and their prompts and lookups up front would hold the event loop
        # while the first requests wait
        async with Lease(self._slots):
            memo = None if first_of is None else self._first_prompts.get((first_of.subset, first_of.key))
            if memo is not None:
                prompt, prompt_json = memo
            else:
                if not isinstance(prompt, Prompt):
                    prompt = prompt()
                prompt_json = canonical_json(prompt.to_json())
                if first_of is not None:
                    if len(self._first_prompts) >= FIRST_PROMPTS_KEPT:
                        del self._first_prompts[next(iter(self._first_prompts))]
                    self._first_prompts[(first_of.subset, first_of.key)] = (prompt, prompt_json)
            params_json = params.canonical_json()
            keyer = self._keyers.get((model_spec, params_json))
            if keyer is None:
                keyer = self._keyers[(model_spec, params_json)] = CacheKeyer(model_spec, params_json)
            key = keyer.key_of(prompt_json, sample)
            # a store whose cache was empty when the run began can only hold what this run generated
            hit = (self.store.cache_get(key) if not fresh and (not self._cache_was_empty or key in self._generated)
                   else None)
            if hit is not None:
                res.cached += 1
                return hit, key, True, prompt, prompt_json
            comp = await _isolated(gen, prompt.with_system(params.system), params)  # stored prompt: as built
        res.generated += 1
        self._generated.add(key)
        return comp, key, False, prompt, prompt_json

    def _params(self, sample: int) -> GenParams:
        params = self.spec.params
        if self.spec.samples > 1 and params.temperature:  # each sample its own seed (from --seed when given)
            return dataclasses.replace(params,
                                       seed=(self.spec.seed if params.seed is None else params.seed) + sample)
        return params

    def _score_sync(self, item: Item, comp: Completion) -> tuple[Verdict, Response]:
        response = self.session.view(comp)  # the one view of this output: the scorer and the judge both get it
        return self.session.score(item, comp, response), response

    async def _score(self, item: Item, comp: Completion) -> tuple[Verdict, Response]:
        # most verdicts are a few string operations: made here, they cost less than the hand-off to a thread
        # and back; one that waits (SymPy) or a long output (a hostile one may be megabytes) goes to a thread
        if len(comp.text) + len(comp.reasoning or "") <= INLINE_SCORE_CHARS:
            response = self.session.view(comp)
            verdict = self.session.score_now(item, comp, response)
            if verdict is not None:
                return verdict, response
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._score_pool, self._score_sync, item, comp)

    async def _unit(self, run_id: str, item: Item, sample: int, done_turns: list[tuple[Prompt, Completion]],
                    judged: dict[int, Completion], res: RunResult, prog: RunProgress) -> None:
        mode, params = self.spec.mode, self._params(sample)
        turns: list[Turn] = []
        any_error = False
        cached_only = True
        turn = 0
        next_prompt: Prompt | Callable[[], Prompt] | None = functools.partial(self.bench.prompt, item, mode)
        while next_prompt is not None:
            if turn < len(done_turns):
                prompt, comp = done_turns[turn]
                res.reused += 1
            else:
                cached_only = False
                fresh = self._refresh_all or (item.key, sample) in self._reask
                comp, key, hit, prompt, prompt_json = await self._call(
                    self._gen, self._model_key, next_prompt, params, sample, res, item if turn == 0 else None, fresh)
                if hit:
                    cached_only = True
                await self.store.aput_completion(run_id, item.key, sample, turn, "answer", item.subset, prompt,
                                                 key, comp, cache=not hit, prompt_json=prompt_json)
            verdict, response = await self._score(item, comp)
            verdict = await self.session.ajudge(item, comp, response, verdict,
                                                self._asker(run_id, item, sample, turn, judged, res))
            self.store.put_verdict(run_id, item.key, sample, turn, SCORER, verdict, buffered=True)
            turns.append(Turn(prompt, comp, verdict))
            if comp.error is not None:
                any_error = True
                break
            next_prompt = self.bench.followup(item, mode, turns)
            turn += 1
        if any_error:
            res.errors += 1
        prog.advance(error=any_error, cached=cached_only and not any_error)

    def _asker(self, run_id: str, item: Item, sample: int, turn: int, judged: dict[int, Completion],
               res: RunResult) -> Ask | None:
        """How this turn asks the judge: its stored answer when the run has one (a resumed run), else a call
        (cached and stored like any completion); None without ``--judge``."""
        judge_gen, judge = self._judge_gen, self.judge
        if judge_gen is None or judge is None:
            return None

        async def ask(prompt: Prompt) -> Completion:
            reply = judged.get(turn)
            if reply is None:
                reply, key, hit, _, prompt_json = await self._call(
                    judge_gen, self._judge_key, prompt, JUDGE_PARAMS, 0, res,
                    fresh=self._refresh_all or (item.key, sample) in self._reask)
                await self.store.aput_completion(run_id, item.key, sample, turn, "judge", item.subset, prompt, key,
                                                 reply, cache=not hit, prompt_json=prompt_json)
            return reply

        return ask

    def _check_modalities(self, items: list[Item]) -> None:
        if getattr(self.backend, "supports_images", True):
            return
        for item in items:
            if prompt_has_images(self.bench.prompt(item, self.spec.mode)):
                raise ModelError(f"{self.backend.spec} is a text-only backend, but {self.spec.benchmark} item "
                                 f"{item.key} has images; use a vision model over openai-compat")

    async def run(self, retry_errors: bool = False, refresh: bool = False,
                  retry_unanswered: bool = False) -> RunResult:
        """``retry_errors``: failed calls are asked again; ``retry_unanswered``: so are stored answers that are
        empty or gave nothing to score (their cached responses are not read); ``refresh``: every item is asked
        again, the cache is not read, the new answers replace the stored and cached ones."""
        bench, spec, store = self.bench, self.spec, self.store
        items = load_items(bench, spec)
        self._check_modalities(items)
        run_id = spec.run_id()
        record = spec.record(bench.data_version(), bench.prompt_version(spec.mode))
        adopt_legacy(store, spec, run_id, record)
        check_served(store, run_id, self.backend)
        resumed = store.upsert_run(run_id, spec.benchmark, spec.subset or "*", spec.mode, spec.model, record)
        store.update_record(run_id, run_metadata(store, spec, run_id, self.backend))
        if retry_errors:
            store.delete_errors(run_id)
        if refresh:
            store.forget_answers(run_id)
            self._refresh_all = True
        elif retry_unanswered:
            self._reask = set(store.unanswered(run_id))
            store.forget_answers(run_id, sorted(self._reask))
        existing: dict[tuple[str, int], list[tuple[Prompt, Completion]]] = defaultdict(list)
        judged: dict[tuple[str, int], dict[int, Completion]] = defaultdict(dict)
        for row in store.completions(run_id):
            if row.role == "answer":
                existing[(row.item_key, row.sample)].append((row.prompt, row.completion))
            else:
                judged[(row.item_key, row.sample)][row.turn] = row.completion
        n_units = len(items) * spec.samples
        res = RunResult(run_id, resumed, n_units)
        plan = getattr(self.backend, "plan_requests", None)
        if callable(plan):  # an HTTP backend's cap on extra requests is a share of the run's units
            plan(n_units)
        self._cache_was_empty = store.cache_empty()  # then no lookup can hit but for keys generated here
        self._slots = Slots(self.concurrency)
        # made as they are taken, never all at once
        units = ((item, sample) for item in items for sample in range(spec.samples))
        no_turns: list[tuple[Prompt, Completion]] = []

        async def worker(prog: RunProgress) -> None:
            # a unit holds a request slot only while it waits for the model; the workers outnumber the slots, so
            # units being scored or stored never keep a slot idle, and only the units under way are in memory
            for item, sample in units:
                await self._unit(run_id, item, sample, existing.pop((item.key, sample), no_turns),
                                 judged.pop((item.key, sample), {}), res, prog)

        tasks: list[asyncio.Task[None]] = []
        try:
            with quiet_gc(self.quiet_gc), RunProgress(n_units, f"{spec.benchmark} {spec.model}", self.progress_enabled) as prog:
                try:
                    n_workers = min(n_units, max(UNITS_PER_SLOT * self.concurrency,
                                                 self.concurrency + MIN_UNITS_AHEAD))
                    tasks = [asyncio.create_task(worker(prog)) for _ in range(n_workers)]
                    await asyncio.gather(*tasks)
                finally:
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    store.flush()
                    store.close_writer()
        except BaseException:
            with contextlib.suppress(Exception):
                store.set_status(run_id, "interrupted")
            raise
        store.flush()
        store.set_status(run_id, "done" if res.errors == 0 else "done-with-errors")
        stats = getattr(self.backend, "request_stats", None)
        if callable(stats):  # HTTP requests sent per model call, hedges, abandonments, retries
            res.extra["requests"] = stats()
        self._score_pool.shutdown(wait=False)
        return res
