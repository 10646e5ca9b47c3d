"""General365 (Liu et al., 2026): general reasoning with K-12 knowledge; hybrid rule + LLM-judge grading.

Modes (both send the paper's query templates):

* ``paper``: number/interval answers by rule only (``\\boxed{}`` + math-verify at the item's precision);
  select/text answers by the LLM judge (needs ``--judge``).
* ``cascade``: every answer by rule first; the judge sees only the answers the rule did not accept.

``Verdict.method`` records the deciding path: ``rule`` | ``judge`` | ``unextractable`` (plus
``judge-unparseable``, ``judge-missing``, and the runner's ``truncated`` / ``error`` / ``judge-error``).
Data: ``--data`` (``-O data=``), else the pinned Hub release; see ``data.py``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from reasoneval.hub.releases import ReleaseSpec

from ...core.benchmark import Benchmark, OutsideRow, ScoredRow, Table, hook
from ...core.errors import DataError
from ...core.records import configured, folder_version
from ...core.registry import register
from ...core.values import Completion, GenParams, Item, Outcome, Prompt, Usage, Verdict
from ...core.verdicts import Method
from ...scoring.judge import parse_conclusion
from . import analysis
from .data import NUMERIC_TYPES, data_root, items_from_records, load, seed_pattern
from .grading import extract_final, final_boxes, judge_answer, rule_check
from .options import G365Options
from .prompts import PROMPT_VERSION, equivalence_prompt, query_prompt
from .settings import SETTINGS

MODES = ("paper", "cascade")
_META_KEYS = ("answer_type", "categories", "seed_id", "is_seed")


def _meta(item: Item) -> dict[str, Any]:
    m = item.data["_g365"]
    return {k: m.get(k) for k in _META_KEYS}


@register("general365")
class General365(Benchmark):
    name = "general365"
    settings = SETTINGS
    description = "General365: general reasoning beyond specialised knowledge (hybrid rule + judge grading)"
    default_mode = "paper"
    default_params = GenParams(max_tokens=16384, temperature=None, top_p=1.0)

    Options = G365Options

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, str, str], Verdict] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def opts(self) -> G365Options:
        o = self.options
        assert isinstance(o, G365Options)
        return o

    @property
    def data_path(self) -> str | None:
        return self.opts.data

    @property
    def seed_pattern(self) -> str | None:
        return self.opts.seed_pattern

    @property
    def mathverify_timeout(self) -> float:
        return self.opts.mathverify_timeout

    def options_changed(self) -> None:
        with self._lock:
            self._cache.clear()

    def subsets(self) -> list[str]:
        return ["test"]

    def modes(self) -> list[str]:
        return list(MODES)

    def load(self, subset: str, mode: str) -> list[Item]:
        return load(self.data_path, self.seed_pattern, self.opts.revision)

    def stratum(self, item: Item, mode: str) -> str:
        """``--limit``: keep the shares of answer types (number, interval, choice, text)."""
        return str(item.data["_g365"].get("answer_type", ""))

    def prompt(self, item: Item, mode: str) -> Prompt:
        m = item.data["_g365"]
        return query_prompt(m["question"], m["answer_type"], m["float_round"])

    # ---------------------------------------------------------------- grading

    def _rule(self, item: Item, text: str) -> Verdict:
        m = item.data["_g365"]
        key = (item.key, str(item.gold), hashlib.sha1(text.encode("utf-8", "replace")).hexdigest())
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        extracted, source = extract_final(text, m["answer_type"])
        detail: dict[str, Any] = {**_meta(item), "extracted_from": source}
        boxes = final_boxes(text)[0] if m["answer_type"] in NUMERIC_TYPES else []
        if extracted is None:
            v = Verdict(Outcome.UNANSWERABLE, None, Method.UNEXTRACTABLE, detail)
        elif len(boxes) > 1:  # one boxed final answer is mandated: several pass only if each one is right
            detail["boxes"] = boxes
            v = self._several_boxes(item, boxes, detail)
        else:
            r = rule_check(m["answer_type"], str(item.gold), extracted, m["float_round"], self.mathverify_timeout)
            detail["rule"] = r.reason
            if r.reason == "timeout":  # math-verify ran out of time: undecided, not a wrong answer
                v = Verdict(Outcome.UNANSWERABLE, extracted, "rule-timeout", detail)
            elif r.decided is None and m["answer_type"] not in NUMERIC_TYPES:
                v = Verdict(Outcome.UNANSWERABLE, extracted, Method.JUDGE_MISSING,
                            {**detail, "note": "this answer needs the LLM judge (--judge)"})
            else:
                v = Verdict(Outcome.CORRECT if r.decided else Outcome.INCORRECT, extracted, Method.RULE, detail)
        with self._lock:
            self._cache[key] = v
            while len(self._cache) > 4096:
                self._cache.popitem(last=False)
        return v

    def _several_boxes(self, item: Item, boxes: list[str], detail: dict[str, Any]) -> Verdict:
        m = item.data["_g365"]
        shown = " | ".join(boxes)
        for b in boxes:
            r = rule_check(m["answer_type"], str(item.gold), b, m["float_round"], self.mathverify_timeout)
            if r.reason == "timeout":
                return Verdict(Outcome.UNANSWERABLE, shown, "rule-timeout", {**detail, "rule": r.reason})
            if not r.decided:
                return Verdict(Outcome.INCORRECT, shown, Method.RULE,
                               {**detail, "rule": "several-different-boxed-answers"})
        return Verdict(Outcome.CORRECT, shown, Method.RULE, {**detail, "rule": "every-boxed-answer-equal"})

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return self._rule(item, text)

    def judge_prompt(self, item: Item, text: str, mode: str) -> Prompt | None:
        if not text.strip():
            return None
        m = item.data["_g365"]
        v = self._rule(item, text)
        if mode == "cascade":
            if v.outcome is Outcome.CORRECT or v.detail.get("rule") == "several-different-boxed-answers":
                return None  # a hedge between boxed answers is decided by the rule, not re-judged
        elif m["answer_type"] in NUMERIC_TYPES:
            return None
        return equivalence_prompt(m["question"], str(item.gold), judge_answer(text, v.extracted))

    def score_judged(self, item: Item, text: str, mode: str, judge_text: str) -> Verdict:
        v = self._rule(item, text)
        detail = {**v.detail, "rule_outcome": v.outcome.value, "rule_method": v.method}
        decided = parse_conclusion(judge_text)
        if decided is None:
            return Verdict(Outcome.UNANSWERABLE, v.extracted, Method.JUDGE_UNPARSEABLE,
                           {**detail, "judge_reply_tail": judge_text[-300:]})
        return Verdict(Outcome.CORRECT if decided else Outcome.INCORRECT, v.extracted, Method.JUDGE, detail)

    # ---------------------------------------------------------------- bookkeeping

    def data_version(self) -> str:
        if not configured(self.data_path):  # the Hub release: repo@commit (+ file sha256s once loaded)
            from ... import hub

            return hub.data_version("general365", revision=self.opts.revision)
        try:
            root = data_root(self.data_path)
        except ValueError:
            return "unconfigured"
        return folder_version(str(root.resolve()))

    def prompt_version(self, mode: str) -> str:
        return f"{PROMPT_VERSION}:{mode}"

    cli = hook(".commands:add_commands")
    build_steps = hook(".build_variants")  # each registers its steps
    paper_tables = hook(".paper_tables:general365_tables")  # Table 1, wide, beside the paper

    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

    def dataset_tables(self, data: str | None, outputs: Path | None) -> list[Table] | None:
        from .dataset_stats import general365_tables

        return general365_tables(data)

    def item_group(self, item_key: str, detail: Mapping[str, Any], item: Item | None) -> str | None:
        """The rule check behind the verdict (``detail["rule"]``), for the report's item browser."""
        rule = detail.get("rule")
        return rule if isinstance(rule, str) else None

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        return analysis.all_tables(self.to_scored(rows), mode)

    def to_scored(self, rows: list[ScoredRow]) -> list[analysis.Scored]:
        """Stored rows as analysis records (for ``analysis.models_efficiency_table`` across runs)."""
        index: dict[str, dict[str, Any]] | None = None
        scored = []
        for r in rows:
            v = r.final.verdict
            meta = {k: v.detail.get(k) for k in _META_KEYS} if v else {}
            if v is None or "answer_type" not in v.detail:
                if index is None:
                    index = self._meta_index()
                meta = index.get(r.item_key, meta)
            counts = [t.completion.usage.completion_tokens for t in r.turns]
            toks = None if None in counts else sum(c for c in counts if c is not None)  # unknown stays unknown
            scored.append(analysis.Scored(r.item_key.partition("/")[2], v, meta, toks))
        return scored

    def _meta_index(self) -> dict[str, dict[str, Any]]:
        try:
            return {it.key: _meta(it) for it in self.load("test", self.default_mode)}
        except ValueError:
            return {}

    # ---------------------------------------------------------------- rescore

    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """Rows: the release schema plus ``response`` (optional ``finish_reason``, ``completion_tokens``).

        ``options``: ``mode``, ``seed_pattern``; the runner's path adds the judge (``--judge``)."""
        from ...core.records import data_files, read_records

        mode = str(options.get("mode") or self.default_mode)
        if mode not in MODES:
            raise DataError(f"unknown mode {mode!r} for general365; known: {', '.join(MODES)}")
        records = [r for p in paths for f in data_files(Path(p)) for r in read_records(f)]
        if not records:
            raise DataError(f"no rows found in {', '.join(paths)}")
        items = items_from_records(records, seed_pattern(options.get("seed_pattern") or self.seed_pattern))
        for rec, item in zip(records, items, strict=True):
            response = rec.data.get("response")
            if not isinstance(response, str):
                yield DataError(f"{rec.where('response')} must be a string (the model's answer)")
                continue
            comp = Completion(text=response, finish_reason=rec.data.get("finish_reason"),
                              error=rec.data.get("error"), usage=Usage(None, _tokens(rec.data)))
            yield OutsideRow(item, mode, comp, rec.where())


def _tokens(row: dict[str, Any]) -> int | None:
    for k in ("completion_tokens", "output_tokens"):
        if isinstance(row.get(k), int):
            return int(row[k])
    usage = row.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("completion_tokens"), int):
        return int(usage["completion_tokens"])
    return None

