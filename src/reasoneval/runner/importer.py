"""Import completions made elsewhere as runs (``reasoneval import BENCH PATH...``).

The rows come from the benchmark's ``outside_rows`` adapter and are scored by the very code ``rescore`` uses
(:func:`~reasoneval.runner.outside.score_outside`), so an imported run's numbers are ``rescore``'s. Rows are
grouped into one run per (source, mode): the source is the model the outside files name (KOR-Bench's
``<model>_<category>_<mode>.jsonl``; a log's model). ``--name`` is the display name (the run record's, as
``run --name`` sets it), never part of the run id: the same files imported under another name are the same
run, whose name is updated. A run whose rows were made with another protocol than ours (a harness log whose
prompts are not the ones the benchmark builds) records it as ``protocol`` (``imported: lm-eval task ...``),
which ``runs`` and the reports show beside the mode. Each run records its provenance (every
source file with its sha256, the origin, the importer's version), and its id is derived from that content, the
benchmark's options and data version: importing the same files again is a no-op, importing them under the other
scoring is another run. The items (release record and gold) are stored with the run, so ``score`` re-grades it
against what it was imported with (:mod:`reasoneval.store.imported`).
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.benchmark import Benchmark, OutsideRow
from ..core.errors import DataError
from ..core.types import GenParams
from ..hub.cache import sha256_file
from ..store.imported import ImportedRunRow, ImportRow, JudgeRow, put_imported_run, set_protocol
from ..store.sqlite import RunStore
from .engine import SCORER
from .outside import OutsideScores, score_outside
from .spec import RunSpec


@dataclass
class ImportedRun:
    run_id: str
    model: str
    mode: str
    items: int
    completions: int
    existed: bool  # already in the store: nothing was written
    files: list[dict[str, str]] = field(default_factory=list)
    name: str | None = None  # the display name set (``--name``); None: the model's
    protocol: str = ""  # the outside protocol (``imported: ...``); empty: ours


@dataclass
class ImportResult:
    runs: list[ImportedRun]
    errors: list[DataError]


def _source_file(row: OutsideRow) -> str:
    where = row.where
    head, sep, tail = where.rpartition(":")
    return head if sep and tail.isdigit() else where


def _covers(bench: Benchmark, mode: str, subsets: list[str]) -> bool:
    """Whether ``subsets`` are every subset the benchmark has in ``mode`` (the run is then of the whole set)."""
    have = set(subsets)
    for s in bench.subsets():
        if s in have:
            continue
        try:
            if bench.load(s, mode):
                return False
        except (DataError, ValueError, KeyError, OSError):
            continue
    return True


def prov_origin(spec: RunSpec) -> dict[str, Any]:
    return dict(spec.origin or {})


def import_rows(bench: Benchmark, store: RunStore, rows: Iterable[OutsideRow | DataError],
                options: Mapping[str, Any], origin: str, name: str | None = None) -> ImportResult:
    """Score ``rows`` as ``rescore`` does and store them as runs (one per source and mode)."""
    got = score_outside(bench, rows, options)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, row in enumerate(got.rows):
        # the model the files name; else the file's name (a row file of one model, as rescore takes them); --name
        # is the display name, never the grouping (the same files under another name are the same run)
        groups[(row.source or Path(_source_file(row)).stem, row.mode)].append(i)
    hashes: dict[str, str] = {}
    prompt_cache: dict[Any, str] = {}
    runs: list[ImportedRun] = []
    # the rows to store are millions of acyclic tuples: the cyclic collector would walk them again and again
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        judge = getattr(options.get("judge"), "spec", None)  # a judged import is another run, as a judged run is
        return ImportResult(_store_groups(bench, store, got, groups, hashes, prompt_cache, runs, origin, judge, name),
                            got.errors)
    finally:
        if gc_was_enabled:
            gc.enable()


def _store_groups(bench: Benchmark, store: RunStore, got: OutsideScores, groups: dict[tuple[str, str], list[int]],
                  hashes: dict[str, str], prompt_cache: dict[Any, str], runs: list[ImportedRun],
                  origin: str, judge: str | None = None, name: str | None = None) -> list[ImportedRun]:
    for (source, mode), idxs in groups.items():
        files = sorted({_source_file(got.rows[i]) for i in idxs})
        for f in files:
            if f not in hashes:
                p = Path(f)
                hashes[f] = sha256_file(p) if p.is_file() else ""
        prov = [{"file": Path(f).name, "sha256": hashes[f]} for f in files]
        subsets = sorted({got.rows[i].item.subset for i in idxs})
        spec = RunSpec(bench.name, None if _covers(bench, mode, subsets) else ",".join(subsets), mode,
                       source, GenParams(), judge=judge, options=bench.options, data_version=bench.data_version(),
                       origin={"kind": "import", "origin": origin, "files": prov})
        run_id = spec.run_id()
        keys = {(got.rows[i].item.key, got.rows[i].sample) for i in idxs}
        protocol = next((got.rows[i].protocol for i in idxs if got.rows[i].protocol), "")
        if any(r["status"] == "complete" for r in store.find_runs(run_id)):
            if name is not None:
                store.set_display_name(run_id, name)
            if protocol:  # a run imported before runs said whose protocol they are: it says so now
                set_protocol(store, run_id, protocol)
            runs.append(ImportedRun(run_id, source, mode, len(keys), 0, True, prov, name, protocol))
            continue
        # (a run of these files that is not complete was left half-written by an older version: written anew)
        record = spec.record(bench.data_version(), bench.prompt_version(mode))
        if protocol:  # the rows' prompts are not the ones this benchmark builds: the run says whose they are
            record["protocol"] = protocol
        if name is not None:
            record["display_name"] = name
        record["origin"] = {**prov_origin(spec), "paths": [str(Path(f).resolve()) for f in files]}
        # the source did not record how it generated: no generation parameters are shown as if known
        record["params"] = {}
        record["params_unknown"] = True
        out: list[ImportRow] = []
        judged: list[JudgeRow] = []
        seen: dict[tuple[str, int], int] = {}
        for i in idxs:
            row = got.rows[i]
            k = (row.item.key, row.sample)
            if k in seen:  # the same item twice in the files: kept as a further sample, as rescore counts it
                seen[k] += 1
                sample = row.sample + 1000 * seen[k]
            else:
                seen[k] = 0
                sample = row.sample
            if i in got.judged:  # the judge's answer, stored as a run stores it (``score`` reads it again)
                judged.append((row.item.key, sample, len(row.earlier), row.item.subset, *got.judged[i]))
            prompts = [None] * len(row.earlier) + [row.prompt]
            out.append((row.item, sample, list(zip(prompts, [*row.earlier, row.completion], got.verdicts[i],
                                                   strict=True))))
        # one transaction: the run row, its rows and its judge calls commit together (a killed or full-disk
        # import leaves nothing of this run, and the next import writes it whole)
        n = put_imported_run(store, ImportedRunRow(run_id, bench.name, spec.subset or "*", mode, source, record),
                             out, SCORER, prompt_cache, judged) - len(judged)
        runs.append(ImportedRun(run_id, source, mode, len(out), n, False, prov, name, protocol))
    return runs


def import_outside(bench: Benchmark, store: RunStore, paths: list[str], options: Mapping[str, Any],
                   origin: str | None = None, name: str | None = None) -> ImportResult:
    """``reasoneval import``: the benchmark's own adapter reads ``paths``."""
    return import_rows(bench, store, bench.outside_rows(paths, options), options,
                       origin or f"{bench.name} outside files", name)
