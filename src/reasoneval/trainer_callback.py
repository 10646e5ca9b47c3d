"""Checkpoint evaluation during training: a ``transformers.TrainerCallback`` (TRL's trainers are Trainers) that
evaluates the current checkpoint on chosen benchmarks every N steps and/or on every save, stores the runs, and
puts the figures in the trainer's ``logs`` (so its loggers — console, TensorBoard, W&B, ``state.log_history`` —
get them).

    from reasoneval.trainer_callback import CheckpointEval
    cb = CheckpointEval(["mybench:logic", "toybench"], limit=50, every_n_steps=200, max_seconds=300)
    trainer = GRPOTrainer(..., callbacks=[cb])
    cb.attach(trainer)          # optional: first in line, so loggers listed before it see the figures too

What is evaluated: ``model=None`` (default) takes the local weights, ``hf/<checkpoint dir>`` (the folder the
trainer just saved; every N steps without a save, the current weights are saved to
``<output_dir>/reasoneval-step-N`` first); ``model="openai-compat/name@URL"`` asks a served model instead (a
vLLM server the trainer syncs its weights to). A run's id is its model string and parameters, so a served
model that keeps its name across steps would make every step resume the first step's run: ``{step}`` in the
string is replaced by the step (a server naming each checkpoint), and without it each step sends its step as
the ``seed`` (a ``seed`` of your own then needs ``{step}`` in the model string).

Time: ``max_seconds`` bounds one evaluation (all its benchmarks); when it runs out the evaluation is cancelled,
what was answered stays stored (re-running the same step resumes it) and the figures of the answered part are
logged with ``<prefix>/timed_out = 1``. ``background=True`` runs the evaluation on a thread, so the training step
is not held at all (the figures are logged at the first log after it ends; a trigger while one is still running
is skipped and counted in ``<prefix>/skipped``). Only the main process (``state.is_world_process_zero``)
evaluates. An evaluation that fails (a model that does not load, an unknown benchmark) never stops the
training: ``<prefix>/failed = 1`` is logged, a warning goes to the ``logging`` module and ``callback.errors``
keeps the reason.

Figures logged, per benchmark target ``T`` (``mybench:logic`` -> ``mybench_logic``):
``<prefix>/T/accuracy`` (percent), ``<prefix>/T/<subset>/accuracy``, ``<prefix>/T/errors``, and
``<prefix>/step`` (the checkpoint's step). Every run is also in the store (``store=``, default the CLI's):
``reasoneval runs`` lists them, ``reasoneval.load_run(run_id)`` reads them; ``callback.history`` keeps
``(step, {target: EvalResult})`` for each evaluation.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from .api import EvalResult, evaluate_async, load_run, plan

_log = logging.getLogger(__name__)
CHECKPOINT_PREFIX = "checkpoint"  # transformers' PREFIX_CHECKPOINT_DIR
#: keywords of evaluate() that are not part of what a run is (everything else also goes to ``plan``)
_RUN_ONLY = ("name", "retry_errors", "progress", "offline", "http", "say", "concurrency", "store")


def _tag(target: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", target)


class CheckpointEval(TrainerCallback):  # type: ignore[misc]
    def __init__(self, benchmarks: str | Sequence[str], *, every_n_steps: int | None = None, on_save: bool = True,
                 model: str | None = None, limit: int | None = 50, store: str | os.PathLike[str] | None = None,
                 max_seconds: float | None = 600.0, background: bool = False, prefix: str = "eval",
                 concurrency: int = 8, eval_kwargs: Mapping[str, Any] | None = None) -> None:
        """``benchmarks``: targets as ``reasoneval run`` takes them (``name[:subset,...]``); ``eval_kwargs``:
        more keywords of :func:`reasoneval.evaluate` (``max_tokens``, ``settings``, benchmark options, ...)."""
        if model is not None and "{step}" not in model and "seed" in (eval_kwargs or {}):
            raise ValueError("a served model without {step} in its string gets the step as its seed, so each step "
                             "is a run of its own; with a seed of your own put {step} in the model string")
        if every_n_steps is not None and every_n_steps < 1:
            raise ValueError("every_n_steps must be >= 1 (or None)")
        if not every_n_steps and not on_save:
            raise ValueError("CheckpointEval needs every_n_steps or on_save=True: it would never evaluate")
        self.targets = [benchmarks] if isinstance(benchmarks, str) else list(benchmarks)
        if not self.targets:
            raise ValueError("CheckpointEval needs at least one benchmark")
        self.every_n_steps, self.on_save_eval, self.model = every_n_steps, on_save, model
        self.limit, self.store, self.max_seconds = limit, store, max_seconds
        self.background, self.prefix, self.concurrency = background, prefix.rstrip("/"), concurrency
        self.eval_kwargs = dict(eval_kwargs or {})
        self.history: list[tuple[int, dict[str, EvalResult]]] = []
        self.errors: list[tuple[int, str]] = []  # (step, why) of each evaluation that failed
        self._pending: dict[str, float] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._skipped = 0
        self._evaluated_steps: set[int] = set()
        self._trainer: Any = None

    # -- wiring ---------------------------------------------------------------------------------------
    def attach(self, trainer: Any) -> CheckpointEval:
        """Put this callback first among the trainer's callbacks (adding it if needed), so every logger sees the
        figures it adds to ``logs``; also lets figures still pending at the end of training be logged."""
        handler = trainer.callback_handler
        handler.callbacks[:] = [self, *(c for c in handler.callbacks if c is not self)]
        self._trainer = trainer
        return self

    # -- TrainerCallback ------------------------------------------------------------------------------
    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        step = state.global_step
        if not self.every_n_steps or step % self.every_n_steps or not state.is_world_process_zero:
            return control
        if self.on_save_eval and _saves_at(args, step):
            return control  # the save right after this step evaluates the saved checkpoint
        spec = self._served(step) or f"hf/{self._save_weights(args, step, kwargs)}"
        self._trigger(step, spec)
        if self._pending:
            control.should_log = True  # the figures go out with this step's log
        return control

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if not self.on_save_eval or not state.is_world_process_zero:
            return control
        step = state.global_step
        folder = Path(args.output_dir) / f"{CHECKPOINT_PREFIX}-{step}"
        self._trigger(step, self._served(step) or f"hf/{folder.resolve()}")
        if self._pending:
            control.should_log = True  # logged with the next step's log
        return control

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> Any:
        figs = self._take()
        if figs and logs is not None:
            logs.update(figs)
            last = state.log_history[-1] if state.log_history else None
            if isinstance(last, dict) and last.get("step") == state.global_step:
                last.update(figs)  # Trainer.log appended its copy before the callbacks ran
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if self._thread is not None:
            self._thread.join(self.max_seconds + 30 if self.max_seconds else None)
        figs = self._take()
        if figs and self._trainer is not None:
            self._trainer.log(figs)
        elif figs:  # not attached: no way to reach the loggers now; kept for the caller
            with self._lock:
                self._pending.update(figs)
        return control

    # -- internals ------------------------------------------------------------------------------------
    def _served(self, step: int) -> str | None:
        return None if self.model is None else self.model.replace("{step}", str(step))

    def _step_kwargs(self, step: int, spec: str) -> dict[str, Any]:
        kw: dict[str, Any] = {"name": f"{Path(spec.partition('/')[2]).name or spec} step {step}", **self.eval_kwargs}
        if self.model is not None and "{step}" not in self.model:
            kw["seed"] = step  # the same served model string at every step: the step keeps the runs apart
        return kw

    def _take(self) -> dict[str, float]:
        with self._lock:
            figs, self._pending = self._pending, {}
            if self._skipped:
                figs[f"{self.prefix}/skipped"] = float(self._skipped)
                self._skipped = 0
        return figs

    def _save_weights(self, args: Any, step: int, kwargs: Mapping[str, Any]) -> str:
        model = kwargs.get("model")
        if model is None:
            raise RuntimeError("CheckpointEval: the trainer passed no model to save (give model= a served model)")
        folder = (Path(args.output_dir) / f"reasoneval-step-{step}").resolve()
        model.save_pretrained(folder)
        proc = kwargs.get("processing_class") or kwargs.get("tokenizer")
        if proc is not None:
            proc.save_pretrained(folder)
        return str(folder)

    def _trigger(self, step: int, spec: str) -> None:
        if step in self._evaluated_steps:
            return
        if self._thread is not None and self._thread.is_alive():
            with self._lock:
                self._skipped += 1
            return
        self._evaluated_steps.add(step)
        if self.background:
            self._thread = threading.Thread(target=self._run, args=(step, spec), name="reasoneval-checkpoint-eval",
                                            daemon=True)
            self._thread.start()
        else:
            self._run(step, spec)

    def _run(self, step: int, spec: str) -> None:
        t0 = time.monotonic()
        results: dict[str, EvalResult] = {}
        started: dict[str, str] = {}
        timed_out = False
        failed = None
        try:
            asyncio.run(self._evaluate_all(step, spec, results, started))
        except TimeoutError:
            timed_out = True
        except Exception as e:  # noqa: BLE001 - a failed evaluation is reported, never the end of the training
            failed = f"{type(e).__name__}: {e}"
            self.errors.append((step, failed))
            _log.warning("reasoneval checkpoint evaluation at step %d failed: %s", step, failed)
        figs: dict[str, float] = {f"{self.prefix}/step": float(step)}
        for target in self.targets:
            res = results.get(target)
            if res is None and timed_out:
                res = self._partial(started.get(target))
            if res is not None:
                figs.update(res.figures(f"{self.prefix}/{_tag(target)}/"))
        figs[f"{self.prefix}/seconds"] = round(time.monotonic() - t0, 3)
        if timed_out:
            figs[f"{self.prefix}/timed_out"] = 1.0
        if failed is not None:
            figs[f"{self.prefix}/failed"] = 1.0
        self.history.append((step, results))
        with self._lock:
            self._pending.update(figs)

    async def _evaluate_all(self, step: int, spec: str, results: dict[str, EvalResult],
                            started: dict[str, str]) -> None:
        async def one(target: str) -> None:
            kw = self._step_kwargs(step, spec)
            plan_kw = {k: v for k, v in kw.items() if k not in _RUN_ONLY}
            started[target] = plan(target, spec, limit=self.limit, **plan_kw)[1].run_id()
            results[target] = await evaluate_async(target, spec, limit=self.limit, store=self.store,
                                                   concurrency=self.concurrency, **kw)

        async def all_targets() -> None:
            for target in self.targets:  # one after another: a local model is loaded by one run at a time
                await one(target)

        if self.max_seconds:
            await asyncio.wait_for(all_targets(), self.max_seconds)
        else:
            await all_targets()

    def _partial(self, run_id: str | None) -> EvalResult | None:
        """The figures of what a cancelled evaluation stored, or None when it stored nothing."""
        if run_id is None:
            return None
        try:
            return load_run(run_id, store=self.store)
        except (KeyError, ValueError, FileNotFoundError):
            return None


def _saves_at(args: Any, step: int) -> bool:
    """Whether the trainer saves a checkpoint at ``step`` (``save_strategy="steps"``)."""
    strategy = str(getattr(args, "save_strategy", "")).lower()
    every = getattr(args, "save_steps", 0) or 0
    return strategy.endswith("steps") and isinstance(every, int) and every > 0 and step % every == 0
