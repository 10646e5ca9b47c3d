"""The CLI's own event loop (runner/event_loop.py): uvloop where installed, asyncio's otherwise or when asked,
and never the host's: no policy is set, a library caller's loop stays what it was."""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from reasoneval.runner.event_loop import loop_name, run_owned
from reasoneval.runner.signals import Termination

uvloop = pytest.importorskip("uvloop")


async def _loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_the_cli_loop_is_uvloop_and_the_policy_is_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = type(asyncio.get_event_loop_policy())
    assert loop_name() == "uvloop"
    assert run_owned(_loop_type()) is uvloop.Loop
    assert type(asyncio.get_event_loop_policy()) is policy  # nothing global was set
    assert asyncio.run(_loop_type()) is not uvloop.Loop  # a library caller's asyncio.run is asyncio's loop


def test_asyncio_when_asked_or_when_uvloop_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert loop_name("asyncio") == "asyncio"  # run --event-loop asyncio
    assert run_owned(_loop_type(), "asyncio") is not uvloop.Loop
    with pytest.raises(ValueError, match="unknown event loop"):
        loop_name("trio")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` raises ImportError
    assert loop_name() == "asyncio"
    assert run_owned(_loop_type()) is not uvloop.Loop


def test_executor_threads_and_subprocesses_work_on_the_cli_loop(monkeypatch: pytest.MonkeyPatch) -> None:

    async def go() -> tuple[str, bytes, int]:
        loop = asyncio.get_running_loop()
        name = await loop.run_in_executor(None, lambda: threading.current_thread().name)
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "print('hi')",
                                                    stdout=asyncio.subprocess.PIPE)
        out, _ = await proc.communicate()
        return name, out, proc.returncode if proc.returncode is not None else -1

    name, out, code = run_owned(go())
    assert name != threading.main_thread().name and out.strip() == b"hi" and code == 0


def test_sigterm_cancels_the_guarded_task_on_the_cli_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """runner/signals.py's handler is a plain ``signal.signal`` one: on uvloop too it must cancel the run's task
    while the loop waits (here: on a sleep far longer than the test)."""
    threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGTERM)).start()
    t0 = time.monotonic()
    with Termination() as term, pytest.raises(asyncio.CancelledError):
        run_owned(term.guard(asyncio.sleep(30)))
    assert term.signum == signal.SIGTERM and time.monotonic() - t0 < 10


def test_an_unknown_event_loop_is_a_usage_error_before_anything_runs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from reasoneval.cli import app

    res = CliRunner().invoke(app, ["run", "korbench:operation", "--event-loop", "trio", "--limit", "1", "--model",
                                   "openai-compat/x@http://127.0.0.1:9/v1", "--store", str(tmp_path / "s.db")])
    assert res.exit_code == 2 and "unknown event loop 'trio': uvloop or asyncio" in res.output
    assert not (tmp_path / "s.db").exists()
