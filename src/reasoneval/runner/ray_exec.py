"""``--executor ray``: generation on Ray actors, one SQLite writer on the driver.

    reasoneval run BENCHMARK --model vllm/Qwen/Qwen2.5-7B-Instruct?tp=2 --executor ray \\
        --ray-address ray://head:10001 --workers 8

Each Ray actor (a *worker*) loads the model once with ``load_model(spec.model)`` -- the embedded
llama.cpp model on a laptop, vLLM on GPU nodes, or an HTTP client -- and serves ``generate`` calls
concurrently. The driver runs the ordinary :class:`~reasoneval.runner.engine.Runner` unchanged, with a
:class:`RayBackend` in place of a local backend: the Runner looks every request up in the response
cache, reuses what the store already holds, sends only the rest to the workers (least-busy first),
writes each completion to the store as soon as its ObjectRef resolves, scores it and asks the
multi-turn follow-ups. So resume, the cache, ``--retry-errors`` and the store are exactly those of a
local run, and the run id is the same: a run started locally can be finished on Ray and vice versa.

Workers that die (node lost, OOM, ``ray.kill``) are dropped; their in-flight requests are retried on
the others. The cluster settings are flags of ``reasoneval run`` (none is part of the run id):

  --ray-actor-options JSON       merged into each actor's ``.options()``, e.g. ``{"num_gpus": 1}``
  --ray-runtime-env JSON         ``runtime_env`` for ``ray.init`` (e.g. pip/py_modules for nodes)
  --ray-worker-concurrency N     requests in flight per worker (default: the backend's own limit,
                                 at most 256; llama.cpp serves 1 at a time)
  --ray-start-timeout S          seconds to wait for every worker to load its model (default 1800)
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from ..core.benchmark import Benchmark
from ..core.values import Completion, GenParams, Prompt
from ..models.base import ModelBackend, ModelError
from ..models.identity import ModelIdentity, identify
from ..store.sqlite import RunStore
from .engine import RunResult, _generator
from .local import run_local
from .spec import RunSpec

INSTALL_HINT = "the ray executor needs Ray: pip install 'reasoneval[ray]'"
MAX_WORKER_CONCURRENCY = 256
WARN_PENDING_S = 30.0
#: environment the workers of a remote cluster get from the driver (model API settings)
FORWARDED_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "REASONEVAL_API_KEY")
#: how many workers one request may see die under it before it is recorded as an error
MAX_WORKER_DEATHS_PER_REQUEST = 3


class RayUnavailable(ModelError):
    """Ray is not installed (or cannot be imported)."""


class AllWorkersLost(ModelError):
    """No Ray worker is left alive; the run stops (and resumes when the command is run again)."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise RayUnavailable(INSTALL_HINT) from e
    return ray


DEFAULT_START_TIMEOUT_S = 1800.0


def json_object(flag: str, raw: str | None) -> dict[str, Any]:
    """A flag's JSON object (``--ray-actor-options``, ``--ray-runtime-env``); {} when not given."""
    raw = (raw or "").strip()
    if not raw:
        return {}
    try:
        val = json.loads(raw)
    except ValueError as e:
        raise ModelError(f"{flag} is not valid JSON: {e}") from e
    if not isinstance(val, dict):
        raise ModelError(f"{flag} must be a JSON object")
    return val


# --------------------------------------------------------------------------- worker side

def _load_backend(model_spec: str, seed: int, concurrency: int, n_threads: int | None) -> ModelBackend:
    kind, _, rest = model_spec.partition("/")
    if kind == "llamacpp" and n_threads:
        # one llama.cpp thread per CPU the actor was given, not one per core of the node
        from ..models.llamacpp import LlamaCppBackend, resolve_gguf

        return LlamaCppBackend(model_spec, resolve_gguf(rest), seed=seed, n_threads=n_threads)
    from ..models.registry import load_model

    return load_model(model_spec, concurrency=concurrency, seed=seed)


class ModelWorker:
    """The body of one Ray actor: one model, many concurrent ``generate`` calls (an async actor)."""

    def __init__(self, model_spec: str, seed: int, concurrency: int, n_threads: int | None,
                 fingerprint: str = "sampled") -> None:
        self.fingerprint = fingerprint
        self.error: str | None = None
        self.backend: ModelBackend | None = None
        try:
            self.backend = _load_backend(model_spec, seed, concurrency, n_threads)
            self._gen = _generator(self.backend)
        except Exception as e:  # reported by ready(), so the driver can fail with one clear line
            self.error = f"{e.__class__.__name__}: {e}"

    async def ready(self) -> dict[str, Any]:
        import socket

        from .lifecycle import make_ready

        info: dict[str, Any] = {"host": socket.gethostname(), "pid": os.getpid(), "error": self.error}
        if self.backend is not None:
            info.update(max_concurrency=int(self.backend.max_concurrency),
                        supports_images=bool(getattr(self.backend, "supports_images", False)))
            try:  # engines in a process of their own load now; HTTP backends: can this worker reach a replica?
                await make_ready(self.backend)
            except ModelError as e:
                info["error"] = str(e)
            try:  # the weights this worker loaded, by content (each node may hold other bytes at the path)
                info["model_key"] = identify(self.backend.spec, self.fingerprint).key
            except OSError as e:
                info["error"] = f"cannot fingerprint the model files: {e}"
        return info

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        if self.backend is None:
            return Completion(error=f"worker has no model: {self.error}")
        try:
            return await self._gen(prompt, params)
        except Exception as e:  # a backend bug must not kill the actor; the item is an error
            return Completion(error=f"{e.__class__.__name__}: {e}")

    async def replica_stats(self) -> list[dict[str, Any]]:
        stats = getattr(self.backend, "replica_stats", None)
        return stats() if stats is not None else []

    async def aclose(self) -> None:
        if self.backend is not None:
            await self.backend.aclose()


# --------------------------------------------------------------------------- driver side

@dataclass
class Worker:
    handle: Any
    index: int
    host: str = ""
    slots: int = 1
    outstanding: int = 0
    done: int = 0
    failures: int = 0
    alive: bool = True
    death: str = ""
    busy_s: float = 0.0
    first_t: float = 0.0
    last_t: float = 0.0


class RayBackend:
    """A ModelBackend whose ``generate`` runs on the least-busy live Ray worker.

    ``spec`` is the model spec itself, so cache keys and run ids equal those of a local run.
    """

    batched = False

    def __init__(self, spec: str, workers: list[Worker], supports_images: bool = True,
                 ray_module: Any = None) -> None:
        if not workers:
            raise ModelError("the ray executor needs at least one worker")
        self.spec = spec
        #: the one model identity the workers reported (``start_workers``)
        self.model_key: str | None = None
        self.workers = workers
        self.supports_images = supports_images
        self.max_concurrency = sum(w.slots for w in workers)
        self._ray = ray_module or import_ray()
        self._cond: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    async def _acquire(self) -> Worker | None:
        cond = self._condition()
        async with cond:
            while True:
                live = [w for w in self.workers if w.alive]
                if not live:
                    return None
                free = [w for w in live if w.outstanding < w.slots]
                if free:
                    w = min(free, key=lambda x: (x.outstanding / x.slots, x.index))
                    w.outstanding += 1
                    return w
                await cond.wait()

    async def _release(self, w: Worker) -> None:
        cond = self._condition()
        async with cond:
            w.outstanding -= 1
            cond.notify_all()

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        exc = self._ray.exceptions
        t_start = time.monotonic()
        reasons: list[str] = []
        while len(reasons) < MAX_WORKER_DEATHS_PER_REQUEST:
            w = await self._acquire()
            if w is None:  # stop the run rather than store every remaining item as an error
                raise AllWorkersLost("every Ray worker died (" + "; ".join(
                    f"worker {x.index}: {x.death}" for x in self.workers) + "); what was generated is "
                    "stored: run the same command again to resume")
            t0 = time.monotonic()
            try:
                ref = w.handle.generate.remote(prompt, params)
                comp: Completion = await asyncio.wrap_future(ref.future())
            except exc.RayActorError as e:  # the worker died (node lost, OOM, killed): retry elsewhere
                w.failures += 1
                if w.alive:
                    w.alive = False
                    w.death = _first_line(e)
                    print(f"ray worker {w.index} ({w.host}) died: {w.death}; its requests go to the others",
                          file=sys.stderr)
                reasons.append(f"worker {w.index}: {w.death}")
                continue
            except (exc.RayError, ConnectionError) as e:  # lost object, crashed task: try another worker
                w.failures += 1
                reasons.append(f"worker {w.index}: {_first_line(e)}")
                continue
            finally:
                await self._release(w)
            now = time.monotonic()
            w.done += 1
            w.busy_s += now - t0
            w.first_t = w.first_t or t0
            w.last_t = now
            return comp
        return Completion(error=f"ray: {len(reasons)} workers failed under this request ({'; '.join(reasons)})",
                          latency_s=time.monotonic() - t_start)

    def worker_stats(self) -> list[dict[str, Any]]:
        out = []
        for w in self.workers:
            span = (w.last_t - w.first_t) if w.done else 0.0
            out.append({"worker": w.index, "host": w.host, "alive": w.alive, "done": w.done,
                        "failures": w.failures,
                        "throughput_rps": round(w.done / span, 2) if span > 0 else None})
        return out

    def replica_stats(self) -> list[dict[str, Any]]:
        """Per-endpoint counts of an openai-compat model, summed over the workers that used it."""
        ray = self._ray
        live = [w for w in self.workers if w.alive]
        merged: dict[str, dict[str, Any]] = {}
        try:
            per_worker = ray.get([w.handle.replica_stats.remote() for w in live], timeout=30)
        except Exception:
            return []
        for stats in per_worker:
            for s in stats:
                m = merged.setdefault(s["url"], {"url": s["url"], "done": 0, "failures": 0,
                                                 "throughput_rps": 0.0})
                m["done"] += s["done"]
                m["failures"] += s["failures"]
                m["throughput_rps"] = round(m["throughput_rps"] + (s["throughput_rps"] or 0.0), 2)
        return list(merged.values())

    async def aclose(self) -> None:
        ray = self._ray
        live = [w for w in self.workers if w.alive]
        try:
            ray.get([w.handle.aclose.remote() for w in live], timeout=10)
        except Exception:
            pass
        for w in self.workers:
            try:
                ray.kill(w.handle, no_restart=True)
            except Exception:
                pass


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or e.__class__.__name__
    for line in text.splitlines():
        if line.strip():
            return f"{e.__class__.__name__}: {line.strip()}"[:300]
    return e.__class__.__name__


def _resources(ray: Any) -> dict[str, float]:
    try:
        res = ray.cluster_resources()
    except Exception:
        return {}
    return {k: v for k, v in res.items() if k in ("CPU", "GPU") or not (k.startswith("node:") or "memory" in k)}


def _default_gpus(model_spec: str) -> float:
    kind, _, rest = model_spec.partition("/")
    if kind != "vllm":
        return 0.0
    q = dict(parse_qsl(rest.partition("?")[2]))
    tp = int(q.get("tp") or q.get("tensor_parallel_size") or 1)
    pp = int(q.get("pipeline_parallel_size") or 1)
    return float(tp * pp)


def _cpus_per_worker(total_cpus: float, workers: int) -> float:
    share = total_cpus / workers
    if share >= 1:
        return float(math.floor(share))  # Ray wants whole numbers above 1
    return max(0.01, round(share, 2))


def start_workers(model_spec: str, workers: int, seed: int = 0, *, local_cpus: float | None = None,
                  actor_options: dict[str, Any] | None = None, concurrency: int | None = None,
                  start_timeout_s: float | None = None, fingerprint: str = "sampled") -> RayBackend:
    """Start ``workers`` actors that each load ``model_spec``; wait until every one has its model, and the same
    model: local weights are fingerprinted on each worker (``fingerprint``: the method), and workers that hold
    different bytes at the path are one ``ModelError`` line (the backend's ``model_key``: their one key).

    ``local_cpus``: CPUs of the cluster to share among workers (a local cluster); None on a remote
    cluster, where each worker asks for 1 CPU (plus ``tp`` GPUs for vLLM) unless
    ``actor_options`` (``--ray-actor-options``) say otherwise.
    """
    ray = import_ray()
    if workers < 1:
        raise ModelError("--workers must be at least 1")
    opts: dict[str, Any] = {"num_cpus": _cpus_per_worker(local_cpus, workers) if local_cpus else 1.0,
                            "scheduling_strategy": "SPREAD"}
    gpus = _default_gpus(model_spec)
    if gpus:
        opts["num_gpus"] = gpus
    if local_cpus is None:  # a remote cluster: the workers need the driver's API settings
        forwarded = {k: os.environ[k] for k in FORWARDED_ENV if os.environ.get(k)}
        if forwarded:
            opts["runtime_env"] = {"env_vars": forwarded}
    opts.update(actor_options or {})
    n_threads = max(1, int(opts.get("num_cpus") or 1))
    timeout = start_timeout_s or DEFAULT_START_TIMEOUT_S

    actor_cls = ray.remote(ModelWorker)
    handles = [actor_cls.options(**opts).remote(model_spec, seed, concurrency or 32, n_threads, fingerprint)
               for _ in range(workers)]
    refs = [h.ready.remote() for h in handles]
    ask = {k: v for k, v in opts.items() if k in ("num_cpus", "num_gpus", "resources", "memory")}
    try:
        t_end = time.monotonic() + timeout
        ready, pending = ray.wait(refs, num_returns=len(refs), timeout=min(timeout, WARN_PENDING_S))
        if pending and time.monotonic() < t_end:
            # still loading a big model, or waiting for resources the cluster may never have
            print(f"{len(pending)} of {workers} Ray workers not ready after {WARN_PENDING_S:g}s; each asks "
                  f"for {ask}, the cluster has {_resources(ray)}; waiting up to {timeout:g}s "
                  "(--ray-actor-options changes the ask, --ray-start-timeout the wait)",
                  file=sys.stderr)
            ready, pending = ray.wait(refs, num_returns=len(refs), timeout=max(0.0, t_end - time.monotonic()))
        if pending:
            raise ModelError(
                f"only {len(ready)} of {workers} Ray workers started within {timeout:g}s; each asks for "
                f"{ask}, the cluster has {_resources(ray)} (fewer --workers, or "
                "--ray-actor-options to change the ask)")
        infos = ray.get(refs)
    except ModelError:
        for h in handles:
            ray.kill(h, no_restart=True)
        raise
    except ray.exceptions.RayError as e:
        for h in handles:
            ray.kill(h, no_restart=True)
        raise ModelError(f"a Ray worker failed to start {model_spec}: {_first_line(e)}") from e
    errors = [i for i in infos if i.get("error")]
    if errors:
        for h in handles:
            ray.kill(h, no_restart=True)
        raise ModelError(f"Ray worker on {errors[0]['host']} could not use {model_spec}: {errors[0]['error']}")
    keys = {str(i.get("model_key")) for i in infos}
    if len(keys) > 1:
        for h in handles:
            ray.kill(h, no_restart=True)
        shown = ", ".join(f"{i['host']}: {i.get('model_key')}" for i in infos)
        raise ModelError(f"the Ray workers loaded different models from {model_spec} ({shown}): one run asks one "
                         "model; give every node the same files")
    pool = []
    for i, (h, info) in enumerate(zip(handles, infos, strict=True)):
        slots = max(1, min(int(info["max_concurrency"]), concurrency or MAX_WORKER_CONCURRENCY))
        pool.append(Worker(h, i, host=str(info["host"]), slots=slots))
    backend = RayBackend(model_spec, pool, supports_images=all(i["supports_images"] for i in infos),
                         ray_module=ray)
    backend.model_key = keys.pop() if keys else None
    return backend


def adopt_worker_identity(spec: RunSpec, worker_key: str | None) -> None:
    """The workers' model identity, checked against the driver's: where the driver has the weights too, the
    same bytes or one ``ModelError`` line; where it has not (a laptop driving a cluster), the workers' content
    fingerprint is the run's identity."""
    if worker_key is None or worker_key == spec.model_key():
        return
    if spec.model_identity is not None and spec.model_identity.how == "weights":
        raise ModelError(f"the Ray workers hold other weights at {spec.model} ({worker_key}) than this machine "
                         f"({spec.model_key()}): one run asks one model")
    spec.model_id = worker_key
    spec.model_identity = ModelIdentity(worker_key, "weights", {"fingerprinted_on": "ray workers"})


def _init_ray(ray: Any, address: str | None, num_cpus: int | None,
              runtime_env: dict[str, Any] | None = None) -> tuple[bool, float | None]:
    """Connect to ``address`` or start a local cluster. Returns (we started it, local CPUs or None)."""
    import logging

    if ray.is_initialized():  # e.g. a notebook or a test that already called ray.init
        local = address is None and not _is_client(ray)
        return False, (float(ray.cluster_resources().get("CPU", 1)) if local else None)
    runtime_env = runtime_env or None
    if address:
        _check_reachable(address)
        try:
            ray.init(address=address, runtime_env=runtime_env, logging_level=logging.WARNING,
                     log_to_driver=False)
        except (ConnectionError, ray.exceptions.RayError, ValueError, RuntimeError) as e:
            hint = (" (a cluster with token authentication also needs RAY_AUTH_MODE=token and its token "
                    "in RAY_AUTH_TOKEN or ~/.ray/auth_token on this machine)")
            if address.startswith("ray://") and "ray[client]" in str(e):
                hint = " (ray:// needs pip install 'ray[client]')"
            raise ModelError(f"cannot connect to the Ray cluster at {address}: {_first_line(e)}{hint}") from e
        return True, None
    cpus = num_cpus or os.cpu_count() or 1
    # a cluster of this machine alone: loopback only, no dashboard, nothing listens outside
    ray.init(num_cpus=cpus, include_dashboard=False, runtime_env=runtime_env, _node_ip_address="127.0.0.1",
             logging_level=logging.WARNING, log_to_driver=False)
    return True, float(cpus)


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail in one line when nothing listens at ``host:port`` (Ray itself can retry for minutes)."""
    import socket
    from urllib.parse import urlparse

    if address == "auto":
        return
    u = urlparse(address if "://" in address else f"gcs://{address}")
    if not u.hostname or not u.port:
        return
    try:
        socket.create_connection((u.hostname, u.port), timeout=timeout).close()
    except OSError as e:
        raise ModelError(f"cannot reach the Ray cluster at {address}: {e.__class__.__name__}: {e}") from e


def _is_client(ray: Any) -> bool:
    try:
        return bool(ray.util.client.ray.is_connected())
    except Exception:
        return False


def run_ray(bench: Benchmark, spec: RunSpec, store: RunStore, workers: int = 2, address: str | None = None,
            retry_errors: bool = False, progress: bool = True, *, num_cpus: int | None = None,
            actor_options: dict[str, Any] | None = None, concurrency: int | None = None,
            runtime_env: dict[str, Any] | None = None, start_timeout_s: float | None = None,
            refresh: bool = False, retry_unanswered: bool = False) -> RunResult:
    """Run ``spec`` with generation sharded over ``workers`` Ray actors; the store stays on the driver.

    ``address``: ``ray://host:10001`` (or ``auto``) joins an existing cluster; None starts a local one
    with ``num_cpus`` CPUs (default: all) and no dashboard. ``actor_options``, ``concurrency`` (per worker),
    ``runtime_env`` and ``start_timeout_s``: the ``--ray-*`` flags of ``reasoneval run``.
    """
    ray = import_ray()
    started, local_cpus = _init_ray(ray, address, num_cpus, runtime_env)
    backend: RayBackend | None = None
    try:
        backend = start_workers(spec.model, workers, spec.seed, local_cpus=local_cpus,
                                actor_options=actor_options, concurrency=concurrency,
                                start_timeout_s=start_timeout_s, fingerprint=spec.fingerprint)
        adopt_worker_identity(spec, backend.model_key)
        # the judge, the engine and the store exactly as a local run has them, Ray's workers as the model
        res = asyncio.run(run_local(bench, spec, store, backend.max_concurrency, retry_errors, progress,
                                    backend=backend, refresh=refresh, retry_unanswered=retry_unanswered))
        res.extra["executor"] = "ray"
        res.extra["workers"] = backend.worker_stats()
        for s in res.extra["workers"]:
            state = "" if s["alive"] else " (died)"
            print(f"ray worker {s['worker']} on {s['host']}{state}: {s['done']} done, {s['failures']} failures, "
                  f"{s['throughput_rps']} req/s", file=sys.stderr)
        reps = backend.replica_stats()
        if len(reps) > 1:
            res.extra["replicas"] = reps
            for r in reps:
                print(f"replica {r['url']}: {r['done']} done, {r['failures']} failures, "
                      f"{r['throughput_rps']} req/s", file=sys.stderr)
        return res
    finally:
        if backend is not None:
            asyncio.run(backend.aclose())
        if started:
            ray.shutdown()
