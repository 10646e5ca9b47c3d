"""Loader for the KOR-Bench release data shipped in ``data/`` (Apache-2.0, see ``data/LICENSE``).

Layout: ``<category>/{rule,sample,three-shot}.jsonl`` for the five categories, ``mixed/<set>.jsonl`` for
Multi-Q / Multi-R / Multi-RQ / Multi-RQ_Hard, ``cipher/subquestions.json`` and ``prompts/*.yaml``.
Every record is validated on load; a malformed one raises :class:`DataError` naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from reasoneval.core.errors import DataError
from reasoneval.core.hashing import hash_files
from reasoneval.core.jsonl import iter_jsonl

CATEGORIES: tuple[str, ...] = ("operation", "logic", "cipher", "puzzle", "counterfactual")
MIXED_SETS: tuple[str, ...] = ("Multi-Q", "Multi-R", "Multi-RQ", "Multi-RQ_Hard")
SUBQUESTION_TYPES: tuple[str, ...] = (
    "Encoding", "Partition", "Shift", "Mapping", "Substitution", "Computation", "Rotation",
    "Conditional Filling", "Conditional Reading",
)  # fmt: skip
DATA_DIR = Path(__file__).with_name("data")


__all__ = ["DataError"]  # the core's one data-error type, re-exported for KOR-Bench callers


@dataclass(frozen=True)
class Rule:
    category: str
    idx: str
    title: str
    content: str
    tag: str = ""


@dataclass(frozen=True)
class Question:
    category: str
    idx: str
    rule_id: str
    question: str
    answer: str
    needle: tuple[str, ...] = ()
    extra: Mapping[str, str] = field(default_factory=dict)  # direction (cipher), trick, real_life_answer

    @property
    def real_life_answer(self) -> str | None:
        return self.extra.get("real_life_answer")

    @property
    def trick(self) -> str | None:
        return self.extra.get("trick")


@dataclass(frozen=True)
class Shot:
    category: str
    idx: str
    rule_id: str
    question: str
    answer: str


@dataclass(frozen=True)
class MixedItem:
    set_name: str
    idx: str
    rules: tuple[tuple[str, str], ...]  # (category, rule idx)
    questions: tuple[tuple[str, str], ...]  # (category, sample idx)


@dataclass(frozen=True)
class SubStep:
    step: int
    description: str
    atom: Any  # the step's intermediate result: a string or a list of them
    answer: str
    type: str | None


@dataclass(frozen=True)
class SubQuestion:
    idx: str
    rule_id: str
    question: str
    answer: str
    direction: str
    input: str
    steps: tuple[SubStep, ...]


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    return iter_jsonl(path, DataError)


def _str(rec: Mapping[str, Any], key: str, path: Path, line: int | None, *, optional: bool = False) -> str:
    if key not in rec:
        if optional:
            return ""
        raise DataError(path, line, f"missing field {key!r}")
    v = rec[key]
    if not isinstance(v, str):
        raise DataError(path, line, f"field {key!r} must be a string, got {type(v).__name__}")
    return v


def _ref(value: Any, path: Path, line: int, what: str) -> tuple[str, str]:
    if not isinstance(value, str) or "_" not in value:
        raise DataError(path, line, f"{what} entry {value!r} is not '<category>_<idx>'")
    cat, _, idx = value.rpartition("_")
    if cat not in CATEGORIES or not idx:
        raise DataError(path, line, f"{what} entry {value!r}: unknown category {cat!r}")
    return cat, idx


class KorData:
    """Validated, lazily loaded view of a KOR-Bench data directory."""

    def __init__(self, root: Path | str = DATA_DIR) -> None:
        self.root = Path(root)
        self._rules: dict[str, dict[str, Rule]] = {}
        self._questions: dict[str, dict[str, Question]] = {}
        self._shots: dict[str, dict[str, list[Shot]]] = {}
        self._mixed: dict[str, list[MixedItem]] = {}

    # -- categories ---------------------------------------------------------------------------------
    def _check_category(self, category: str) -> None:
        if category not in CATEGORIES:
            raise KeyError(f"unknown KOR-Bench category {category!r}; known: {', '.join(CATEGORIES)}")

    def rules(self, category: str) -> dict[str, Rule]:
        self._check_category(category)
        if category not in self._rules:
            path = self.root / category / "rule.jsonl"
            out: dict[str, Rule] = {}
            for line, rec in _iter_jsonl(path):
                idx = _str(rec, "idx", path, line)
                if idx in out:
                    raise DataError(path, line, f"duplicate rule idx {idx!r}")
                out[idx] = Rule(category, idx, _str(rec, "title", path, line), _str(rec, "rule_content", path, line),
                                _str(rec, "tag", path, line, optional=True))
            self._rules[category] = out
        return self._rules[category]

    def questions(self, category: str) -> dict[str, Question]:
        self._check_category(category)
        if category not in self._questions:
            path = self.root / category / "sample.jsonl"
            rules = self.rules(category)
            out: dict[str, Question] = {}
            for line, rec in _iter_jsonl(path):
                q = self._question(category, rec, path, line)
                if q.idx in out:
                    raise DataError(path, line, f"duplicate sample idx {q.idx!r}")
                if q.rule_id not in rules:
                    raise DataError(path, line, f"rule_id {q.rule_id!r} not in {category}/rule.jsonl")
                out[q.idx] = q
            self._questions[category] = out
        return self._questions[category]

    @staticmethod
    def _question(category: str, rec: Mapping[str, Any], path: Path, line: int) -> Question:
        needle = rec.get("needle", [])
        if not isinstance(needle, list) or not all(isinstance(x, str) for x in needle):
            raise DataError(path, line, "field 'needle' must be a list of strings")
        extra: dict[str, str] = {}
        if category == "cipher":
            extra["direction"] = _str(rec, "category", path, line)
        if category == "puzzle":
            extra["trick"] = _str(rec, "trick", path, line)
        if category == "counterfactual":
            extra["real_life_answer"] = _str(rec, "real_life_answer", path, line)
        return Question(category, _str(rec, "idx", path, line), _str(rec, "rule_id", path, line),
                        _str(rec, "question", path, line), _str(rec, "answer", path, line), tuple(needle), extra)

    def shots(self, category: str) -> dict[str, list[Shot]]:
        """Three-shot demonstrations per rule id, in file order."""
        self._check_category(category)
        if category not in self._shots:
            path = self.root / category / "three-shot.jsonl"
            out: dict[str, list[Shot]] = {}
            for line, rec in _iter_jsonl(path):
                s = Shot(category, _str(rec, "idx", path, line), _str(rec, "rule_id", path, line),
                         _str(rec, "question", path, line), _str(rec, "answer", path, line))
                out.setdefault(s.rule_id, []).append(s)
            for rid, lst in out.items():
                if len(lst) != 3:
                    raise DataError(path, None, f"rule {rid!r} has {len(lst)} demonstrations, expected 3")
            self._shots[category] = out
        return self._shots[category]

    def rule(self, category: str, idx: str) -> Rule:
        return self.rules(category)[idx]

    def question(self, category: str, idx: str) -> Question:
        return self.questions(category)[idx]

    # -- mixed sets and sub-questions ---------------------------------------------------------------
    def mixed(self, set_name: str) -> list[MixedItem]:
        if set_name not in MIXED_SETS:
            raise KeyError(f"unknown mixed set {set_name!r}; known: {', '.join(MIXED_SETS)}")
        if set_name not in self._mixed:
            path = self.root / "mixed" / f"{set_name}.jsonl"
            out: list[MixedItem] = []
            for line, rec in _iter_jsonl(path):
                rl, ql = rec.get("rule_list"), rec.get("question_list")
                if not isinstance(rl, list) or not isinstance(ql, list) or not rl or not ql:
                    raise DataError(path, line, "'rule_list' and 'question_list' must be non-empty lists")
                rules = tuple(_ref(x, path, line, "rule_list") for x in rl)
                questions = tuple(_ref(x, path, line, "question_list") for x in ql)
                for cat, ridx in rules:
                    if ridx not in self.rules(cat):
                        raise DataError(path, line, f"unknown rule {cat}_{ridx}")
                for cat, qidx in questions:
                    if qidx not in self.questions(cat):
                        raise DataError(path, line, f"unknown question {cat}_{qidx}")
                out.append(MixedItem(set_name, _str(rec, "idx", path, line), rules, questions))
            self._mixed[set_name] = out
        return self._mixed[set_name]

    @cached_property
    def subquestions(self) -> list[SubQuestion]:
        path = self.root / "cipher" / "subquestions.json"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise DataError(path, e.lineno, f"invalid JSON: {e.msg}") from e
        except OSError as e:
            raise DataError(path, None, f"cannot read: {e}") from e
        if not isinstance(raw, list):
            raise DataError(path, 1, "expected a JSON array")
        out: list[SubQuestion] = []
        for n, rec in enumerate(raw, 1):
            where = f"item {n}"
            if not isinstance(rec, dict):
                raise DataError(path, None, f"{where}: expected an object")
            try:
                steps_raw = rec["steps_details"]
                steps = tuple(
                    SubStep(int(s["step"]), _str(s, "description", path, None), s.get("atom"),
                            _str(s, "answer", path, None), s.get("type"))
                    for s in steps_raw
                )
            except (KeyError, TypeError, ValueError) as e:
                raise DataError(path, None, f"{where}: malformed steps_details ({e!r})") from e
            try:
                q = SubQuestion(_str(rec, "idx", path, None), _str(rec, "rule_id", path, None),
                                _str(rec, "question", path, None), _str(rec, "answer", path, None),
                                _str(rec, "category", path, None), _str(rec, "input", path, None), steps)
            except DataError as e:
                raise DataError(path, None, f"{where}: {str(e)[len(str(path)) + 2:]}") from e
            # "steps_num" is not checked: the release has an item whose count disagrees with its steps
            out.append(q)
        return out

    def version(self) -> str:
        return hash_files(p for p in self.root.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".yaml"))


_DEFAULT: KorData | None = None


def default_data() -> KorData:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = KorData()
    return _DEFAULT
