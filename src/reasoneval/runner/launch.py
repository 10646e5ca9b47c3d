"""From what a user asked for to a :class:`~.spec.RunSpec`: the one place ``reasoneval run`` and the Python API
(``reasoneval.evaluate``) build a run, so both get the same checks, defaults and run id.

Nothing here prints or exits: a request that cannot run raises :class:`SpecError` (one line, the CLI's
``error:`` line), and lines meant for the user (the named settings applied, a parameter a backend ignores) go
to the caller's ``say``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core import registry
from ..core.values import REASONING_EFFORTS, GenParams
from .spec import RunSpec

LOCAL_KINDS = ("llamacpp", "hf", "vllm")


class SpecError(ValueError):
    """The request cannot become a run (unknown mode, subset, settings, bad data path, ...)."""


def _quiet(line: str) -> None:
    pass


def bench_with_options(name: str, pairs: Iterable[str] | None = None, data: str | None = None,
                       values: Mapping[str, Any] | None = None) -> Any:
    """A fresh instance of benchmark ``name`` with its typed options: ``key=value`` strings (the CLI's ``-O``)
    or a mapping of values (the API's ``**options``), plus ``data``."""
    from ..core.errors import OptionError

    try:
        base = registry.get(name)
    except registry.UnknownBenchmark as e:
        raise SpecError(str(e)) from None
    try:
        if values:
            merged = dict(values)
            if data is not None:
                if "data" in merged and merged["data"] != data:
                    raise OptionError("data= and the data option disagree; give one")
                merged["data"] = data
            opts = base.Options.from_mapping(merged, benchmark=name)
        else:
            opts = base.Options.parse(list(pairs or []), data, benchmark=name)
    except OptionError as e:
        raise SpecError(str(e)) from None
    return registry.create(name, opts)


def plan_run(target: str, model: str, *, mode: str | None = None, limit: int | None = None,
             limit_mode: str = "sample", limit_seed: int = 0, samples: int = 1, seed: int | None = None,
             max_tokens: int | None = None, temperature: float | None = None, top_p: float | None = None,
             reasoning_effort: str | None = None, system: str | None = None, extra_body: str | None = None,
             settings: str | None = None, judge: str | None = None, data: str | None = None,
             option_pairs: Iterable[str] | None = None, option_values: Mapping[str, Any] | None = None,
             say: Callable[[str], None] = _quiet, fingerprint: str = "sampled") -> tuple[Any, RunSpec]:
    """The benchmark (with its options) and the run spec for ``target`` (``benchmark[:subset[,subset]]``) on
    ``model``; every check ``reasoneval run`` makes before it loads a model. ``system``: the text itself.
    ``fingerprint``: how local weights are identified (``models/fingerprint.py``: sampled or full)."""
    if fingerprint not in ("sampled", "full"):
        raise SpecError(f"unknown --fingerprint {fingerprint!r}: sampled or full")
    _check_finite("--temperature", temperature, low=0.0)
    _check_finite("--top-p", top_p, low=0.0, high=1.0)
    if reasoning_effort is not None and reasoning_effort not in REASONING_EFFORTS:
        raise SpecError(f"--reasoning-effort {reasoning_effort!r}: one of {', '.join(REASONING_EFFORTS)} (a value "
                        "only some providers take goes in --extra-body '{\"reasoning_effort\": \"...\"}')")
    name, subset = registry.parse_target(target)
    bench = bench_with_options(name, option_pairs, data, option_values)
    _check_data_path(bench.options.data)
    mode = mode or bench.default_mode
    if mode not in bench.modes():
        raise SpecError(f"unknown mode {mode!r} for {name}; known: {', '.join(bench.modes())}")
    for sub in (subset or "").split(","):
        if sub and sub not in bench.subsets():
            raise SpecError(f"unknown subset {sub!r} of {name}; known: {', '.join(bench.subsets())}")
    params, settings_record = gen_params(bench, model, settings, {
        "max_tokens": max_tokens, "temperature": temperature, "top_p": top_p, "seed": seed,
        "reasoning_effort": reasoning_effort, "system": system,
        "extra_body": check_extra_body(extra_body)}, say)
    try:
        data_version = bench.data_version()
    except (FileNotFoundError, ValueError) as e:
        raise SpecError(data_message(bench, e)) from None
    from .sample import LIMIT_MODES

    if limit_mode not in LIMIT_MODES:
        raise SpecError(f"unknown --limit-mode {limit_mode!r}: {' or '.join(LIMIT_MODES)}")
    spec = RunSpec(name, subset, mode, model, params, samples, seed or 0, limit, judge, bench.options,
                   data_version=data_version, settings=settings_record, limit_mode=limit_mode,
                   limit_seed=limit_seed, fingerprint=fingerprint)
    _check_selects_items(bench, spec)
    try:
        spec.model_key()  # local weights: their content fingerprint, read once here (a missing file: one line)
    except OSError as e:
        raise SpecError(f"{model}: cannot read the model files: {e}") from None
    return bench, spec


def http_options(*, timeout_total: float = 600.0, timeout_connect: float = 10.0, timeout_read: float | None = None,
                 hedge_after: float | None = None, abandon_after: float | None = None, stream: bool = True,
                 max_response_mb: float | None = None, max_decoded_mb: float | None = None,
                 max_response_chars: int | None = None, max_extra_requests: float = 0.05) -> Any:
    """The HTTP client's options (defaults: the CLI's)."""
    from ..models.limits import ResponseLimits
    from ..models.openai_compat import HTTPOptions

    return HTTPOptions(timeout_s=timeout_total, connect_timeout_s=timeout_connect, read_timeout_s=timeout_read,
                       hedge_after_s=hedge_after, abandon_after_s=abandon_after, stream=stream,
                       max_extra_share=max_extra_requests,
                       limits=ResponseLimits.of(max_response_mb, max_decoded_mb, max_response_chars))


def _check_finite(flag: str, value: float | None, low: float, high: float | None = None) -> None:
    """A sampling parameter is a finite number in range (NaN and infinity are not JSON: no server takes them)."""
    if value is None:
        return
    if not math.isfinite(value) or value < low or (high is not None and value > high):
        raise SpecError(f"{flag} {value}: must be a number from {low:g}"
                        + (f" to {high:g}" if high is not None else " up"))


def _check_data_path(raw: str | None) -> None:
    """``--data`` (or ``-O data=``) names a folder or a non-empty regular file: a device, a pipe (``/dev/zero``)
    or an empty file is one line before any benchmark reads it (a missing path: the benchmark explains its
    expected layout)."""
    if not raw:
        return
    p = Path(raw).expanduser()
    if not p.exists() or p.is_dir():
        return
    if not p.is_file():
        raise SpecError(f"--data {raw}: not a regular file or folder")
    if p.stat().st_size == 0:
        raise SpecError(f"--data {raw}: empty file (0 bytes), no items")


def data_message(bench: Any, e: Exception) -> str:
    """The message of a data error; a file that is not text is named (the decoder's message does not)."""
    raw = bench.options.data
    if isinstance(e, UnicodeDecodeError) and raw:
        where = f"--data {raw}" if Path(raw).is_file() else f"a file under --data {raw}"
        return f"{where}: not UTF-8 text ({e.reason} at byte {e.start + 1}); expected JSON, JSON lines or Parquet"
    return str(e)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def check_extra_body(text: str | None) -> str | None:
    """The canonical form of an ``--extra-body`` JSON object."""
    try:
        if text:
            obj = json.loads(text, parse_constant=_no_constant)  # NaN / Infinity: Python reads them, servers do not
            if isinstance(obj, dict):
                from ..models.choices import check_extra_body as check_choices

                check_choices(obj)  # "n": 2 would ask for answers nobody reads (one answer per request)
        return GenParams.canonical_extra(text)
    except ValueError as e:
        raise SpecError(f"--extra-body: {e}") from None


def gen_params(bench: Any, model: str, settings: str | None, flags: dict[str, Any],
               say: Callable[[str], None] = _quiet) -> tuple[GenParams, dict[str, Any] | None]:
    """The benchmark's defaults, then the named settings (described to ``say``), then explicit flags; and the
    record of the settings applied for the run."""
    from ..core.presets import presets_for

    base: GenParams = bench.default_params
    given = {k: v for k, v in flags.items() if v is not None}
    record = None
    if settings:
        presets = presets_for(bench)
        if settings not in presets:
            known = ", ".join(presets) or "none"
            raise SpecError(f"{bench.name} has no settings {settings!r}; known: {known}")
        preset = presets[settings]
        overridden = sorted(k for k in given if k in preset.params and given[k] != preset.params[k])
        for line in preset.describe(overridden):
            say(line)
        params = preset.apply(base, given)
        record = preset.record(overridden)
    else:
        params = dataclasses.replace(base, **given)
    if model.partition("/")[0] in LOCAL_KINDS:
        ignored = [k for k in ("reasoning_effort", "extra_body") if getattr(params, k) is not None]
        if ignored:
            say(f"note: {', '.join(ignored)} apply to HTTP backends only; {model} ignores them")
    return params, record


def _check_selects_items(bench: Any, spec: RunSpec) -> None:
    """A subset/mode pair that selects nothing is a mistake, not an empty run."""
    from .engine import load_items

    try:
        if load_items(bench, spec):
            return
        target = spec.benchmark + (f":{spec.subset}" if spec.subset else "")
        applies = [s for s in bench.subsets() if bench.load(s, spec.mode)]
    except (FileNotFoundError, ValueError, KeyError) as e:
        raise SpecError(str(e.args[0]) if isinstance(e, KeyError) else data_message(bench, e)) from None
    hint = (f"mode {spec.mode!r} applies to: {', '.join(applies)}" if applies
            else f"no subset has items in mode {spec.mode!r}")
    raise SpecError(f"{target} has no items in mode {spec.mode!r}; {hint}")
