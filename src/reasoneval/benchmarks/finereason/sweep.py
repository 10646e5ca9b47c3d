"""The paper's training sweeps (section 5) as one recipe: every mix built by one command, each with a manifest.

A recipe (YAML) names the math data, the puzzles, the defaults of every mix and its sweeps; a sweep sets some
knobs (``set``) and varies others (``vary``: lists, their cartesian product is the sweep's mixes)::

    math: hub:metamathqa            # or a local file (relative to the recipe)
    puzzles: [sudoku, graphcoloring, game24]
    seed: 0
    defaults: {total: 10000, math_ratio: 0.8, unsolvable_ratio: 0.5, sc_ratio: 0.5}
    sweeps:
      math_ratio: {vary: {math_ratio: [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]}}
      scaling: {vary: {total: [2500, 5000], math_ratio: [0.8, 1.0]}}

Knobs are :class:`export.MixConfig`'s fields (``total``, ``math_ratio`` r_m, ``unsolvable_ratio`` r_u,
``sc_ratio``, ``seed``). ``reasoneval finereason sweep RECIPE OUTDIR`` writes ``OUTDIR/<sweep>/<mix>.jsonl``
(the ``finereason export`` format) and beside it ``<mix>.manifest.json`` (config, math provenance, counts by
source / task / label / puzzle, sha256 of the file), plus ``OUTDIR/index.json``. The math file is read once
and the puzzle states are generated once, for the largest need of all the recipe's mixes (also when ``--only``
builds a few); every mix samples from them, so a mix is a pure function of the recipe and its config: the
same config gives the same bytes, in any sweep and in any partial build. ``recipe: paper`` is
the packaged ``data/paper_sweeps.yaml``. Each mix and its manifest are written as soon as it is built, and the
states are kept in ``OUTDIR/states-pool.jsonl``: run again, a sweep keeps every mix already there (same config,
recipe and math, its file's sha256 checked) and reuses the states.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from ... import __version__
from ...core.errors import DataError
from .engines import PUZZLES
from .engines.base import SOLVABLE, UNSOLVABLE
from .export import TRAIN_PUZZLES, MixConfig, build_mix, label_needs, per_label_need, states_pool

KNOBS = {"total": int, "math_ratio": float, "unsolvable_ratio": float, "sc_ratio": float, "seed": int}
TAGS = {"total": "n", "math_ratio": "rm", "unsolvable_ratio": "ru", "sc_ratio": "sc", "seed": "seed"}
PACKAGED = {"paper": Path(__file__).parent / "data" / "paper_sweeps.yaml"}
_TOP = {"math", "puzzles", "seed", "defaults", "sweeps", "description"}


@dataclass(frozen=True)
class Mix:
    sweep: str
    name: str  # file stem inside the sweep's folder, e.g. ``n2500-rm0.8``
    config: MixConfig

    @property
    def key(self) -> str:
        return f"{self.sweep}/{self.name}"


@dataclass
class Recipe:
    path: Path
    sha256: str
    math: str
    puzzles: list[str]
    seed: int
    mixes: list[Mix]


def _knobs(raw: Any, where: str, lists: bool) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise DataError(f"{where}: expected a mapping of knobs ({', '.join(KNOBS)})")
    out: dict[str, Any] = {}
    for k, v in raw.items():
        if k not in KNOBS:
            raise DataError(f"{where}: unknown knob {k!r}; expected one of {', '.join(KNOBS)}")
        vals = v if lists else [v]
        if lists and (not isinstance(v, list) or not v):
            raise DataError(f"{where}.{k}: expected a non-empty list of values")
        conv = []
        for x in vals:
            if isinstance(x, bool) or not isinstance(x, int | float) or (KNOBS[k] is int and x != int(x)):
                raise DataError(f"{where}.{k}: {x!r} is not a{'n integer' if KNOBS[k] is int else ' number'}")
            conv.append(KNOBS[k](x))
        out[k] = conv if lists else conv[0]
    return out


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def load_recipe(spec: str | Path) -> Recipe:
    """Read and check a recipe (a path, or the name of a packaged one); DataError naming file and key."""
    path = PACKAGED.get(str(spec), Path(spec))
    try:
        text = path.read_bytes()
    except OSError as e:
        raise DataError(f"{spec}: cannot read the recipe ({e.strerror}); packaged: {', '.join(PACKAGED)}") from e
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise DataError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from e
    if not isinstance(raw, dict):
        raise DataError(f"{path}: a recipe is a mapping (math, puzzles, seed, defaults, sweeps)")
    unknown = set(raw) - _TOP
    if unknown:
        raise DataError(f"{path}: unknown key(s) {', '.join(sorted(map(str, unknown)))}; expected {', '.join(sorted(_TOP))}")
    math = raw.get("math")
    if not isinstance(math, str) or not math:
        raise DataError(f"{path}: 'math' must name the math data (a file or hub:metamathqa)")
    if not math.startswith("hub:") and not Path(math).is_absolute():
        math = str((path.parent / math).resolve())
    puzzles = raw.get("puzzles", list(TRAIN_PUZZLES))
    if not isinstance(puzzles, list) or not puzzles or any(p not in PUZZLES for p in puzzles):
        raise DataError(f"{path}: puzzles: expected a list of {', '.join(PUZZLES)}, got {puzzles!r}")
    seed = _knobs({"seed": raw.get("seed", 0)}, f"{path}: seed", lists=False)["seed"]
    defaults = {"seed": seed, **_knobs(raw.get("defaults"), f"{path}: defaults", lists=False)}
    sweeps = raw.get("sweeps")
    if not isinstance(sweeps, dict) or not sweeps:
        raise DataError(f"{path}: 'sweeps' must map sweep names to {{set, vary}}")
    mixes: list[Mix] = []
    for name, body in sweeps.items():
        where = f"{path}: sweeps.{name}"
        if not isinstance(body, dict) or set(body) - {"set", "vary", "description"}:
            raise DataError(f"{where}: expected a mapping with 'set' and/or 'vary'")
        fixed = {**defaults, **_knobs(body.get("set"), where + ".set", lists=False)}
        vary = _knobs(body.get("vary"), where + ".vary", lists=True)
        keys = list(vary)
        for combo in itertools.product(*(vary[k] for k in keys)) if keys else [()]:
            knobs = {**fixed, **dict(zip(keys, combo, strict=True))}
            if "total" not in knobs:
                raise DataError(f"{where}: no 'total' (set it in defaults, set or vary)")
            stem = "-".join(f"{TAGS[k]}{_fmt(v)}" for k, v in zip(keys, combo, strict=True)) or "mix"
            try:
                cfg = MixConfig(**knobs)
            except ValueError as e:
                raise DataError(f"{where} ({stem}): {e}") from e
            mixes.append(Mix(str(name), stem, cfg))
    return Recipe(path, hashlib.sha256(text).hexdigest(), math, list(puzzles), seed, mixes)


def select(recipe: Recipe, only: Iterable[str] | None) -> list[Mix]:
    names = list(only or [])
    known = {m.sweep for m in recipe.mixes}
    bad = [n for n in names if n not in known]
    if bad:
        raise DataError(f"{recipe.path}: no sweep {', '.join(bad)}; the recipe has {', '.join(sorted(known))}")
    return [m for m in recipe.mixes if not names or m.sweep in names]


def counts(mix: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def by(field: str) -> dict[str, int]:
        return dict(sorted(Counter(str(m[field]) for m in mix if m[field] is not None).items()))

    return {"total": len(mix), "by_source": by("source"), "by_task": by("task"), "by_label": by("label"),
            "by_puzzle": by("puzzle"), "math_without_gold": sum(m["source"] == "math" and m["gold"] is None
                                                                 for m in mix)}


def _write(path: Path, lines: Iterable[str]) -> str:
    """Write atomically; the sha256 of the bytes written."""
    h = hashlib.sha256()
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            h.update(line.encode("utf-8"))
            fh.write(line)
    os.replace(tmp, path)
    return h.hexdigest()


POOL_FILE = "states-pool.jsonl"  # the sweep's puzzle states, kept in OUTDIR so a resumed sweep does not redraw them


def _pool_key(recipe: Recipe, per_label: int, needs: dict[str, int]) -> dict[str, Any]:
    return {"seed": recipe.seed, "per_label": per_label, "needs": needs, "puzzles": recipe.puzzles,
            "reasoneval": __version__}


def _cached_pool(path: Path, key: dict[str, Any]) -> dict[str, list[dict[str, Any]]] | None:
    """The pool a previous run of this sweep wrote, when it was made for the same key (else None)."""
    try:
        with path.open(encoding="utf-8") as fh:
            head = json.loads(fh.readline() or "null")
            if not isinstance(head, dict) or head.get("key") != key:
                return None
            pool: dict[str, list[dict[str, Any]]] = {p: [] for p in key["puzzles"]}
            for line in fh:
                rec = json.loads(line)
                pool[rec["puzzle"]].append(rec["record"])
            return pool
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _kept_manifest(folder: Path, m: Mix, recipe: Recipe, math_provenance: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest of a mix an earlier run of the sweep finished (same config, recipe and math data, and the
    file still has the sha256 written down), else None."""
    try:
        man = json.loads((folder / f"{m.name}.manifest.json").read_text(encoding="utf-8"))
        if (man.get("config") != {**asdict(m.config), "puzzles": recipe.puzzles} or man.get("math") != math_provenance
                or (man.get("recipe") or {}).get("sha256") != recipe.sha256 or man.get("reasoneval") != __version__):
            return None
        h = hashlib.sha256()
        with (folder / f"{m.name}.jsonl").open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        return man if h.hexdigest() == man.get("sha256") else None
    except (OSError, ValueError, AttributeError):
        return None


def run_sweep(recipe: Recipe, outdir: Path, mixes: Sequence[Mix], math: list[dict[str, str]],
              math_provenance: dict[str, Any], log: Any = None,
              pool_progress: Callable[[int, int], None] | None = None,
              mix_progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Build and write ``mixes``; returns their manifests (also written to ``outdir/index.json``). Each mix and
    its manifest are written as soon as it is built; a mix whose manifest and file are already there from an
    earlier run of the same sweep is kept (a sweep cut short resumes), and the puzzle states are kept in
    ``outdir/states-pool.jsonl`` for the same reason. ``pool_progress(states, needed)``,
    ``mix_progress(mixes done, mixes)``: progress callbacks."""
    need = max((per_label_need(m.config) for m in recipe.mixes), default=0)  # all of them, even with --only
    needs = {lab: max((label_needs(m.config)[lab] for m in recipe.mixes), default=0) for lab in (SOLVABLE, UNSOLVABLE)}
    per_label = need + need // 50 + 2  # a margin: instances equal to a released puzzle are dropped
    key = _pool_key(recipe, per_label, needs)
    todo = [m for m in mixes if _kept_manifest(outdir / m.sweep, m, recipe, math_provenance) is None]
    pool: dict[str, list[dict[str, Any]]] = {p: [] for p in recipe.puzzles}
    if need and todo:
        cached = _cached_pool(outdir / POOL_FILE, key)
        if cached is not None:
            pool = cached
            if log is not None:
                log(f"puzzle states: {sum(map(len, pool.values()))} from {outdir / POOL_FILE}")
        else:
            pool = states_pool(per_label, recipe.seed, recipe.puzzles, needs=needs, progress=pool_progress)
            outdir.mkdir(parents=True, exist_ok=True)
            _write(outdir / POOL_FILE, itertools.chain(
                [json.dumps({"key": key}) + "\n"],
                (json.dumps({"puzzle": p, "record": r}, ensure_ascii=False) + "\n" for p, rs in pool.items()
                 for r in rs)))
    pool_info = {"seed": recipe.seed, "per_label": per_label, "sizes": {p: len(v) for p, v in pool.items()}}
    manifests = []
    for done, m in enumerate(mixes):
        folder = outdir / m.sweep
        kept = None if m in todo else _kept_manifest(folder, m, recipe, math_provenance)
        if kept is not None:
            manifests.append(kept)
            if log is not None:
                log(f"{m.key}: kept from an earlier run, sha256 {kept['sha256'][:12]}")
            if mix_progress is not None:
                mix_progress(done + 1, len(mixes))
            continue
        rows = build_mix(math, pool, m.config)
        folder.mkdir(parents=True, exist_ok=True)
        digest = _write(folder / f"{m.name}.jsonl", (json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        man = {"mix": m.key, "file": f"{m.sweep}/{m.name}.jsonl", "sha256": digest,
               "config": {**asdict(m.config), "puzzles": recipe.puzzles}, "counts": counts(rows),
               "math": math_provenance, "states": pool_info,
               "recipe": {"path": str(recipe.path), "sha256": recipe.sha256}, "reasoneval": __version__}
        _write(folder / f"{m.name}.manifest.json", [json.dumps(man, indent=1, ensure_ascii=False) + "\n"])
        manifests.append(man)
        if log is not None:
            log(f"{m.key}: {len(rows)} samples, sha256 {digest[:12]}")
        if mix_progress is not None:
            mix_progress(done + 1, len(mixes))
    _write(outdir / "index.json", [json.dumps({"recipe": str(recipe.path), "recipe_sha256": recipe.sha256,
                                              "mixes": [{k: x[k] for k in ("mix", "file", "sha256", "config")}
                                                        for x in manifests]}, indent=1) + "\n"])
    return manifests
