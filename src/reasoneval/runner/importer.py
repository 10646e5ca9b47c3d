"""Import completions made elsewhere as runs (``reasoneval import BENCH PATH...``).

The rows come from the benchmark's ``outside_rows`` adapter and are scored by the very code ``rescore`` uses
(:func:`~reasoneval.runner.rescore_outside.score_outside`), so an imported run's numbers are ``rescore``'s. Rows are
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
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from ..core.benchmark import Benchmark, OutsideRow
from ..core.errors import DataError
from ..core.values import GenParams
from ..hub.cache import sha256_file
from ..store.imported import (
    ImportedRunRow,
    ImportRow,
    ImportStaging,
    JudgeRow,
    put_imported_run,
    set_protocol,
)
from ..store.sqlite import RunStore
from .engine import SCORER
from .gcquiet import paused
from .rescore_outside import OutsideScores, StartedOutside, score_outside, start_outside
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


#: rows scored and staged at a time by a streamed import (the memory it holds does not grow with the files)
CHUNK_ROWS = 2000
#: chunks a streamed import has read and started scoring before it waits for the oldest one's verdicts (their
#: SymPy work goes on in the sandbox while the next ones are read): at most CHUNK_ROWS * CHUNKS_STARTED rows held
#: (~20 MB a chunk of KOR-Bench raw outputs; a release's distinct LaTeX answers are in its first ~8 chunks)
CHUNKS_STARTED = 8


def import_rows(bench: Benchmark, store: RunStore, rows: Iterable[OutsideRow | DataError],
                options: Mapping[str, Any], origin: str, name: str | None = None) -> ImportResult:
    """Score ``rows`` as ``rescore`` does and store them as runs (one per source and mode). Without a judge the
    rows are streamed: scored :data:`CHUNK_ROWS` at a time and staged on disk (:class:`ImportStaging`), each
    run then written in one transaction, so memory stays bounded whatever the size of the files."""
    judge = getattr(options.get("judge"), "spec", None)  # a judged import is another run, as a judged run is
    if options.get("judge") is None:
        return _import_streamed(bench, store, rows, options, origin, name)
    got = score_outside(bench, rows, options)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, row in enumerate(got.rows):
        # the model the files name; else the file's name (a row file of one model, as rescore takes them); --name
        # is the display name, never the grouping (the same files under another name are the same run)
        groups[_group_key(row)].append(i)
    hashes: dict[str, str] = {}
    prompt_cache: dict[Any, str] = {}
    runs: list[ImportedRun] = []
    # the rows to store are millions of acyclic tuples: the cyclic collector would walk them again and again
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return ImportResult(_store_groups(bench, store, got, groups, hashes, prompt_cache, runs, origin, judge, name),
                            got.errors)
    finally:
        if gc_was_enabled:
            gc.enable()


def _group_key(row: OutsideRow) -> tuple[str, str]:
    return (row.source or Path(_source_file(row)).stem, row.mode)


@dataclass
class _Group:
    """What a streamed import keeps of one (source, mode) while its rows are read: no rows, only their names."""

    g: int
    files: set[str] = field(default_factory=set)
    subsets: set[str] = field(default_factory=set)
    seen: dict[tuple[str, int], int] = field(default_factory=dict)
    rows: int = 0
    protocol: str = ""


@dataclass
class _RunPlan:
    run_id: str
    prov: list[dict[str, str]]
    record: dict[str, Any] | None  # None: the run is already stored complete (nothing to write)
    spec: RunSpec


def _plan(bench: Benchmark, store: RunStore, source: str, mode: str, files: list[str], subsets: list[str],
          protocol: str, hashes: dict[str, str], origin: str, judge: str | None, name: str | None) -> _RunPlan:
    """The run of one (source, mode): its id (from its files' content), and its record unless it is stored."""
    for f in files:
        if f not in hashes:
            p = Path(f)
            hashes[f] = sha256_file(p) if p.is_file() else ""
    prov = [{"file": Path(f).name, "sha256": hashes[f]} for f in files]
    spec = RunSpec(bench.name, None if _covers(bench, mode, subsets) else ",".join(subsets), mode,
                   source, GenParams(), judge=judge, options=bench.options, data_version=bench.data_version(),
                   origin={"kind": "import", "origin": origin, "files": prov})
    run_id = spec.run_id()
    if any(r["status"] == "complete" for r in store.find_runs(run_id)):
        if name is not None:
            store.set_display_name(run_id, name)
        if protocol:  # a run imported before runs said whose protocol they are: it says so now
            set_protocol(store, run_id, protocol)
        return _RunPlan(run_id, prov, None, spec)
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
    return _RunPlan(run_id, prov, record, spec)


def _sample_of(seen: dict[tuple[str, int], int], row: OutsideRow) -> int:
    """The row's sample; the same item twice in the files is kept as a further sample, as rescore counts it."""
    k = (row.item.key, row.sample)
    if k in seen:
        seen[k] += 1
        return row.sample + 1000 * seen[k]
    seen[k] = 0
    return row.sample


def _import_streamed(bench: Benchmark, store: RunStore, rows: Iterable[OutsideRow | DataError],
                     options: Mapping[str, Any], origin: str, name: str | None) -> ImportResult:
    groups: dict[tuple[str, str], _Group] = {}
    errors: list[DataError] = []
    staging = ImportStaging(store)
    started: deque[StartedOutside] = deque()

    def stage_oldest() -> None:
        got = started.popleft().finish(options)
        errors.extend(got.errors)
        by: dict[int, list[ImportRow]] = defaultdict(list)
        for row, verdicts in zip(got.rows, got.verdicts, strict=True):
            grp = groups.get(key := _group_key(row)) or groups.setdefault(key, _Group(len(groups)))
            grp.files.add(_source_file(row))
            grp.subsets.add(row.item.subset)
            grp.protocol = grp.protocol or row.protocol
            grp.rows += 1
            prompts = [None] * len(row.earlier) + [row.prompt]
            by[grp.g].append((row.item, _sample_of(grp.seen, row),
                              list(zip(prompts, [*row.earlier, row.completion], verdicts, strict=True))))
        for g, staged in by.items():
            staging.add(g, staged, SCORER)

    try:
        it = iter(rows)
        # the rows are acyclic, freed by reference counting as they are staged: the cyclic collector, which would
        # walk every row held each time it ran (a third of the reading time), is paused while they are read
        with paused():
            # each chunk's verdicts are started (SymPy works on them in the background) while the next chunks are
            # read; the oldest is finished and staged once CHUNKS_STARTED are waiting (memory stays bounded)
            while chunk := list(islice(it, CHUNK_ROWS)):
                started.append(start_outside(bench, chunk))
                del chunk
                if len(started) >= CHUNKS_STARTED:
                    stage_oldest()
            while started:
                stage_oldest()
        runs: list[ImportedRun] = []
        hashes: dict[str, str] = {}
        for (source, mode), grp in groups.items():
            plan = _plan(bench, store, source, mode, sorted(grp.files), sorted(grp.subsets), grp.protocol, hashes,
                         origin, None, name)
            if plan.record is None:
                runs.append(ImportedRun(plan.run_id, source, mode, len(grp.seen), 0, True, plan.prov, name,
                                        grp.protocol))
                continue
            # one transaction: the run row and its rows commit together (a killed or full-disk import leaves
            # nothing of this run, and the next import writes it whole)
            n = staging.write_run(grp.g, ImportedRunRow(plan.run_id, bench.name, plan.spec.subset or "*", mode,
                                                        source, plan.record))
            runs.append(ImportedRun(plan.run_id, source, mode, grp.rows, n, False, plan.prov, name, grp.protocol))
        return ImportResult(runs, errors)
    finally:
        for left in started:  # an error on the way: their background work is not waited for
            if left.batch is not None:
                left.batch.close()
        staging.close()


def _store_groups(bench: Benchmark, store: RunStore, got: OutsideScores, groups: dict[tuple[str, str], list[int]],
                  hashes: dict[str, str], prompt_cache: dict[Any, str], runs: list[ImportedRun],
                  origin: str, judge: str | None = None, name: str | None = None) -> list[ImportedRun]:
    for (source, mode), idxs in groups.items():
        files = sorted({_source_file(got.rows[i]) for i in idxs})
        subsets = sorted({got.rows[i].item.subset for i in idxs})
        keys = {(got.rows[i].item.key, got.rows[i].sample) for i in idxs}
        protocol = next((got.rows[i].protocol for i in idxs if got.rows[i].protocol), "")
        plan = _plan(bench, store, source, mode, files, subsets, protocol, hashes, origin, judge, name)
        if plan.record is None:
            runs.append(ImportedRun(plan.run_id, source, mode, len(keys), 0, True, plan.prov, name, protocol))
            continue
        out: list[ImportRow] = []
        judged: list[JudgeRow] = []
        seen: dict[tuple[str, int], int] = {}
        for i in idxs:
            row = got.rows[i]
            sample = _sample_of(seen, row)
            if i in got.judged:  # the judge's answer, stored as a run stores it (``score`` reads it again)
                judged.append((row.item.key, sample, len(row.earlier), row.item.subset, *got.judged[i]))
            prompts = [None] * len(row.earlier) + [row.prompt]
            out.append((row.item, sample, list(zip(prompts, [*row.earlier, row.completion], got.verdicts[i],
                                                   strict=True))))
        # one transaction: the run row, its rows and its judge calls commit together (a killed or full-disk
        # import leaves nothing of this run, and the next import writes it whole)
        n = put_imported_run(store, ImportedRunRow(plan.run_id, bench.name, plan.spec.subset or "*", mode, source,
                                                   plan.record), out, SCORER, prompt_cache, judged) - len(judged)
        runs.append(ImportedRun(plan.run_id, source, mode, len(out), n, False, plan.prov, name, protocol))
    return runs


def import_outside(bench: Benchmark, store: RunStore, paths: list[str], options: Mapping[str, Any],
                   origin: str | None = None, name: str | None = None) -> ImportResult:
    """``reasoneval import``: the benchmark's own adapter reads ``paths``."""
    return import_rows(bench, store, bench.outside_rows(paths, options), options,
                       origin or f"{bench.name} outside files", name)
