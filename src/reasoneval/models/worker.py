"""Engine host process: runs a native inference engine away from the harness.

The harness never loads a native engine (llama.cpp, ...) into its own process: a segfault, an abort or an
out-of-memory kill there would take the run, its progress and its store writer with it. Instead
:class:`EngineProcess` starts ``python -m reasoneval.models.worker`` and talks to it over pipes, one JSON
object per line:

    parent -> worker   {"engine": "module:Class", "options": {...}}       (first line: load the engine)
    worker -> parent   {"ready": true} | {"fatal": "why it could not load"}
    parent -> worker   {"prompt": <Prompt json>, "params": <GenParams json>}
    worker -> parent   {"completion": {...}}

When the worker dies, the request in flight becomes a :class:`Completion` with
``error="embedded engine died: signal 11 (SIGSEGV)"`` (stored, never scored as wrong, re-asked by
``--retry-errors``), the engine is restarted for the next request, and after ``max_restarts`` deaths every
further request fails at once with the same reason, so a broken engine costs seconds, not hours.

An engine is any class built as ``Engine(**options)`` whose ``generate(prompt, params)`` returns a
:class:`Completion`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.values import Completion, GenParams, Prompt, Usage
from .base import ModelError
from .validate import token_count

#: bytes of the worker's stderr quoted in an error when it dies
_STDERR_TAIL = 400


class EngineDied(RuntimeError):
    """The engine process exited while it held a request (or while it loaded)."""


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "unknown cause"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
        return f"signal {-returncode} ({name})"
    return f"exit status {returncode}"


def completion_to_json(c: Completion) -> dict[str, Any]:
    return {"text": c.text, "finish_reason": c.finish_reason, "prompt_tokens": c.usage.prompt_tokens,
            "completion_tokens": c.usage.completion_tokens, "latency_s": c.latency_s, "error": c.error,
            "reasoning": c.reasoning, "reasoning_tokens": c.reasoning_tokens, "ttft_s": c.ttft_s}


def completion_from_json(d: dict[str, Any]) -> Completion:
    return Completion(text=d.get("text") or "", finish_reason=d.get("finish_reason"),
                      usage=Usage(token_count(d.get("prompt_tokens")), token_count(d.get("completion_tokens"))),
                      latency_s=None if d.get("latency_s") is None else float(d["latency_s"]), error=d.get("error"), reasoning=d.get("reasoning"),
                      reasoning_tokens=d.get("reasoning_tokens"), ttft_s=d.get("ttft_s"))


@dataclass
class _Proc:
    proc: asyncio.subprocess.Process
    stderr_path: Path


class EngineProcess:
    """Parent side: one engine process, serial requests, restart on death (at most ``max_restarts``)."""

    #: the module run as the engine process (``python -m <worker_module>``)
    worker_module = "reasoneval.models.worker"

    def __init__(self, engine: str, options: dict[str, Any], label: str = "embedded engine",
                 max_restarts: int = 2, load_timeout_s: float = 600.0) -> None:
        self.engine, self.options, self.label = engine, options, label
        self.max_restarts = max_restarts
        self.load_timeout_s = load_timeout_s
        self.deaths: list[str] = []  # one reason per death, in order
        self._p: _Proc | None = None
        self._lock = asyncio.Lock()
        self._dead_for_good: str | None = None

    @property
    def died(self) -> bool:
        return bool(self.deaths)

    async def start(self) -> None:
        """Start the process and load the engine; a load failure is a :class:`ModelError`."""
        if self._p is not None:
            return
        err = tempfile.NamedTemporaryFile(prefix="reasoneval-engine-", suffix=".log", delete=False)
        err.close()
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        with open(err.name, "wb") as errf:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", self.worker_module,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=errf, env=env,
                limit=1 << 30)
        self._p = _Proc(proc, Path(err.name))
        try:
            msg = await asyncio.wait_for(self._exchange({"engine": self.engine, "options": self.options}),
                                         self.load_timeout_s)
        except EngineDied as e:
            self._p = None
            raise ModelError(f"{self.label} died while loading: {e}") from None
        except TimeoutError:
            await self._kill()
            raise ModelError(f"{self.label} did not load within {self.load_timeout_s:g}s") from None
        if "fatal" in msg:
            await self._kill()
            raise ModelError(f"{self.label}: {msg['fatal']}")

    async def _exchange(self, obj: dict[str, Any]) -> dict[str, Any]:
        assert self._p is not None
        proc = self._p.proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(obj, ensure_ascii=True).encode() + b"\n")
            await proc.stdin.drain()
            line = await proc.stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        if not line:
            rc = await proc.wait()
            raise EngineDied(describe_exit(rc) + self._stderr_tail())
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _stderr_tail(self) -> str:
        if self._p is None:
            return ""
        try:
            tail = self._p.stderr_path.read_bytes()[-_STDERR_TAIL:].decode("utf-8", "replace").strip()
        except OSError:
            return ""
        last = tail.splitlines()[-1] if tail else ""
        return f"; last stderr line: {last}" if last else ""

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        async with self._lock:
            t0 = time.monotonic()
            if self._dead_for_good is not None:
                return Completion(error=self._dead_for_good)
            try:
                await self.start()
                reply = await self._exchange({"prompt": prompt.to_json(), "params": params.to_json()})
            except EngineDied as e:
                reason = f"{self.label} died: {e}"
                self.deaths.append(reason)
                self._cleanup()
                if len(self.deaths) > self.max_restarts:
                    self._dead_for_good = f"{reason} (not restarted after {len(self.deaths)} deaths)"
                return Completion(error=reason, latency_s=time.monotonic() - t0)
            except ModelError as e:  # a restart could not load the engine again
                self.deaths.append(str(e))
                self._dead_for_good = str(e)
                return Completion(error=str(e), latency_s=time.monotonic() - t0)
            return completion_from_json(reply["completion"])

    def _cleanup(self) -> None:
        if self._p is not None:
            self._p.stderr_path.unlink(missing_ok=True)
        self._p = None

    async def _kill(self) -> None:
        if self._p is not None and self._p.proc.returncode is None:
            self._p.proc.kill()
            await self._p.proc.wait()
        self._cleanup()

    async def aclose(self) -> None:
        if self._p is None:
            return
        proc = self._p.proc
        if proc.returncode is None and proc.stdin is not None:
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                pass
        await self._kill()


# ---------------------------------------------------------------- worker side
def _load(spec: str, options: dict[str, Any]) -> Any:
    mod, _, cls = spec.partition(":")
    return getattr(importlib.import_module(mod), cls)(**options)


def start_engine() -> tuple[Any, Callable[[dict[str, Any]], None]] | None:
    """The engine process's start: the protocol takes the real stdout (anything a native library prints goes
    to stderr instead), the engine named by the parent's first line is loaded and ``ready`` is sent. Returns
    (engine, send), or None when the parent went away or loading failed (reported to it as one line)."""
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="ascii", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def send(obj: dict[str, Any]) -> None:
        proto.write(json.dumps(obj, ensure_ascii=True) + "\n")
        proto.flush()

    first = sys.stdin.readline()
    if not first:
        return None
    hello = json.loads(first)
    try:
        engine = _load(hello["engine"], hello.get("options") or {})
    except ModelError as e:
        send({"fatal": str(e)})
        return None
    except Exception as e:  # noqa: BLE001 - reported to the parent as one line
        send({"fatal": f"{e.__class__.__name__}: {e}"})
        return None
    send({"ready": True})
    return engine, send


def main() -> None:
    started = start_engine()
    if started is None:
        return
    engine, send = started
    for line in sys.stdin:
        req = json.loads(line)
        prompt, params = Prompt.from_json(req["prompt"]), GenParams.from_json(req["params"])
        try:
            comp = engine.generate(prompt, params)
        except Exception as e:  # noqa: BLE001 - an engine exception is this item's error, not the run's
            comp = Completion(error=f"engine error: {e.__class__.__name__}: {e}")
        send({"completion": completion_to_json(comp)})


if __name__ == "__main__":
    main()
