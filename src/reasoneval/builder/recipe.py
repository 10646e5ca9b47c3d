"""A build recipe (YAML): steps chained so a whole new version is one command, with a manifest.

    name: mybench-next
    input: questions.jsonl          # rows of the first step (relative to the recipe); optional for generators
    file: mybench-en.jsonl          # name of the final file (and of the data file a benchmark evaluates)
    output: out                     # folder (relative to the recipe; --out overrides)
    steps:
      - step: options
        model: openai-compat/writer@${WRITER_URL}
        seed: 1
      - step: difficulty
        target: mybench:en
        models: [openai-compat/strong@${STRONG_URL}]
        max_pass: 0.5
      - step: translate             # ``branch: true``: written as ``save_as``, the chain goes on with its input
        branch: true
        save_as: mybench-zh.jsonl
        model: ...

Every step's rows are written to ``OUT/work/NN-step/FILE``; ``save_as`` also writes them to ``OUT``. String
values may name environment variables (``${VAR}``). ``OUT/manifest.json`` records the recipe's hash, every
input's sha256, each step's parameters, input and output hashes, runs (ids, models), report, and the outputs.
The hashes chain: a step's ``input_sha256`` is the sha256 of the file its rows came from (``sha256sum`` of the
recipe's input, or of the previous step's ``output``; a ``branch`` step's next step gets that step's own
input). Every step's dependencies (``Step.needs``: MiniLM and torch for ``dedup``, ...) are checked when the
recipe is read, before any step runs or any model is asked.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import yaml

from .. import __version__
from .calls import Context
from .catalog import all_steps
from .params import from_mapping, to_json
from .rows import BuildError, Row, file_sha256, read_rows, write_rows
from .steps import missing

RESERVED = ("step", "branch", "save_as")
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()  # a first step without an input file gets no rows (an empty file)


def load_recipe(path: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise BuildError(f"recipe {path}: {e.strerror or e}") from e
    except yaml.YAMLError as e:
        raise BuildError(f"recipe {path}: not valid YAML ({e})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list) or not doc["steps"]:
        raise BuildError(f"recipe {path}: expected a mapping with a non-empty 'steps' list")
    unknown = sorted(set(doc) - {"name", "input", "file", "output", "store", "steps"})
    if unknown:
        raise BuildError(f"recipe {path}: unknown key(s) {', '.join(unknown)}")
    return doc


def _expand(v: Any) -> Any:
    if isinstance(v, str):
        return os.path.expandvars(v)
    if isinstance(v, list):
        return [_expand(x) for x in v]
    if isinstance(v, dict):
        return {k: _expand(x) for k, x in v.items()}
    return v


def check_steps(doc: dict[str, Any], source: Path) -> list[tuple[str, Any, dict[str, Any]]]:
    """(step name, typed parameters, reserved keys) for every step; every error before any model call."""
    steps = all_steps()
    out = []
    for n, raw in enumerate(doc["steps"], 1):
        if not isinstance(raw, dict) or "step" not in raw:
            raise BuildError(f"recipe {source}: step {n} must be a mapping with a 'step' key")
        name = str(raw["step"])
        if name not in steps:
            raise BuildError(f"recipe {source}: step {n}: unknown step {name!r}; known: {', '.join(sorted(steps))}")
        values = _expand({k: v for k, v in raw.items() if k not in RESERVED})
        params: Any = from_mapping(steps[name].params, name, values)
        out.append((name, params, {k: raw[k] for k in RESERVED if k in raw}))
    lacking = [(n, name, need) for n, (name, params, _) in enumerate(out, 1) for need in missing(steps[name].needs(params))]
    if lacking:  # before the first step: no model is paid for a build that would stop at a later step
        what = "; ".join(f"step {n} ({name}) needs {need.module}: {need.install}" for n, name, need in lacking)
        raise BuildError(f"recipe {source}: {what}")
    return out


def run_recipe(path: Path, out: Path | None = None, store: Path | None = None, concurrency: int = 16,
               progress: bool = False) -> dict[str, Any]:
    """Run every step of the recipe at ``path``; returns the manifest (also written to OUT/manifest.json)."""
    doc = load_recipe(path)
    base = path.parent
    out = out or base / str(doc.get("output") or "build-out")
    store = store or base / str(doc.get("store") or "reasoneval.db")
    final_name = str(doc.get("file") or "data.jsonl")
    plan = check_steps(doc, path)
    inputs: dict[str, str] = {}
    rows: list[Row] = []
    in_hash = EMPTY_SHA256  # the sha256 of the file the next step's rows came from: the hashes chain
    if doc.get("input"):
        src = base / str(_expand(doc["input"]))
        rows = read_rows(src)
        inputs[str(src)] = in_hash = file_sha256(src)
    ctx = Context(store=store, concurrency=concurrency, progress=progress, workdir=out / "work", base=base)
    steps = all_steps()
    manifest: dict[str, Any] = {
        "recipe": {"path": str(path), "sha256": file_sha256(path), "name": doc.get("name")},
        "package_version": __version__, "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "store": str(store), "inputs": inputs, "steps": [], "outputs": {}}
    out.mkdir(parents=True, exist_ok=True)
    for n, (name, params, reserved) in enumerate(plan, 1):
        before = len(ctx.runs)
        res = steps[name].run(rows, params, ctx)
        step_file = write_rows(out / "work" / f"{n:02d}-{name}" / final_name, res.rows)
        out_hash = file_sha256(step_file)
        entry: dict[str, Any] = {
            "index": n, "step": name, "params": to_json(params), "input_sha256": in_hash, "rows_in": len(rows),
            "rows_out": len(res.rows), "output": str(step_file), "output_sha256": out_hash,
            "runs": ctx.runs[before:], "report": res.report}
        for extra_name, extra_rows in res.extra.items():
            p = write_rows(out / extra_name, extra_rows)
            manifest["outputs"][extra_name] = file_sha256(p)
        if reserved.get("save_as"):
            saved = out / str(reserved["save_as"])
            shutil.copyfile(step_file, saved)
            manifest["outputs"][saved.name] = file_sha256(saved)
            entry["saved_as"] = str(saved)
        manifest["steps"].append(entry)
        if not reserved.get("branch"):  # a branch's output is saved aside: the next step gets this one's input
            rows, in_hash = res.rows, out_hash
    final = write_rows(out / final_name, rows)
    manifest["outputs"][final_name] = file_sha256(final)
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    return manifest
