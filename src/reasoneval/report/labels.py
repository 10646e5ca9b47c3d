"""Display names of runs: the one place tables and plots get a run's label from.

A run's **display name** is what a reader calls the model: ``spec.display_name`` when the run was named
(``reasoneval run --name``, ``import --name``, ``reasoneval rename RUN NAME``), else the name part of the model
string: the endpoint (``@http://host:port/v1``) and the provider (``openai-compat/``) are dropped, and of a
path only the last part is kept (``hf/Qwen/Qwen2.5-7B-Instruct`` -> ``Qwen2.5-7B-Instruct``). The served
model id a server reports is not stored with the completions, so the model string is what decides: the same
model behind two ports has one display name. The display name is stored in the run record, never in the run id.

:func:`run_labels` makes the names unique where runs would otherwise look the same: runs of one benchmark
with the same display name get a suffix naming what differs, in this order: the benchmark (only when runs of
several benchmarks are labelled together), mode (``Qwen2.5-7B (three-shot)``),
options (``(corrected)``; ``key=value`` for values that are not text), generation parameters
(``(temperature=0.7)``), the item selection (``(limit=50)``), the endpoint the model string names, and last
the run id.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

#: the longest display name accepted by ``--name`` / ``rename``
MAX_NAME = 120

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_PROVIDERS = ("openai-compat", "openai", "anthropic", "hf", "vllm", "llamacpp")


class HasRun(Protocol):
    run: dict[str, Any]


def clean_name(name: str) -> str:
    """A display name as given on the command line, checked: one line of at most :data:`MAX_NAME` characters.
    Raises ``ValueError`` with the reason."""
    s = name.strip()
    if not s:
        raise ValueError("a display name may not be empty")
    if _CONTROL.search(s):
        raise ValueError(f"a display name may not hold control characters: {s!r}")
    if len(s) > MAX_NAME:
        raise ValueError(f"a display name has at most {MAX_NAME} characters (got {len(s)})")
    return s


def _endpoint(model: str) -> tuple[str, str]:
    """(model without endpoint, endpoint or "")."""
    m = re.match(r"^(.*?)@((?:[a-z][a-z0-9+.-]*://|[\w.-]+:\d).*)$", model, re.I)
    return (m.group(1), m.group(2)) if m else (model, "")


def default_display_name(model: str) -> str:
    """The name part of a model string: ``openai-compat/Qwen2.5-7B@http://h:18931/v1`` -> ``Qwen2.5-7B``."""
    bare, _ = _endpoint(model.strip())
    provider, sep, rest = bare.partition("/")
    name = rest if sep and provider.lower() in _PROVIDERS else bare
    if provider.lower() == "llamacpp" and name in ("", "default"):
        return _CONTROL.sub("?", bare) or "?"
    parts = [p for p in re.split(r"[/\\]", name) if p]
    last = parts[-1] if parts else name
    last = re.sub(r"\.gguf$", "", last, flags=re.I)
    return _CONTROL.sub("?", last) or _CONTROL.sub("?", model) or "?"


def display_name(run: Mapping[str, Any]) -> str:
    """The run's display name: the stored one, else :func:`default_display_name` of its model string."""
    spec = run.get("spec") or {}
    stored = spec.get("display_name") if isinstance(spec, Mapping) else None
    if isinstance(stored, str) and stored.strip():
        return _CONTROL.sub("?", stored.strip())
    return default_display_name(str(run.get("model", "?")))


def mode_label(run: Mapping[str, Any]) -> str:
    """The run's mode as tables show it: the mode, or for a run imported from another harness whose prompts are
    not the benchmark's own, its origin first (``imported: lm-eval task mybench_logic (as zero-shot)``)."""
    spec = run.get("spec") or {}
    protocol = spec.get("protocol") if isinstance(spec, Mapping) else None
    mode = str(run.get("mode") or "")
    if isinstance(protocol, str) and protocol.strip():
        return f"{_CONTROL.sub('?', protocol.strip())} (as {mode})"
    return mode


def _flat(x: Any) -> str:
    return x if isinstance(x, str) else json.dumps(x, sort_keys=True, ensure_ascii=False)


def _options(run: Mapping[str, Any]) -> dict[str, str]:
    opts = (run.get("spec") or {}).get("options") or {}
    return {k: _flat(v) for k, v in sorted(opts.items()) if v is not None} if isinstance(opts, Mapping) else {}


def _params(run: Mapping[str, Any]) -> dict[str, str]:
    params = (run.get("spec") or {}).get("params") or {}
    return {k: _flat(v) for k, v in sorted(params.items())} if isinstance(params, Mapping) else {}


def _selection(run: Mapping[str, Any]) -> dict[str, str]:
    spec = run.get("spec") or {}
    keys = ("limit", "limit_sample", "samples", "seed", "data_version", "subset")
    out = {k: _flat(spec.get(k)) for k in keys if isinstance(spec, Mapping) and spec.get(k) is not None}
    if run.get("subset") not in (None, "", "*"):
        out["subset"] = str(run["subset"])
    return out


def _endpoint_of(run: Mapping[str, Any]) -> dict[str, str]:
    model = str(run.get("model", ""))
    bare, url = _endpoint(model)
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", url, flags=re.I).split("/")[0].split(",")[0]
    return {"endpoint": host or bare.partition("/")[0]}


def _differences(get: Callable[[Mapping[str, Any]], dict[str, str]], show_key: bool
                 ) -> Callable[[int, Sequence[Mapping[str, Any]], list[int]], str]:
    def extra(i: int, runs: Sequence[Mapping[str, Any]], group: list[int]) -> str:
        vals = [get(runs[j]) for j in group]
        keys = list(dict.fromkeys(k for d in vals for k in d))
        mine = get(runs[i])
        parts = []
        for k in keys:
            if len({d.get(k, "") for d in vals}) > 1 and k in mine:  # a run without the key: nothing to add
                v = mine[k]
                parts.append(v if not show_key and re.fullmatch(r"[A-Za-z0-9][\w.:/-]*", v) else f"{k}={v}")
        return ", ".join(parts)
    return extra


_EXTRAS: tuple[Callable[[int, Sequence[Mapping[str, Any]], list[int]], str], ...] = (
    lambda i, runs, group: str(runs[i].get("benchmark", "")),  # labels across benchmarks (per_benchmark=False)
    lambda i, runs, group: mode_label(runs[i]),
    _differences(_options, show_key=False),
    _differences(_params, show_key=True),
    _differences(_selection, show_key=True),
    _differences(_endpoint_of, show_key=False),
    lambda i, runs, group: "#" + str(runs[i].get("run_id", ""))[:8],
    lambda i, runs, group: f"#{i + 1}",
)


def labels_of_runs(runs: Sequence[Mapping[str, Any]], per_benchmark: bool = True) -> list[str]:
    """One label per run record: its display name, with a suffix ``(three-shot, corrected)`` where two runs
    of one benchmark (of all runs when ``per_benchmark`` is False) would otherwise carry the same label."""
    names = [display_name(r) for r in runs]
    scope = [str(r.get("benchmark", "")) if per_benchmark else "" for r in runs]
    added: list[list[str]] = [[] for _ in runs]

    def current(i: int) -> str:
        return names[i] + (f" ({', '.join(added[i])})" if added[i] else "")

    for extra in _EXTRAS:
        groups: dict[tuple[str, str], list[int]] = defaultdict(list)
        for i in range(len(runs)):
            groups[(scope[i], current(i))].append(i)
        clash = [g for g in groups.values() if len(g) > 1]
        if not clash:
            break
        for g in clash:
            got = {i: extra(i, runs, g) for i in g}
            if len(set(got.values())) == 1:  # this feature does not tell them apart: try the next one
                continue
            for i in g:
                if got[i]:
                    added[i].append(got[i])
    return [current(i) for i in range(len(runs))]


def run_labels(views: Sequence[HasRun], per_benchmark: bool = True) -> list[str]:
    """:func:`labels_of_runs` of report views (anything with a ``run`` record)."""
    return labels_of_runs([v.run for v in views], per_benchmark)
