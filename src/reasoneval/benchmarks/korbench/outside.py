"""The ``rescore`` adapter: official KOR-Bench raw-output files -> (item, mode, completion) rows.

Files are named ``<model>_<category>_<mode>.jsonl`` (:mod:`.rawfiles`); each record becomes one
:class:`~reasoneval.core.benchmark.OutsideRow` whose ``source`` is the model. Gold answers are the records' own
``answer`` / ``real_life_answer`` (what the reference evaluator used; a few changed in the later data release),
or the packaged data with ``gold="data"``; mixed-set records are resolved against the packaged data.
Self-correction records carry every round: the earlier ones as ``earlier``, the last as the completion.
Scoring, summarising and rendering are the runner's (:mod:`reasoneval.runner.rescore_outside`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from reasoneval.core.benchmark import OutsideRow
from reasoneval.core.errors import DataError
from reasoneval.core.values import Completion, Item, Prompt

from . import selfcorrect
from .data import KorData
from .rawfiles import RawFile, RawFileError, discover, iter_records, require

SUBQ = "cipher-subquestions"


def _completion(response: object, where: str, finish_reason: object = None, mixed: bool = False) -> Completion:
    """The completion of a record's ``response``: its text; ``null`` (the release's record of a failed API call)
    an empty answer, scored wrong as the reference evaluator scores it; in a mixed-set file a JSON object is the
    model's answers, as text (as the release's evaluation reads it). Anything else (a number, a list, ...) is
    an error naming the record, never an empty answer."""
    if isinstance(response, str):
        text = response
    elif response is None:
        text = ""
    elif mixed and isinstance(response, dict):
        text = json.dumps(response, ensure_ascii=False)
    else:
        raise RawFileError(f"{where}: 'response' must be text (the model's answer), got {type(response).__name__}")
    return Completion(text, finish_reason if isinstance(finish_reason, str) else None)


def _prompt(rec: dict[str, Any], base: bool) -> Prompt | None:
    """The prompt a raw record carries (a chat message, or the raw text of a base-model run)."""
    p = rec.get("prompt")
    if not isinstance(p, str):
        return None
    return Prompt.raw(p) if base else Prompt.chat(p)


def _row(f: RawFile, rec: dict[str, Any], line: int, data: KorData, gold: str) -> OutsideRow:
    p, where = f.path, f"{f.path}:{line}"
    if f.kind == "mixed":
        require(rec, p, line, "idx", "response")
        qs = rec.get("question_list")
        if qs is None:
            try:
                m = next(x for x in data.mixed(f.category) if x.idx == str(rec["idx"]))
            except StopIteration:
                raise RawFileError(f"{where}: idx {rec['idx']!r} not in {f.category}") from None
            refs = [tuple(q) for q in m.questions]
        else:
            if not isinstance(qs, list):
                raise RawFileError(f"{where}: 'question_list' must be a list")
            refs = [(str(x).rpartition("_")[0], str(x).rpartition("_")[2]) for x in qs]
        try:
            answers = [data.question(c, i).answer for c, i in refs]
        except (KeyError, ValueError) as e:
            raise RawFileError(f"{where}: unknown question in question_list ({e})") from None
        item = Item("korbench", f.category, str(rec["idx"]), {"questions": [list(r) for r in refs]}, answers)
        completion = _completion(rec["response"], where, rec.get("finish_reason"), mixed=True)
        return OutsideRow(item, "mixed", completion, where,
                          source=f.model, prompt=_prompt(rec, False))
    require(rec, p, line, "idx", "response", "answer", "rule_id")
    idx, rule_id = str(rec["idx"]), str(rec["rule_id"])
    completion = _completion(rec["response"], where, rec.get("finish_reason"))
    if f.kind == "subquestions":
        require(rec, p, line, "step")
        d = {"idx": idx, "rule_id": rule_id, "step": rec["step"], "type": rec.get("type") or None}
        item = Item("korbench", SUBQ, f"{idx}:{rec['step']}", d, rec["answer"])
        return OutsideRow(item, f.mode, completion, where, source=f.model, prompt=_prompt(rec, False))
    answer = rec["answer"]
    rla = rec.get("real_life_answer") if f.category == "counterfactual" else None
    if gold == "data":
        q = data.question(f.category, idx)
        answer, rla = q.answer, q.real_life_answer
    d = {"category": f.category, "idx": idx, "rule_id": rule_id, "answer": answer, "real_life_answer": rla}
    item = Item("korbench", f.category, idx, d, answer)
    earlier: list[Completion] = []
    if f.kind == "self-correction":
        try:
            rounds = [_completion(r, f"{where} (round {i})") for i, r in enumerate(selfcorrect.rounds_of(rec))]
        except ValueError as e:
            raise RawFileError(f"{where}: {e}") from None
        completion, earlier = rounds[-1], rounds[:-1]
    prompt = None if f.kind == "self-correction" else _prompt(rec, "three-shot" in f.mode)
    return OutsideRow(item, f.mode, completion, where, source=f.model, earlier=earlier, prompt=prompt)


def raw_rows(paths: Iterable[str], data: KorData, gold: str = "record"
             ) -> Iterator[tuple[RawFile | None, OutsideRow | DataError]]:
    """``(file, row)`` for every record of every raw-output file (folders expanded, sorted); a ``DataError``
    for an unusable path, file or record (its file is None for a path error)."""
    if gold not in ("record", "data"):
        raise ValueError("gold must be 'record' or 'data'")
    files, errors = discover(paths)
    for msg in errors:
        yield None, DataError(msg)
    for f in files:
        for line, rec in iter_records(f.path):
            if isinstance(rec, RawFileError):
                yield f, rec
                continue
            try:
                yield f, _row(f, rec, line, data, gold)
            except DataError as e:
                yield f, e
            except Exception as e:  # noqa: BLE001 - one bad row must not stop the rest
                yield f, DataError(f"{f.path}:{line}: {type(e).__name__}: {e}")
