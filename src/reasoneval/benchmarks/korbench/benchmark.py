"""The registered KOR-Bench :class:`~reasoneval.core.benchmark.Benchmark`.

Subsets and the modes that apply to them (``load`` returns no items for any other combination, so a plain
``run korbench --mode M`` runs exactly the subsets that mode is defined for):

=====================================  =====================================================================
subsets                                modes
=====================================  =====================================================================
operation, logic, cipher, puzzle,      ``zero-shot`` (default, chat), ``three-shot`` (raw completion),
counterfactual                         ``self-correction``, ``self-correction-with-needle``,
                                       ``only-questions-zero-shot``, ``only-questions-three-shot``
puzzle                                 ``trick``
Multi-Q, Multi-R, Multi-RQ,            ``mixed``
Multi-RQ_Hard
cipher-subquestions                    ``subquestions`` (345 teacher-forced cipher sub-steps)
=====================================  =====================================================================

Options (:class:`.options.KorOptions`, ``-O key=value``): ``scoring=official|corrected`` (the reference
evaluator, or its known defects fixed) and ``data`` (a release-layout folder, or a JSON-lines file of category
items such as ``reasoneval generate korbench-cipher`` prints; see :mod:`.items_file`).
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from reasoneval.core.benchmark import BatchScorer, Benchmark, OutsideRow, ScoredRow, Table, Turn, hook
from reasoneval.core.errors import DataError
from reasoneval.core.hashing import sha256_text
from reasoneval.core.registry import register
from reasoneval.core.response import Response, cut_off
from reasoneval.core.values import Item, Outcome, Prompt, Verdict
from reasoneval.scoring.latexcmp import LatexCanonicalizer

from . import breakdown, prompts, report
from .applies import CATEGORY_MODES, applies
from .data import CATEGORIES, MIXED_SETS, KorData, Question, default_data
from .items_file import FileQuestion, file_version, read_items_file
from .latex_seed import canonicalizer
from .mathexpr import VERDICT_BUDGET_S, schedule
from .mixed import judge_mixed
from .options import KorOptions
from .outside import SUBQ, raw_rows
from .outside_tables import latex_note, outside_tables
from .score_corrected import explain
from .score_corrected import policy as policy_named
from .score_official import (
    Judgement,
    ScoringPolicy,
    answer_text,
    apply_math,
    cut_off_detail,
    finish,
    judge,
    real_life,
)
from .selfcorrect import MAX_CALLS, RoundStats, conversation
from .settings import SETTINGS
from .subquestions import TypeStats
from .table_kinds import KINDS

RAW_MODES = ("three-shot", "only-questions-three-shot")
SC_MODES = ("self-correction", "self-correction-with-needle")


def _question_item(q: Question, data: KorData) -> Item:
    rule = data.rule(q.category, q.rule_id)
    d: dict[str, Any] = {"category": q.category, "idx": q.idx, "rule_id": q.rule_id, "question": q.question,
                         "answer": q.answer, "needle": list(q.needle), "title": rule.title,
                         "rule_content": rule.content, **q.extra}
    return Item("korbench", q.category, q.idx, d, q.answer)


def _file_item(fq: FileQuestion) -> Item:
    q = fq.question
    d: dict[str, Any] = {"category": q.category, "idx": q.idx, "rule_id": q.rule_id, "question": q.question,
                         "answer": q.answer, "needle": list(q.needle), "title": fq.title or "",
                         "rule_content": fq.rule_content, "own_rule": fq.own_rule, **q.extra}
    return Item("korbench", q.category, q.idx, d, q.answer)


def _verdict(j: Judgement, detail: dict[str, Any]) -> Verdict:
    if j.correct:
        outcome = Outcome.CORRECT
    elif j.unanswerable:
        outcome = Outcome.UNANSWERABLE
    else:
        outcome = Outcome.INCORRECT
    if j.notes:
        detail = {**detail, "notes": j.notes}
    return Verdict(outcome, j.extracted, j.method, detail)


def _flagged(v: Verdict, response: Response, pol: ScoringPolicy) -> Verdict:
    """The verdict with the policy's truncation detail (official: kept on a cut-off output, flagged)."""
    extra = cut_off_detail(response.truncated, pol)
    if not extra:
        return v
    if type(v) is Verdict:  # (what ``replace`` makes, without its per-call field walk: once per item)
        return Verdict(v.outcome, v.extracted, v.method, {**v.detail, **extra})
    return replace(v, detail={**v.detail, **extra})


def _is_error(r: ScoredRow) -> bool:
    v = r.final.verdict
    return r.final.error is not None or (v is not None and v.outcome is Outcome.ERROR)


@register("korbench")
class KorBench(Benchmark):
    name = "korbench"
    settings = SETTINGS
    table_kinds = KINDS
    description = "KOR-Bench: knowledge-orthogonal reasoning over 125 new rules (ICLR 2025)"
    default_mode = "zero-shot"
    Options = KorOptions

    def __init__(self, scoring: str | None = None, data: KorData | None = None,
                 lc: LatexCanonicalizer | None = None) -> None:
        self._given_data = data
        self.lc = lc  # the SymPy canonicaliser (None: the process-wide default)
        self._version: str | None = None
        self._data: KorData | None = None
        self._file: dict[str, dict[str, FileQuestion]] | None = None
        if scoring is not None:
            self.configure({"scoring": scoring})

    def options_changed(self) -> None:
        self._version, self._data, self._file = None, None, None

    @property
    def opts(self) -> KorOptions:
        o = self.options
        assert isinstance(o, KorOptions)
        return o

    @property
    def policy(self) -> ScoringPolicy:
        return policy_named(self.opts.scoring)

    def _data_path(self) -> Path | None:
        if not self.opts.data:
            return None
        p = Path(self.opts.data)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or folder (KOR-Bench --data)")
        return p

    @property
    def data(self) -> KorData:
        """The release data: the ``data`` folder option, else the packaged release."""
        if self._data is None:
            p = self._data_path()
            self._data = KorData(p) if p is not None and p.is_dir() else (self._given_data or default_data())
        return self._data

    def _items_file(self) -> dict[str, dict[str, FileQuestion]] | None:
        p = self._data_path()
        if p is None or p.is_dir():
            return None
        if self._file is None:
            self._file = read_items_file(p, self.data)
        return self._file

    # -- catalogue ----------------------------------------------------------------------------------
    def subsets(self) -> list[str]:
        return [*CATEGORIES, *MIXED_SETS, SUBQ]

    def modes(self) -> list[str]:
        return [*CATEGORY_MODES, "trick", "mixed", "subquestions"]

    def load(self, subset: str, mode: str) -> list[Item]:
        if subset not in self.subsets():
            raise KeyError(f"unknown korbench subset {subset!r}")
        if mode not in self.modes():
            raise KeyError(f"unknown korbench mode {mode!r}; known: {', '.join(self.modes())}")
        if not applies(subset, mode):
            return []
        from_file = self._items_file()
        if from_file is not None:  # a file of category items replaces the release questions, nothing else
            return [_file_item(fq) for fq in from_file.get(subset, {}).values()]
        if subset in CATEGORIES:
            return [_question_item(q, self.data) for q in self.data.questions(subset).values()]
        if subset in MIXED_SETS:
            return [Item("korbench", subset, m.idx, {"rules": [list(r) for r in m.rules],
                                                   "questions": [list(q) for q in m.questions]},
                         [self.data.question(c, i).answer for c, i in m.questions])
                    for m in self.data.mixed(subset)]
        items = []
        for sq in self.data.subquestions:
            for st in sq.steps:
                d = {"idx": sq.idx, "rule_id": sq.rule_id, "step": st.step, "type": st.type, "input": sq.input,
                     "description": st.description, "answer": st.answer, "direction": sq.direction}
                items.append(Item("korbench", SUBQ, f"{sq.idx}:{st.step}", d, st.answer))
        return items

    def item_group(self, item_key: str, detail: Mapping[str, Any], item: Item | None) -> str | None:
        """The item's rule: its verdict's or its data's ``rule_id``, else from ``category/N``: rule
        ``ceil(N / 10)`` (each rule has ten questions, numbered from 1)."""
        for known in (detail, item.data if item is not None and isinstance(item.data, dict) else {}):
            rid = known.get("rule_id")
            if isinstance(rid, int | str) and not isinstance(rid, bool) and str(rid):
                return str(rid)
        _, _, ident = item_key.rpartition("/")
        return str(math.ceil(int(ident) / 10)) if ident.isdigit() and int(ident) > 0 else None

    # -- prompting ----------------------------------------------------------------------------------
    def stratum(self, item: Item, mode: str) -> str:
        """``--limit``: keep each rule's share of a category (cipher sub-steps: each step type's)."""
        if item.subset in MIXED_SETS:
            return ""
        return str(item.data.get("type") if item.subset == SUBQ else item.data.get("rule_id", ""))

    def prompt(self, item: Item, mode: str) -> Prompt:
        d = item.data
        if item.subset in MIXED_SETS:
            rules = [self.data.rule(c, i).content for c, i in d["rules"]]
            qs = [self.data.question(c, i).question for c, i in d["questions"]]
            return Prompt.chat(prompts.mixed(rules, qs))
        if item.subset == SUBQ:
            rule = self.data.rule("cipher", d["rule_id"]).content
            return Prompt.chat(prompts.subquestion(rule, d["input"], d["description"]))
        cat = d["category"]
        if mode in RAW_MODES:
            shots = [(s.question, s.answer) for s in self.data.shots(cat)[d["rule_id"]]]
            if mode == "three-shot":
                return Prompt.raw(prompts.three_shot(cat, d["rule_content"], shots, d["question"]))
            return Prompt.raw(prompts.only_questions_three_shot(cat, shots, d["question"]))
        if mode == "trick":
            return Prompt.chat(prompts.trick(d["rule_content"], d["question"], d["trick"]))
        if mode == "only-questions-zero-shot":
            return Prompt.chat(prompts.only_questions_zero_shot(cat, d["question"]))
        return Prompt.chat(prompts.zero_shot(cat, d["rule_content"], d["question"]))

    def followup(self, item: Item, mode: str, turns: list[Turn]) -> Prompt | None:
        if mode not in SC_MODES or not turns or len(turns) >= MAX_CALLS:
            return None
        last = turns[-1]
        if last.completion.error is not None:
            return None
        v = last.verdict or self.score(item, last.completion.text, mode)
        if v.correct:
            return None
        needle = item.data.get("needle") if mode == "self-correction-with-needle" else None
        history, user = conversation(turns[0].prompt.last_user_text(), [t.completion.text for t in turns], needle)
        return Prompt.chat(user, history)

    # -- scoring ------------------------------------------------------------------------------------
    def score(self, item: Item, text: str, mode: str) -> Verdict:
        js, verdict = self.judgements(item, text, mode)
        deadline = time.monotonic() + VERDICT_BUDGET_S  # one budget for the whole verdict
        return verdict([finish(j, self.lc, deadline) for j in js])

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        """As ``score``, on the text the scoring policy reads: official, the raw output as the reference
        evaluator reads it (``<think>`` included, cut-off or not: the verdict stands, ``detail["cut_off"]``
        flags it); corrected, the answer with its reasoning removed (a cut-off output has no answer)."""
        pol = self.policy
        return _flagged(self.score(item, answer_text(response.raw, response.final, pol), mode),
                        response, pol)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        """The verdict when no judgement waits for SymPy (every category but some Operation answers)."""
        pol = self.policy
        js, verdict = self.judgements(item, answer_text(response.raw, response.final, pol), mode)
        if any(j.pending is not None for j in js):
            return None
        return _flagged(verdict(js), response, pol)

    def judgements(self, item: Item, text: str, mode: str, policy: ScoringPolicy | None = None
                   ) -> tuple[list[Judgement], Callable[[list[Judgement]], Verdict]]:
        """The judgements of one answer (SymPy comparisons may still be pending, see :mod:`.mathexpr`) and the
        function that makes the verdict once they are finished."""
        pol = policy or self.policy
        d = item.data
        if item.subset in MIXED_SETS:
            qs = [self.data.question(c, i) for c, i in d["questions"]]
            ms = judge_mixed(text, qs, pol)

            def mixed(js: list[Judgement]) -> Verdict:
                n = sum(bool(j.correct) for j in js)
                detail = {"parsed": ms.parsed, "n_correct": n, "n_questions": len(qs),
                          "pass_rate": n / len(qs) if qs else 0.0, "per_question": [bool(j.correct) for j in js]}
                outcome = (Outcome.UNANSWERABLE if not ms.parsed
                           else Outcome.CORRECT if n == len(qs) else Outcome.INCORRECT)
                return Verdict(outcome, None, f"mixed[{pol.name}]", detail)

            return ms.judgements, mixed
        if item.subset == SUBQ:
            j = judge(text, item.gold, "cipher", d["rule_id"], d["idx"], pol)
            return [j], lambda js: _verdict(js[0], {"type": d["type"], "step": d["step"]})
        cat = d["category"]
        raw = mode in RAW_MODES
        j = judge(text, item.gold, cat, d["rule_id"], d["idx"], pol, raw_completion=raw)
        detail: dict[str, Any] = {"scoring": pol.name, "rule_id": d["rule_id"]}
        if cat == "counterfactual" and d.get("real_life_answer") is not None:
            resp = text.split("\n### Question", 1)[0] if (raw and pol.stop_raw_completions) else text
            detail["real_life"] = real_life(resp, d["real_life_answer"], pol)
        return [j], lambda js: _verdict(js[0], detail)

    def batch_scorer(self) -> BatchScorer:
        return KorBatch(self)

    cli = hook(".commands:add_commands")

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        """The fix(es) of corrected scoring that flip this answer's verdict (reading the raw output or its
        final text, and truncation, are fixes like the others)."""
        from reasoneval.runner.verdict_of import response_of

        r = response_of(row.completion)

        def correct_under(pol: ScoringPolicy) -> bool:
            if pol.cut_off_unanswered and r.truncated:
                return False
            js, verdict = self.judgements(row.item, answer_text(r.raw, r.final, pol), row.mode, pol)
            return verdict([finish(j, self.lc) for j in js]).correct

        return explain(correct_under)

    # -- summaries ----------------------------------------------------------------------------------
    build_steps = hook(".build_mixed")  # each registers its steps
    with_paper = hook(".paper_compare:with_paper")
    figures = hook(".figures:korbench_figures")

    def dataset_tables(self, data: str | None, outputs: Path | None) -> list[Table] | None:
        from .answer_formats import kor_table5
        from .dataset_stats import kor_table1, kor_table4, kor_table6, kor_table7

        return [kor_table1(data), kor_table4(data), kor_table5(data), kor_table6(data), kor_table7(data, outputs)]

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        # API failures are not wrong answers in any mode: they are left out of every table and counted in a note
        kept = [r for r in rows if not _is_error(r)]
        errors, rows = len(rows) - len(kept), kept
        tables = self._summarize(rows, mode)
        if errors:
            for t in tables:
                t.notes.append(f"{errors} items failed (API errors) and are excluded; --retry-errors re-asks them.")
        return tables

    def _summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        if mode == "mixed":
            sets: dict[str, report.Tally] = defaultdict(report.Tally)
            for r in rows:
                v = r.final.verdict
                sets[r.subset].add(bool(v and v.correct), pass_rate=float((v.detail if v else {}).get("pass_rate", 0)))
            return [report.table3([((), sets)], title=f"korbench ({mode})")]
        if mode == "subquestions":
            st = TypeStats()
            for r in rows:
                v = r.final.verdict
                st.add((v.detail.get("type") if v else None), bool(v and v.correct))
            return [report.subquestion_table([((), st)], title=f"korbench ({mode})")]
        cats: dict[str, report.Tally] = defaultdict(report.Tally)
        rounds: dict[str, RoundStats] = defaultdict(RoundStats)
        for r in rows:
            v = r.final.verdict
            cats[r.subset].add(bool(v and v.correct), bool(v and v.detail.get("real_life")))
            if mode in SC_MODES:
                rounds[r.subset].add([bool(t.verdict and t.verdict.correct) for t in r.turns])
        # the scoring policy is an option, shown in the report's label column: in the title, runs scored
        # officially and corrected would make two tables of one row each instead of one table with both rows
        tables = [report.table2([((), cats)], title=f"korbench ({mode})", mode=mode)]
        tables[0].notes.append(f"Scoring: {self.policy.name}.")
        if mode in SC_MODES:
            tables.append(report.self_correction_table([((), rounds)], title=f"korbench ({mode}) rounds", mode=mode))
        if not any(self._rule_of_row(r) is not None for r in rows):  # (stops at the first row with a rule)
            return tables
        # per rule and per tag: computed when a report shows them (``--tables rules|all``), not before
        return tables + breakdown.deferred_breakdown_tables(lambda: self._rule_results(rows), self._rule_info, mode)

    def _rule_of_row(self, r: ScoredRow) -> str | None:
        """A row's rule: from its verdict, else the data (None: not known)."""
        v = r.final.verdict
        rid = v.detail.get("rule_id") if v is not None else None
        if not isinstance(rid, str) or not rid:
            rid = self._rule_of(r.subset, r.item_key.rpartition("/")[2])
        return rid

    def _rule_results(self, rows: list[ScoredRow]) -> list[breakdown.RuleResult]:
        """(category, rule, correct) per scored category item; the rule from the verdict, else the data. Equal
        results are one object (a run with samples repeats them)."""
        out = []
        same: dict[tuple[str, str, bool], breakdown.RuleResult] = {}
        for r in rows:
            v = r.final.verdict
            rid = self._rule_of_row(r)
            if rid is not None:
                key = (r.subset, rid, bool(v and v.correct))
                got = same.get(key)
                if got is None:
                    got = same[key] = breakdown.RuleResult(*key)
                out.append(got)
        return out

    def _rule_of(self, category: str, idx: str) -> str | None:
        if category not in CATEGORIES:
            return None
        try:
            from_file = self._items_file()
            if from_file is not None:
                fq = from_file.get(category, {}).get(idx)
                return fq.question.rule_id if fq is not None else None
            return self.data.question(category, idx).rule_id
        except (KeyError, OSError, ValueError):
            return None

    def _rule_info(self, category: str, rule_id: str) -> breakdown.RuleInfo:
        try:
            rule = self.data.rule(category, rule_id)
        except (KeyError, OSError, ValueError):
            return breakdown.RuleInfo()
        return breakdown.RuleInfo(rule.title, rule.tag)

    # -- versions and re-scoring --------------------------------------------------------------------
    def data_version(self) -> str:
        if self._version is None:
            p = self._data_path()
            self._version = file_version(p) if p is not None and p.is_file() else self.data.version()
        return self._version

    def prompt_version(self, mode: str) -> str:
        return sha256_text(prompts.version_text(mode))[:16]

    # -- completions made elsewhere (``reasoneval rescore korbench``) ---------------------------------
    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """Official raw-output files (:mod:`.outside`); ``options["gold"]``: ``record`` (default) or ``data``."""
        for _, row in raw_rows(paths, self.data, str(options.get("gold") or "record")):
            yield row

    def outside_json(self, row: OutsideRow, verdict: Verdict) -> dict[str, Any]:
        category = "cipher" if row.item.subset == SUBQ else row.item.subset
        return {"model": row.source, "category": category, "mode": row.mode, "idx": row.item.id,
                "correct": verdict.correct, "real_life": verdict.detail.get("real_life"),
                "cut_off": cut_off(row.completion.text, row.completion.finish_reason)}

    def summarize_outside(self, groups: list[tuple[str, str, list[ScoredRow]]]) -> list[Table]:
        """The paper's layouts with a row per model (and mode): Tables 2 and 3, self-correction rounds,
        cipher sub-steps; a note when LaTeX could not be parsed."""
        tables = outside_tables(groups, self.policy.name)
        note = latex_note(self.lc)
        if note and tables:
            tables[-1].notes.append(note)
        return tables


class KorBatch(BatchScorer):
    """Re-scoring in one batch: every answer is judged as it is read and its SymPy comparisons are scheduled
    on the sandboxed canonicaliser (no per-verdict budget: queued work is not late work); the verdicts are
    made at the end, and the equivalence cache is flushed to disk."""

    def __init__(self, bench: KorBench) -> None:
        self.bench = bench
        self.lc = bench.lc or canonicalizer()

    def submit(self, item: Item, response: Response, mode: str) -> Callable[[], Verdict]:
        pol = self.bench.policy
        js, verdict = self.bench.judgements(item, answer_text(response.raw, response.final, pol), mode)
        futs = [(j, schedule(j.pending, self.lc)) for j in js if j.pending is not None]
        if not futs:
            return lambda: _flagged(verdict(js), response, pol)

        def done() -> Verdict:
            for j, fut in futs:
                apply_math(j, fut.result())
            return _flagged(verdict(js), response, pol)

        return done

    def close(self) -> None:
        self.lc.flush()
