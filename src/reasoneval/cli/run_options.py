"""The options of ``reasoneval run``, in typed groups that read as the run does (:func:`.groups.grouped` spreads
them into the command line): which items (:class:`Selection`), how they are asked (:class:`Generation`: what
``runner/launch.plan_run`` turns into the run spec's ``GenParams``), the HTTP client's limits
(:class:`HTTPLimits`: ``runner/launch.http_options``), where they run (:class:`RayOptions`), what is asked
again (:class:`Redo`) and what is printed and stored (:class:`Output`). None of them is part of the run id but
through the run spec ``plan_run`` builds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from ..runner.event_loop import LOOPS
from ..runner.launch import http_options
from .common import DEFAULT_STORE, JsonOpt, OfflineOpt, OptionsOpt, StoreOpt, fail
from .groups import OptionGroup

EXECUTORS = ("local", "ray")


def _read_system(system: str | None) -> str | None:
    if system and system.startswith("@"):
        try:
            return Path(system[1:]).read_text(encoding="utf-8")
        except OSError as e:
            fail(f"--system {system}: {e.strerror or e}")
    return system or None


@dataclass(frozen=True)
class Selection(OptionGroup):
    """Which items: the protocol, the ``--limit`` sample, the data, the benchmark's own ``-O`` options."""

    PANEL = "Items"
    mode: Annotated[str | None, typer.Option(help="protocol (see `reasoneval list`)")] = None
    limit: Annotated[int | None, typer.Option(min=1, help="N items of EACH subset (default: all): a seeded sample keeping the labels' and categories' shares (--limit-mode first: the first N)")] = None
    limit_mode: Annotated[str, typer.Option(help="how --limit picks items: sample (seeded, stratified) | first (the first N in the release's order)")] = "sample"
    limit_seed: Annotated[int, typer.Option(help="seed of the --limit sample (part of the run id)")] = 0
    data: Annotated[str | None, typer.Option(help="dataset path: a folder or file replacing the benchmark's data")] = None
    option: OptionsOpt = None
    offline: OfflineOpt = False

    def plan_args(self) -> dict[str, Any]:
        """``plan_run``'s keyword arguments for the items."""
        return {"mode": self.mode, "limit": self.limit, "limit_mode": self.limit_mode, "limit_seed": self.limit_seed,
                "data": self.data, "option_pairs": self.option}


@dataclass(frozen=True)
class Generation(OptionGroup):
    """How each item is asked: samples and the generation parameters (the run spec's ``GenParams``)."""

    PANEL = "Generation"
    samples: Annotated[int, typer.Option(min=1, help="samples per item")] = 1
    seed: Annotated[int | None, typer.Option(help="seed sent to the model (and of per-sample seeds); default: none sent")] = None
    max_tokens: Annotated[int | None, typer.Option(min=1, help="default: the benchmark's")] = None
    temperature: Annotated[float | None, typer.Option(help="default: greedy / provider default")] = None
    top_p: Annotated[float | None, typer.Option(help="nucleus sampling top-p (default: the benchmark's)")] = None
    reasoning_effort: Annotated[str | None, typer.Option(help="minimal|low|medium|high: sent as reasoning_effort (Anthropic: thinking budget)")] = None
    system: Annotated[str | None, typer.Option(help="system message before every prompt (@FILE reads a file)")] = None
    extra_body: Annotated[str | None, typer.Option(help="JSON object merged into every request body (provider fields)")] = None
    settings: Annotated[str | None, typer.Option(help="named generation settings, e.g. paper (`reasoneval list` shows them)")] = None

    def plan_args(self) -> dict[str, Any]:
        """``plan_run``'s keyword arguments for the generation (``--system @FILE`` read here)."""
        return {"samples": self.samples, "seed": self.seed, "max_tokens": self.max_tokens,
                "temperature": self.temperature, "top_p": self.top_p, "reasoning_effort": self.reasoning_effort,
                "system": _read_system(self.system), "extra_body": self.extra_body, "settings": self.settings}


@dataclass(frozen=True)
class HTTPLimits(OptionGroup):
    """Requests in flight and the HTTP client's timeouts, hedging and response sizes (not part of the run id)."""

    PANEL = "HTTP limits"
    concurrency: Annotated[int, typer.Option(min=1, help="requests in flight")] = 32
    stream: Annotated[bool, typer.Option(help="stream HTTP responses to measure time to first answer token (not part of the run id)")] = True
    timeout_connect: Annotated[float, typer.Option(min=0.1, help="HTTP connect timeout, s (not part of the run id)")] = 10.0
    timeout_read: Annotated[float | None, typer.Option(min=0.1, help="HTTP read timeout, s (default: the total)")] = None
    timeout_total: Annotated[float, typer.Option(min=0.1, help="HTTP timeout of one attempt, s")] = 600.0
    hedge_after: Annotated[float | None, typer.Option(min=0, help="a request with no byte of its answer after S s gives its slot back and one copy is sent, the first answer to start goes on (default adaptive: 4 x the p99 time to first byte, 1-300 s; 0 off)")] = None
    abandon_after: Annotated[float | None, typer.Option(min=0, help="an attempt silent for S s (no byte from any copy) is abandoned and retried; bytes arriving are never abandoned (default adaptive: 8 x the p99 time to first byte, at least 2 s, at most --timeout-total; 0 off)")] = None
    max_extra_requests: Annotated[float, typer.Option(min=0, help="extra requests (hedge copies, abandoned attempts sent again) per run, as a share of its items (rounded up, at least 1; 0: never hedge nor abandon)")] = 0.05
    max_response_mb: Annotated[float | None, typer.Option(min=0.001, help="largest HTTP response read, MiB received (default 64; not part of the run id)")] = None
    max_decoded_mb: Annotated[float | None, typer.Option(min=0.001, help="largest HTTP response once decompressed, MiB (default 64)")] = None
    max_response_chars: Annotated[int | None, typer.Option(min=1, help="most characters of answer + reasoning read from one response (default 8,000,000)")] = None
    event_loop: Annotated[str, typer.Option(help="uvloop (default where installed) | asyncio: the event loop of this process (not part of the run id)")] = "uvloop"

    def check(self) -> None:
        if self.event_loop not in LOOPS:
            fail(f"unknown event loop {self.event_loop!r}: {' or '.join(LOOPS)}")

    def options(self) -> Any:
        """The HTTP client's options (``models/http.HTTPOptions``)."""
        return http_options(timeout_total=self.timeout_total, timeout_connect=self.timeout_connect,
                            timeout_read=self.timeout_read, hedge_after=self.hedge_after,
                            abandon_after=self.abandon_after, stream=self.stream,
                            max_extra_requests=self.max_extra_requests, max_response_mb=self.max_response_mb,
                            max_decoded_mb=self.max_decoded_mb, max_response_chars=self.max_response_chars)


@dataclass(frozen=True)
class RayOptions(OptionGroup):
    """Where the run is executed: this machine, or Ray workers."""

    PANEL = "Ray"
    executor: Annotated[str, typer.Option(help="local | ray")] = "local"
    ray_address: Annotated[str | None, typer.Option(help="ray://host:port (default: start a local cluster)")] = None
    workers: Annotated[int, typer.Option(help="Ray workers")] = 2
    ray_actor_options: Annotated[str | None, typer.Option(help='JSON merged into each Ray worker\'s options, e.g. {"num_gpus": 1}')] = None
    ray_runtime_env: Annotated[str | None, typer.Option(help="JSON runtime_env for ray.init (pip, py_modules, env_vars)")] = None
    ray_worker_concurrency: Annotated[int | None, typer.Option(min=1, help="requests in flight per Ray worker (default: the backend's limit)")] = None
    ray_start_timeout: Annotated[float | None, typer.Option(min=1, help="seconds to wait for the Ray workers to load the model (default 1800)")] = None

    def check(self) -> None:
        if self.executor not in EXECUTORS:
            fail(f"unknown executor {self.executor!r}: {' or '.join(EXECUTORS)}")


@dataclass(frozen=True)
class Redo(OptionGroup):
    """What a run that is already stored asks again."""

    PANEL = "Resume and redo"
    retry_errors: Annotated[bool, typer.Option("--retry-errors", help="re-ask only failed calls")] = False
    retry_unanswered: Annotated[bool, typer.Option("--retry-unanswered", help="also re-ask the items whose stored answer is empty or unextractable (their cached responses are not read)")] = False
    refresh: Annotated[bool, typer.Option("--refresh", help="re-ask every item: the cache is not read, the new answers replace the stored and cached ones")] = False

    def check(self) -> None:
        if self.refresh and self.retry_unanswered:
            fail("--refresh re-asks every item already; drop --retry-unanswered")


@dataclass(frozen=True)
class Output(OptionGroup):
    """Where the run is stored, how it is shown, the name it carries."""

    PANEL = "Output"
    store: StoreOpt = DEFAULT_STORE
    json_out: JsonOpt = False
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True
    name: Annotated[str | None, typer.Option("--name", help="display name in tables and plots (default: the model name without provider and endpoint); stored in the run record, not part of the run id; `reasoneval rename` changes it")] = None
