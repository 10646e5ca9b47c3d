"""Other harnesses' logs as outside rows: lm-evaluation-harness ``--log_samples`` files and inspect-ai eval logs.

Each sample is mapped to one of the benchmark's items: the target is named by ``--as benchmark:subset[:mode]``
or by the log's task name (``<benchmark>_<subset>``, e.g. ``mybench_logic``), and the item by the sample's id
(inspect's ``id``; lm-eval's ``doc`` field ``idx`` / ``id`` / ``item_id`` / ``question_id``; else the position,
``doc_id``) among the items ``Benchmark.load(subset, mode)`` gives. The response is the model's raw text (lm-eval's
``resps``, inspect's ``output.completion``); scoring is ours. The prompt the harness sent is kept (lm-eval's
``arguments``, inspect's ``input``; :mod:`.harness_match`): a run whose prompts are not the ones the benchmark
builds is labelled with its origin (``imported: lm-eval task mybench_logic``). A sample whose dataset fields
disagree with the item it is mapped to refuses the import (unless ``force``). lm-eval records no latency (it is
unknown, None); inspect's ``output.time`` is kept. Nothing here names a benchmark.

lm-eval writes ``<out>/<model>/samples_<task>_<time>.jsonl`` beside ``results_<time>.json`` (whose
``model_name`` names the model); inspect-ai writes ``.eval`` (a zip of JSON documents) or ``.json`` logs whose
``eval`` names the task and model.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.benchmark import Benchmark, OutsideRow
from ..core.errors import DataError
from ..core.jsonl import TooDeep, iter_jsonl_tolerant, json_value, located
from ..core.safetext import strip_controls
from ..core.values import Completion, Item, Usage
from .harness_match import check_mapping, inspect_prompt, lmeval_prompt, protocol_of

ID_FIELDS = ("idx", "id", "item_id", "question_id", "index")


@dataclass(frozen=True)
class Target:
    subset: str
    mode: str


def parse_as(text: str, bench: Benchmark) -> Target:
    """``benchmark:subset[:mode]`` (the benchmark must be the one imported into)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or parts[0] != bench.name:
        raise DataError(f"--as {text!r}: expected {bench.name}:SUBSET[:MODE]")
    mode = parts[2] if len(parts) == 3 else bench.modes()[0]
    _check(bench, parts[1], mode, f"--as {text!r}")
    return Target(parts[1], mode)


def _check(bench: Benchmark, subset: str, mode: str, where: str) -> None:
    if subset not in bench.subsets():
        raise DataError(f"{where}: unknown subset {subset!r} of {bench.name}; known: {', '.join(bench.subsets())}")
    if mode not in bench.modes():
        raise DataError(f"{where}: unknown mode {mode!r} of {bench.name}; known: {', '.join(bench.modes())}")


def target_of_task(task: str, bench: Benchmark, where: str) -> Target:
    """A task named ``<benchmark>_<subset>`` or ``<benchmark>_<subset>_<mode>`` (any of ``_ - : /`` between)."""
    norm = re.sub(r"[-:/]", "_", task)
    prefix = bench.name + "_"
    if norm.startswith(prefix):
        rest = norm[len(prefix):]
        for sub in sorted(bench.subsets(), key=len, reverse=True):
            key = re.sub(r"[-:/]", "_", sub)
            if rest == key:
                return Target(sub, bench.modes()[0])
            if rest.startswith(key + "_"):
                mode = next((m for m in bench.modes() if re.sub(r"[-:/]", "_", m) == rest[len(key) + 1:]), None)
                if mode:
                    return Target(sub, mode)
    raise DataError(f"{where}: task {task!r} is not one of {bench.name}'s ({bench.name}_<subset>[_<mode>]); "
                    f"name the target with --as {bench.name}:SUBSET[:MODE]")


class Items:
    """The benchmark's items of each (subset, mode), loaded once, found by id or position."""

    def __init__(self, bench: Benchmark) -> None:
        self.bench = bench
        self._by: dict[Target, tuple[dict[str, Item], list[Item]]] = {}

    def find(self, t: Target, ids: list[Any], position: int | None, where: str) -> Item:
        if t not in self._by:
            items = self.bench.load(t.subset, t.mode)
            self._by[t] = ({it.id: it for it in items}, items)
        by_id, items = self._by[t]
        for i in ids:
            if i is not None and str(i) in by_id:
                return by_id[str(i)]
        if not any(i is not None for i in ids) and position is not None and 0 <= position < len(items):
            return items[position]
        raise DataError(f"{where}: no {self.bench.name} {t.subset} item with id {', '.join(map(repr, ids))}")


def _text(x: Any) -> str | None:
    while isinstance(x, list) and x:
        x = x[0]
    return x if isinstance(x, str) else None


# ---- lm-evaluation-harness
def _lmeval_model(samples: Path) -> tuple[str, DataError | None]:
    """The model a ``results_*.json`` beside ``samples`` names (else the folder's name), and the error of a
    results file that could not be read for it."""
    problem: DataError | None = None
    for res in sorted(samples.parent.glob("results_*.json"), reverse=True):
        try:
            doc = json_value(res.read_bytes())
        except TooDeep as e:  # named: it would have been a RecursionError
            problem = problem or DataError(f"{res}: {e}; the model is named after the folder")
            continue
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict):
            continue
        config = doc.get("config")
        name = doc.get("model_name") or (config.get("model_args") if isinstance(config, dict) else None)
        if isinstance(name, str) and name:
            return name, problem
    return samples.parent.name, problem


def lmeval_rows(path: Path, bench: Benchmark, items: Items, target: Target | None,
                force: bool = False, as_: str | None = None) -> Iterator[OutsideRow | DataError]:
    m = re.match(r"samples_(.+)_\d{4}-\d\d-\d\dT[\d\-.]+\.jsonl$", path.name)
    task = m.group(1) if m else path.stem.removeprefix("samples_")
    try:
        t = target or target_of_task(task, bench, str(path))
    except DataError as e:
        yield e
        return
    model, problem = _lmeval_model(path)
    if problem is not None:
        yield problem
    mapped = f"--as {as_}" if as_ else f"the task name {task!r}"
    # line by line, each line bounded (core/jsonl.py): an over-long or too deeply nested line is an error naming
    # it, and the lines after it are read
    for line, rec in iter_jsonl_tolerant(path, lambda p, n, msg: DataError(located(p, n, msg))):
        where = f"{path}:{line}"
        if isinstance(rec, DataError):
            yield rec
            continue
        raw_doc = rec.get("doc")
        doc: dict[str, Any] = raw_doc if isinstance(raw_doc, dict) else {}
        text = _text(rec.get("resps"))
        if text is None:
            yield DataError(f"{where}: no text response in 'resps' (a generate_until task is needed)")
            continue
        try:
            item = items.find(t, [doc.get(k) for k in ID_FIELDS if k in doc], rec.get("doc_id"), where)
        except DataError as e:
            yield e
            continue
        prompt = lmeval_prompt(rec.get("arguments"))
        if not force:
            check_mapping(bench, item, t.mode, doc, prompt, f"{where} (doc_id {rec.get('doc_id')!r})", mapped)
        yield OutsideRow(item, t.mode, Completion(text, latency_s=None), where, source=model, prompt=prompt,
                         protocol=protocol_of(bench, item, t.mode, prompt, f"imported: lm-eval task {task}"))


# ---- inspect-ai
ZSTD = 93  # the zip compression method inspect-ai's .eval logs use (zipfile reads only stored/deflate/bz2/lzma)
_MB = 1 << 20
#: bytes one member of an inspect-ai ``.eval`` log may have once decompressed, and all its members together
#: (a zip or Zstandard bomb stops there: one line naming the member, never gigabytes of memory); ``reasoneval
#: import --max-member-mb / --max-log-mb`` change them
MAX_MEMBER = 256 * _MB
MAX_TOTAL = 2048 * _MB
_CHUNK = _MB


class _Budget:
    """The decompressed bytes the members of one log may still have (``total``, default :data:`MAX_TOTAL`), and
    the most one member may have (``member``, default :data:`MAX_MEMBER`)."""

    def __init__(self, total: int | None = None, member: int | None = None) -> None:
        self.total = MAX_TOTAL if total is None else total
        self.member = MAX_MEMBER if member is None else member
        self.left = self.total


def _bounded(stream: io.RawIOBase | io.BufferedIOBase | Any, where: str, budget: _Budget) -> bytes:
    """Everything ``stream`` decompresses, read a chunk at a time and refused past :data:`MAX_MEMBER` bytes or
    the log's remaining :class:`_Budget`."""
    cap = min(budget.member, budget.left)
    out = bytearray()
    while True:
        chunk = stream.read(min(_CHUNK, cap + 1 - len(out)))
        if not chunk:
            break
        out += chunk
        if len(out) > cap:
            if cap == budget.member:
                raise DataError(f"{where}: more than {budget.member // _MB} MiB once decompressed (a zip bomb?; "
                                "import --max-member-mb raises the limit)")
            budget.left = 0
            raise DataError(f"{where}: the log's members exceed {budget.total // _MB} MiB in all once decompressed; "
                            "the members after it are not read (import --max-log-mb raises the limit)")
    budget.left -= len(out)
    return bytes(out)


def _member(z: zipfile.ZipFile, name: str, budget: _Budget | None = None) -> bytes:
    """One member of a zip, Zstandard-compressed ones included (decompressed with ``zstandard``), bounded (by
    ``budget``, shared by a log's members; None: this member alone, within the total)."""
    if budget is None:
        budget = _Budget()
    where = f"{z.filename}!{name}"
    info = z.getinfo(name)
    if info.compress_type != ZSTD:
        with z.open(name) as f:
            return _bounded(f, where, budget)
    try:
        import zstandard
    except ImportError:
        raise DataError(f"{z.filename}: this inspect-ai log is Zstandard-compressed; reading it needs "
                        "`pip install zstandard` (or the `logs` extra), or write the log with --log-format json") from None
    fp = z.fp
    assert fp is not None
    fp.seek(info.header_offset)
    head = fp.read(30)
    if head[:4] != b"PK\x03\x04":
        raise DataError(f"{where}: bad local header")
    skip = int.from_bytes(head[26:28], "little") + int.from_bytes(head[28:30], "little")
    fp.seek(info.header_offset + 30 + skip)
    raw = fp.read(info.compress_size)
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True) as f:
            return _bounded(f, where, budget)
    except zstandard.ZstdError as e:
        raise DataError(f"{where}: not Zstandard data ({e})") from None


def _json_doc(data: bytes | str, where: str) -> dict[str, Any]:
    try:
        doc = json_value(data)
    except ValueError as e:  # invalid, or nested deeper than the parser goes
        raise DataError(f"{where}: not JSON ({e})") from None
    if not isinstance(doc, dict):
        raise DataError(f"{where}: not a JSON object")
    return doc


def _inspect_docs(path: Path, limits: tuple[int, int] | None = None
                  ) -> tuple[dict[str, Any], Iterator[tuple[str, dict[str, Any] | DataError]]]:
    """(header, (where, sample or the error reading it) one by one) of a ``.eval`` (zip) or ``.json`` log;
    ``limits``: (bytes per member, bytes per log) once decompressed (default :data:`MAX_MEMBER`,
    :data:`MAX_TOTAL`)."""
    if zipfile.is_zipfile(path):
        z = zipfile.ZipFile(path)
        budget = _Budget(None, None) if limits is None else _Budget(limits[1], limits[0])
        try:
            names = z.namelist()
            head_name = "header.json" if "header.json" in names else "_journal/start.json"
            header = _json_doc(_member(z, head_name, budget), f"{path}!{head_name}")
        except BaseException:
            z.close()
            raise

        def samples() -> Iterator[tuple[str, dict[str, Any] | DataError]]:
            with z:
                for n in sorted(names):
                    if not (n.startswith("samples/") and n.endswith(".json")):
                        continue
                    where = f"{path}!{n}"
                    try:
                        yield where, _json_doc(_member(z, n, budget), where)
                    except DataError as e:
                        yield where, e
                        if budget.left <= 0:
                            return
                    except (OSError, zipfile.BadZipFile, EOFError) as e:
                        yield where, DataError(f"{where}: cannot be read ({e})")

        return header, samples()
    doc = _json_doc(path.read_bytes(), str(path))
    raw = doc.get("samples") or []
    return doc, iter([(f"{path}:samples[{i}]", s if isinstance(s, dict) else DataError(
        f"{path}:samples[{i}]: not a sample object")) for i, s in enumerate(raw if isinstance(raw, list) else [])])


def _inspect_text(sample: dict[str, Any]) -> str | None:
    out = sample.get("output") or {}
    if isinstance(out.get("completion"), str) and out["completion"]:
        return str(out["completion"])
    for choice in out.get("choices") or []:
        content = (choice.get("message") or {}).get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    return None


def inspect_rows(path: Path, bench: Benchmark, items: Items, target: Target | None,
                 force: bool = False, as_: str | None = None,
                 limits: tuple[int, int] | None = None) -> Iterator[OutsideRow | DataError]:
    try:
        header, samples = _inspect_docs(path, limits)
    except DataError as e:
        yield DataError(f"not an inspect-ai log: {e}")
        return
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
        yield DataError(f"{path}: not an inspect-ai log ({e})")
        return
    ev_raw = header.get("eval")
    ev: dict[str, Any] = ev_raw if isinstance(ev_raw, dict) else {}
    try:
        t = target or target_of_task(str(ev.get("task", "")).rpartition("/")[2], bench, str(path))
    except DataError as e:
        yield e
        return
    model = str(ev.get("model") or "unknown").rpartition("/")[2]
    task = str(ev.get("task", "")).rpartition("/")[2]
    mapped = f"--as {as_}" if as_ else f"the task name {task!r}"
    for where, s in samples:
        if isinstance(s, DataError):
            yield s
            continue
        text = _inspect_text(s)
        if text is None:
            err = s.get("error")
            why = strip_controls(str(err.get("message")))[:300] if isinstance(err, dict) else ""
            yield DataError(f"{where}: no model output" + (f" (the harness recorded an error: {why})" if why else ""))
            continue
        meta = s.get("metadata") or {}
        ids = [s.get("id"), *(meta.get(k) for k in ID_FIELDS if k in meta)]
        try:
            item = items.find(t, ids, None, where)
        except DataError as e:
            yield e
            continue
        usage = _inspect_usage(s)
        prompt = inspect_prompt(s.get("input"))
        if not force:
            fields = {"target": s.get("target"), "input": prompt.last_user_text() if prompt else None}
            check_mapping(bench, item, t.mode, fields, prompt, f"{where} (sample id {s.get('id')!r})", mapped)
        took = (s.get("output") or {}).get("time")  # seconds the model call took, as inspect timed it
        latency = float(took) if isinstance(took, (int, float)) and not isinstance(took, bool) and took >= 0 else None
        comp = Completion(text, usage=usage, latency_s=latency) if usage else Completion(text, latency_s=latency)
        yield OutsideRow(item, t.mode, comp, where, sample=max(int(s.get("epoch") or 1) - 1, 0), source=model,
                         prompt=prompt, protocol=protocol_of(bench, item, t.mode, prompt,
                                                             f"imported: inspect-ai task {task}"))


def _inspect_usage(s: dict[str, Any]) -> Usage | None:
    u = (s.get("output") or {}).get("usage") or {}
    pt, ct = u.get("input_tokens"), u.get("output_tokens")
    if isinstance(pt, int) and isinstance(ct, int) and pt >= 0 and ct >= 0:
        return Usage(pt, ct)
    return None


def is_harness_log(path: Path) -> str | None:
    """``lm-eval`` or ``inspect`` for a file one of them wrote, else None."""
    if path.name.startswith("samples_") and path.suffix == ".jsonl":
        return "lm-eval"
    if path.suffix == ".eval" and zipfile.is_zipfile(path):
        return "inspect"
    if path.suffix == ".json":
        try:
            with path.open(encoding="utf-8") as f:
                head = f.read(4096)
        except (OSError, UnicodeDecodeError):
            return None
        if '"eval"' in head and ('"samples"' in head or '"version"' in head):
            return "inspect"
    return None


def harness_rows(paths: list[str], bench: Benchmark, as_: str | None, force: bool = False,
                 limits: tuple[int, int] | None = None) -> Iterator[OutsideRow | DataError]:
    """Every sample of every lm-eval / inspect-ai log under ``paths`` (folders are searched). Raises a
    ``DataError`` at the first sample whose dataset fields disagree with the item it is mapped to, unless
    ``force``. ``limits``: decompressed bytes per log member and per log (:func:`_inspect_docs`)."""
    target = parse_as(as_, bench) if as_ else None
    items = Items(bench)
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p])
    found = False
    for f in files:
        kind = is_harness_log(f)
        if kind == "lm-eval":
            found = True
            yield from lmeval_rows(f, bench, items, target, force, as_)
        elif kind == "inspect":
            found = True
            yield from inspect_rows(f, bench, items, target, force, as_, limits)
    if not found:
        yield DataError(f"no lm-eval samples_*.jsonl or inspect-ai .eval/.json log in {', '.join(paths)}")
