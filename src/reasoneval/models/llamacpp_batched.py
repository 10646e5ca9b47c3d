"""Batched decoding of several greedy requests in ONE llama.cpp context (continuous batching).

:class:`BatchedLlamaEngine` holds the same ``Llama`` object as :class:`~reasoneval.models.llamacpp.LlamaEngine`
plus a second llama.cpp context with ``n_seq_max = slots`` (one KV stream per slot, ``kv_unified = False``).
Every request still goes through llama-cpp-python's own ``create_chat_completion`` / ``create_completion``
code (chat template, tokenization, stop strings, the multibyte rule, ``max_tokens``, finish reasons, usage),
each in its own thread on a proxy of the ``Llama`` whose ``generate`` hands its tokens to one scheduler:
the scheduler evaluates each new prompt in its own slot (emptied first, from position 0 in ``n_batch`` chunks, as
a fresh one-stream evaluation: never a prefix an earlier request left, so what ran before changes nothing), then
decodes one token for every live sequence in
one ``llama_decode`` call and samples each with the sampler chain ``Llama`` itself would have built.
A request that finishes frees its slot at once and a waiting one takes it.

Only greedy requests (temperature 0, no seed) that fit a slot (prompt + max_tokens within ``slot_ctx``) are
batched; any other request runs one at a time on the ``Llama`` object exactly as ``LlamaEngine`` does.

Opt-in (``llamacpp/<name>?batch=N``, part of the run id) because outputs are not always identical. The
default GGUF's only tensor that llama.cpp multiplies with another kernel when a step has two or more rows is the
Q8_0 ``token_embd`` (the tied output layer: llamafile's sgemm instead of one-row dot products, which round
differently); its Q4_1 layers and the per-sequence attention (``kv_unified = False``) compute each row alike
whatever the batch. Measured with ``bench/embedded_throughput.py`` (16 KOR-Bench operation prompts, 128 tokens):
on 2 CPUs with AVX-512, 2-3 of 16 greedy outputs differed from the one-stream engine's and batch=4 gave 1.1x;
on 2 CPUs with AVX2 only, 16 of 16 were identical and batch=4/8 gave 0.94-1.00x.

Why not more: ``--ceiling`` times ``llama_decode`` alone. On those AVX2 CPUs one token for each of 8 sequences
costs 86 ms against 19 ms for one (1.77x the tokens/s; 16 sequences: 1.84x), and the prompts' ~1,300 evaluated
tokens (~6 s at ~225 tokens/s) do not batch any better, so even an engine that always decoded full batches at no
cost of its own would reach 1.40x on that workload: the 1.5x aimed at is beyond llama.cpp on 2 cores here.

The engine runs in its own process (``python -m reasoneval.models.llamacpp_batched``), spoken to by
:class:`BatchedEngineProcess`: requests carry ids, replies come back in the order they finish, and a crash
turns every request in flight into an error (the process is restarted for the next ones).
"""

from __future__ import annotations

import asyncio
import json
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..core.values import Completion, GenParams, Prompt
from .base import ModelError
from .llamacpp_engine import LlamaEngine
from .worker import EngineDied, EngineProcess, completion_from_json, completion_to_json, describe_exit

#: the class the batched engine process builds
BATCHED_ENGINE = "reasoneval.models.llamacpp_batched:BatchedLlamaEngine"

#: sampling keyword arguments of ``Llama.generate`` that ``Llama._init_sampler`` takes
_SAMPLER_ARGS = ("top_k", "top_p", "min_p", "typical_p", "repeat_penalty", "frequency_penalty",
                 "presence_penalty", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta",
                 "penalize_nl", "logits_processor", "grammar")


@dataclass(eq=False)
class _Seq:
    slot: int
    prompt: Prompt
    params: GenParams
    rid: Any
    fresh: bool = True  # no token of it evaluated yet
    state: str = "busy"  # busy: its thread is working; want: waits for a token; released: slot free again
    feed: list[int] = field(default_factory=list)
    n_past: int = 0
    sampler: Any = None
    inbox: queue.SimpleQueue[Any] = field(default_factory=queue.SimpleQueue)
    t0: float = field(default_factory=time.monotonic)


class _Proxy:
    """The shared ``Llama`` seen by one request: its own ``generate`` and token history, all else shared."""

    def __init__(self, llm: Any, engine: BatchedLlamaEngine, seq: _Seq) -> None:
        self._real, self._engine, self._seq = llm, engine, seq
        self._evaluated: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    # ``Llama``'s own methods, bound to the proxy so that ``self.generate`` is the one below
    def create_chat_completion(self, *a: Any, **kw: Any) -> Any:
        return type(self._real).create_chat_completion(self, *a, **kw)

    def create_completion(self, *a: Any, **kw: Any) -> Any:
        return type(self._real).create_completion(self, *a, **kw)

    def _create_completion(self, *a: Any, **kw: Any) -> Any:
        return type(self._real)._create_completion(self, *a, **kw)

    @property
    def _input_ids(self) -> Any:
        import numpy as np
        return np.asarray(self._evaluated, dtype=np.intc)

    @property
    def _scores(self) -> Any:
        import numpy as np
        return np.zeros((1, 1), dtype=np.single)  # only logprobs read scores, and batching refuses those

    def generate(self, tokens: Any, temp: float = 0.8, stopping_criteria: Any = None, reset: bool = True,
                 **kw: Any) -> Any:
        seq, eng = self._seq, self._engine
        seq.sampler = self._real._init_sampler(temp=temp, **{k: v for k, v in kw.items() if k in _SAMPLER_ARGS})
        feed = list(tokens)
        try:
            while True:
                tok = eng._want(seq, feed)
                self._evaluated.extend(feed)
                if stopping_criteria is not None and stopping_criteria(self._input_ids, self._scores[-1, :]):
                    return
                yield tok
                feed = [tok]
        finally:
            eng._events.put(("release", seq, None))


class BatchedLlamaEngine:
    """Inside the engine process: ``slots`` sequences decoded together; see the module docstring."""

    def __init__(self, path: str, n_ctx: int = 8192, seed: int = 0, n_threads: int | None = None,
                 slots: int = 4, slot_ctx: int = 4096) -> None:
        import llama_cpp
        from llama_cpp import _internals

        self.single = LlamaEngine(path, n_ctx=n_ctx, seed=seed, n_threads=n_threads)
        llm = self.single._llm
        self._llm = llm
        self.slots = max(1, slots)
        self.slot_ctx = min(slot_ctx, n_ctx)  # longer requests run one at a time (exactly as LlamaEngine)
        params = type(llm.context_params).from_buffer_copy(llm.context_params)
        params.n_seq_max = self.slots
        params.kv_unified = False
        params.n_ctx = self.slot_ctx * self.slots
        self._ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self._mem = llama_cpp.llama_get_memory(self._ctx.ctx)
        self._lc = llama_cpp
        self.n_batch = llm.n_batch
        self._batch = llama_cpp.llama_batch_init(max(self.n_batch, self.slots), 0, 1)
        self._events: queue.SimpleQueue[tuple[str, Any, Any]] = queue.SimpleQueue()
        self._free = list(range(self.slots))[::-1]
        self._live: list[_Seq] = []
        self._waiting: list[tuple[Any, Prompt, GenParams]] = []
        self.eof = False  # no more requests will come (the engine process's stdin closed)
        self.steps = 0  # batched decode calls, for tests and benchmarks
        self.fallbacks = 0  # requests too long for a slot, run one at a time
        self.widest = 0  # most sequences decoded in one step

    # ------------------------------------------------------------ which requests are batched
    def batchable(self, prompt: Prompt, params: GenParams) -> bool:
        return ((params.temperature or 0.0) == 0.0 and params.max_tokens is not None
                and 0 < params.max_tokens and params.seed is None)

    # ------------------------------------------------------------ request threads
    def _want(self, seq: _Seq, feed: list[int]) -> int:
        if seq.fresh and len(feed) + seq.params.max_tokens + _MARGIN > self.slot_ctx:
            raise _Fallback  # longer than a slot holds: this one runs on its own
        if seq.n_past + len(feed) > self.slot_ctx:
            raise RuntimeError(f"{seq.n_past + len(feed)} tokens exceed the batched slot of {self.slot_ctx}")
        self._events.put(("want", seq, feed))
        tok = seq.inbox.get()
        if isinstance(tok, BaseException):
            raise tok
        return int(tok)

    def _run_request(self, seq: _Seq) -> None:
        try:
            proxy = _Proxy(self._llm, self, seq)
            comp = self.single.generate(prompt=seq.prompt, params=seq.params, llm=proxy)
        except _Fallback:
            self._events.put(("fallback", seq, None))
            return
        except Exception as e:  # noqa: BLE001 - this request's error only
            comp = Completion(error=f"engine error: {e.__class__.__name__}: {e}")
        self._events.put(("result", seq, comp))

    # ------------------------------------------------------------ scheduler
    def submit(self, rid: Any, prompt: Prompt, params: GenParams) -> None:
        self._waiting.append((rid, prompt, params))

    def _admit(self, out: list[tuple[Any, Completion]]) -> None:
        while self._waiting:
            rid, prompt, params = self._waiting[0]
            if not self.batchable(prompt, params):
                self._waiting.pop(0)
                out.append((rid, self.single.generate(prompt, params)))
                continue
            if not self._free:
                return
            self._waiting.pop(0)
            seq = _Seq(self._free.pop(), prompt, params, rid)
            self._live.append(seq)
            threading.Thread(target=self._run_request, args=(seq,), daemon=True).start()

    def _handle(self, ev: tuple[str, Any, Any], out: list[tuple[Any, Completion]]) -> None:
        kind, seq, data = ev
        if kind == "want":
            seq.state, seq.feed = "want", data
        elif kind == "release":
            if seq.state != "released":  # the slot is emptied when its next prompt is evaluated
                seq.state = "released"
                self._free.append(seq.slot)
        elif kind == "result":
            self._handle(("release", seq, None), out)
            self._live.remove(seq)
            out.append((seq.rid, data))
        elif kind == "fallback":
            self._handle(("release", seq, None), out)
            self._live.remove(seq)
            self.fallbacks += 1
            out.append((seq.rid, self.single.generate(seq.prompt, seq.params)))
        else:
            self.on_event(ev, out)

    def on_event(self, ev: tuple[str, Any, Any], out: list[tuple[Any, Completion]]) -> None:
        raise RuntimeError(f"unknown event {ev[0]!r}")

    def idle(self) -> bool:
        return not self._live and not self._waiting

    def step(self, block: bool = True) -> list[tuple[Any, Completion]]:
        """Admit waiting requests, wait until every live one wants a token, decode once; finished results."""
        out: list[tuple[Any, Completion]] = []
        self._admit(out)
        while any(s.state == "busy" for s in self._live) or (block and self.idle() and not out and not self.eof):
            self._handle(self._events.get(), out)
            self._admit(out)
        while True:  # whatever else arrived meanwhile
            try:
                self._handle(self._events.get_nowait(), out)
            except queue.Empty:
                break
        want = [s for s in self._live if s.state == "want"]
        if want:
            try:
                self._decode(want)
            except Exception as e:  # noqa: BLE001 - a failed decode fails the requests in it
                for s in want:
                    s.state = "busy"
                    s.inbox.put(RuntimeError(f"llama_decode: {e}"))
        return out

    def _fill(self, entries: list[tuple[int, int, int, bool]]) -> None:
        b = self._batch
        b.n_tokens = len(entries)
        for j, (tok, pos, sid, logits) in enumerate(entries):
            b.token[j] = tok
            b.pos[j] = pos
            b.n_seq_id[j] = 1
            b.seq_id[j][0] = sid
            b.logits[j] = logits

    def _run_batch(self) -> None:
        rc = self._lc.llama_decode(self._ctx.ctx, self._batch)
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc}")

    def _decode(self, want: list[_Seq]) -> None:
        lc = self._lc
        singles = [s for s in want if not s.fresh]
        for s in want:
            if not s.fresh:
                continue
            s.fresh = False
            # every prompt is evaluated from position 0 of an emptied slot, in the chunks Llama.eval uses: a prefix
            # left by an earlier request (or copied from another slot) would be reused at other chunk boundaries,
            # which round differently, so the text would depend on what ran before
            lc.llama_memory_seq_rm(self._mem, s.slot, 0, -1)
            s.n_past, toks, n = 0, s.feed, 0
            for i in range(0, len(toks), self.n_batch):  # the chunks Llama.eval uses
                chunk = toks[i:i + self.n_batch]
                n = len(chunk)
                last = i + n == len(toks)
                self._fill([(t, s.n_past + k, s.slot, last and k == n - 1) for k, t in enumerate(chunk)])
                self._run_batch()
                s.n_past += n
            self._deliver(s, n - 1)
        if singles:
            self._fill([(s.feed[0], s.n_past, s.slot, True) for s in singles])
            self._run_batch()
            self.steps += 1
            self.widest = max(self.widest, len(singles))
            for i, s in enumerate(singles):
                s.n_past += 1
                self._deliver(s, i)

    def _deliver(self, s: _Seq, idx: int) -> None:
        tok = s.sampler.sample(self._ctx, idx)
        s.state = "busy"
        s.inbox.put(tok)

    # ------------------------------------------------------------ in-process use (tests, benchmarks)
    def generate_many(self, requests: list[tuple[Prompt, GenParams]]) -> list[Completion]:
        for i, (p, g) in enumerate(requests):
            self.submit(i, p, g)
        done: dict[int, Completion] = {}
        while len(done) < len(requests):
            for rid, c in self.step(block=True):
                done[rid] = c
        return [done[i] for i in range(len(requests))]

    def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        return self.generate_many([(prompt, params)])[0]


#: tokens a slot keeps free beyond prompt + max_tokens (the multibyte rule may run a few past max_tokens)
_MARGIN = 16


class _Fallback(Exception):  # noqa: N818 - a signal, not an error
    """Raised in a request thread: the request does not fit a slot."""


# ---------------------------------------------------------------- parent side
class BatchedEngineProcess(EngineProcess):
    """Parent side of a batched engine: many requests in flight at once, each line tagged with an id.

    A death fails every request in flight with ``embedded engine died: ...`` (items recorded as errors, the
    run stays resumable); the next request restarts the engine, at most ``max_restarts`` times."""

    worker_module = "reasoneval.models.llamacpp_batched"

    def __init__(self, engine: str, options: dict[str, Any], label: str = "embedded engine",
                 max_restarts: int = 2, load_timeout_s: float = 600.0) -> None:
        super().__init__(engine, options, label, max_restarts, load_timeout_s)
        self._futs: dict[int, asyncio.Future[Completion]] = {}
        self._next_id = 0
        self._reader: asyncio.Task[None] | None = None
        self._start_lock = asyncio.Lock()
        self._closing = False

    async def start(self) -> None:
        """Start the process (a :class:`ModelError` when it cannot load) and the task that reads its replies."""
        if self._p is not None:
            return
        await super().start()
        assert self._p is not None
        self._futs = {}
        self._reader = asyncio.create_task(self._read(self._p, self._futs))

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        t0 = time.monotonic()
        async with self._start_lock:
            if self._dead_for_good is not None:
                return Completion(error=self._dead_for_good)
            try:
                await self.start()
            except ModelError as e:
                self.deaths.append(str(e))
                self._dead_for_good = str(e)
                return Completion(error=str(e), latency_s=time.monotonic() - t0)
        assert self._p is not None
        rid, self._next_id = self._next_id, self._next_id + 1
        fut: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._futs[rid] = fut
        stdin = self._p.proc.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps({"id": rid, "prompt": prompt.to_json(), "params": params.to_json()},
                                   ensure_ascii=True).encode() + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader sees the death and fails this request with the reason
        return await fut

    async def _read(self, p: Any, futs: dict[int, asyncio.Future[Completion]]) -> None:
        out = p.proc.stdout
        while True:
            line = await out.readline()
            if not line:
                break
            msg = json.loads(line)
            fut = futs.pop(int(msg["id"]), None)
            if fut is not None and not fut.done():
                fut.set_result(completion_from_json(msg["completion"]))
        rc = await p.proc.wait()
        if self._closing or self._p is not p:
            return
        reason = f"{self.label} died: {EngineDied(describe_exit(rc) + self._stderr_tail())}"
        self.deaths.append(reason)
        self._cleanup()
        if len(self.deaths) > self.max_restarts:
            self._dead_for_good = f"{reason} (not restarted after {len(self.deaths)} deaths)"
        for fut in futs.values():
            if not fut.done():
                fut.set_result(Completion(error=reason))
        futs.clear()

    async def aclose(self) -> None:
        self._closing = True
        await super().aclose()
        if self._reader is not None:
            self._reader.cancel()
        for fut in self._futs.values():
            if not fut.done():
                fut.set_result(Completion(error=f"{self.label} closed"))


# ---------------------------------------------------------------- engine process side
def main() -> None:
    from .worker import start_engine

    started = start_engine()
    if started is None:
        return
    engine, send = started

    def on_event(ev: tuple[str, Any, Any], out: list[tuple[Any, Completion]]) -> None:
        if ev[0] == "request":
            engine.submit(ev[1], *ev[2])
        elif ev[0] == "eof":
            engine.eof = True

    engine.on_event = on_event

    def reader() -> None:
        for line in sys.stdin:
            req = json.loads(line)
            engine._events.put(("request", req["id"],
                                (Prompt.from_json(req["prompt"]), GenParams.from_json(req["params"]))))
        engine._events.put(("eof", None, None))

    threading.Thread(target=reader, daemon=True).start()
    while not (engine.eof and engine.idle()):
        for rid, comp in engine.step(block=True):
            send({"id": rid, "completion": completion_to_json(comp)})


if __name__ == "__main__":
    main()
