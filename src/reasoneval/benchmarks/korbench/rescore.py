"""Re-score official KOR-Bench raw outputs (``reasoneval rescore korbench PATH...``).

Every record becomes a *job* (main / self-correction / mixed / sub-step) that produces judgements; SymPy
comparisons are scheduled on the sandboxed, cached :class:`~reasoneval.scoring.latexcmp.LatexCanonicalizer`
while the remaining files are still being read, and resolved at the end. Gold answers are the records' own
``answer`` / ``real_life_answer`` fields — what the reference evaluator used (a few changed in the later data
release); mixed-set records are resolved against the packaged data.
"""

from __future__ import annotations

import gc
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import IO, Any

from reasoneval.core.benchmark import Table
from reasoneval.core.response import Response
from reasoneval.scoring.latexcmp import LatexCanonicalizer, antlr_problem, default_canonicalizer

from . import report, selfcorrect
from .data import KorData, Question, default_data
from .mathexpr import MathResult, schedule
from .mixed import judge_mixed
from .rawfiles import RawFile, RawFileError, discover, iter_records, require
from .score_corrected import Disagreement, explain
from .score_corrected import policy as policy_named
from .score_official import OFFICIAL, Judgement, ScoringPolicy, apply_math, finish, judge
from .score_official import real_life as real_life_of
from .subquestions import TypeStats


# -- jobs -------------------------------------------------------------------------------------------
@dataclass
class MainJob:
    response: object
    answer: str
    category: str
    rule_id: str
    idx: str
    raw_completion: bool
    real_life_answer: str | None = None

    def judge(self, pol: ScoringPolicy) -> list[Judgement]:
        return [judge(self.response, self.answer, self.category, self.rule_id, self.idx, pol,
                      raw_completion=self.raw_completion)]

    def real_life(self, pol: ScoringPolicy) -> bool | None:
        if self.real_life_answer is None:
            return None
        response = self.response
        if self.raw_completion and pol.stop_raw_completions and isinstance(response, str):
            response = response.split("\n### Question", 1)[0]
        return real_life_of(response, self.real_life_answer, pol)

    @staticmethod
    def correct(js: Sequence[Judgement]) -> bool:
        return bool(js[0].correct)


@dataclass
class SelfCorrectionJob(MainJob):
    rounds: list[object] = field(default_factory=list)

    def judge(self, pol: ScoringPolicy) -> list[Judgement]:
        return [judge(r, self.answer, self.category, self.rule_id, self.idx, pol) for r in self.rounds]

    def real_life(self, pol: ScoringPolicy) -> bool | None:  # decided on the final round
        if self.real_life_answer is None:
            return None
        return real_life_of(self.rounds[-1], self.real_life_answer, pol)

    @staticmethod
    def correct(js: Sequence[Judgement]) -> bool:  # the final response, as the reference evaluation
        return bool(js[-1].correct)


@dataclass
class MixedJob:
    response: object
    questions: list[Question]

    def judge(self, pol: ScoringPolicy) -> list[Judgement]:
        ms = judge_mixed(self.response, self.questions, pol)
        return ms.judgements if ms.parsed else []

    def pass_rate(self, js: Sequence[Judgement]) -> float:
        return sum(bool(j.correct) for j in js) / len(self.questions) if self.questions else 0.0

    def correct(self, js: Sequence[Judgement]) -> bool:
        return bool(js) and sum(bool(j.correct) for j in js) == len(self.questions)

    def real_life(self, pol: ScoringPolicy) -> bool | None:
        return None


@dataclass
class Scored:
    file: RawFile
    line: int
    idx: str
    job: Any
    judgements: list[Judgement]
    real_life: bool | None
    step_type: str | None = None
    correct: bool = False
    pass_rate: float | None = None  # mixed sets: fraction of sub-questions correct
    pending: list[tuple[Judgement, Future[MathResult]]] = field(default_factory=list)


@dataclass
class RescoreResult:
    items: list[Scored]
    errors: list[str]
    policy: ScoringPolicy
    latex_stats: dict[str, int]
    latex_failures: dict[str, str]


# -- building jobs from records ---------------------------------------------------------------------
def _final(response: object, finish_reason: object = None) -> object:
    """The answer text the runner's scorers see (the shared response view): reasoning sections removed;
    an output cut off (token limit, unclosed ``<think>``) has no answer. Non-text (API error) stays as is."""
    if not isinstance(response, str):
        return response
    r = Response.of(response, finish_reason if isinstance(finish_reason, str) else None)
    return "" if r.truncated else r.final


def _make_job(f: RawFile, rec: dict[str, Any], line: int, data: KorData, gold: str) -> tuple[str, Any, str | None]:
    p = f.path
    if f.kind == "mixed":
        require(rec, p, line, "idx", "response")
        qs = rec.get("question_list")
        if qs is None:
            try:
                item = next(x for x in data.mixed(f.category) if x.idx == str(rec["idx"]))
            except StopIteration:
                raise RawFileError(f"{p}:{line}: idx {rec['idx']!r} not in {f.category}") from None
            refs = list(item.questions)
        else:
            if not isinstance(qs, list):
                raise RawFileError(f"{p}:{line}: 'question_list' must be a list")
            refs = [(str(x).rpartition("_")[0], str(x).rpartition("_")[2]) for x in qs]
        try:
            questions = [data.question(c, i) for c, i in refs]
        except (KeyError, ValueError) as e:
            raise RawFileError(f"{p}:{line}: unknown question in question_list ({e})") from None
        return str(rec["idx"]), MixedJob(_final(rec["response"], rec.get("finish_reason")), questions), None
    require(rec, p, line, "idx", "response", "answer", "rule_id")
    idx, rule_id = str(rec["idx"]), str(rec["rule_id"])
    response = _final(rec["response"], rec.get("finish_reason"))
    answer = rec["answer"]
    rla = rec.get("real_life_answer") if f.category == "counterfactual" else None
    if gold == "data" and f.kind != "subquestions":
        q = data.question(f.category, idx)
        answer, rla = q.answer, q.real_life_answer
    if f.kind == "subquestions":
        require(rec, p, line, "step")
        job = MainJob(response, answer, "cipher", rule_id, idx, False)
        return f"{idx}:{rec['step']}", job, rec.get("type") or None
    if f.kind == "self-correction":
        try:
            rounds = [_final(r) for r in selfcorrect.rounds_of(rec)]
        except ValueError as e:
            raise RawFileError(f"{p}:{line}: {e}") from None
        return idx, SelfCorrectionJob(response, answer, f.category, rule_id, idx, False, rla, rounds), None
    raw = f.mode in ("three-shot", "only-questions-three-shot")
    return idx, MainJob(response, answer, f.category, rule_id, idx, raw, rla), None


class Rescorer:
    def __init__(self, pol: ScoringPolicy = OFFICIAL, lc: LatexCanonicalizer | None = None,
                 data: KorData | None = None, gold: str = "record") -> None:
        self.policy = pol
        self.lc = lc or default_canonicalizer()
        self.data = data or default_data()
        if gold not in ("record", "data"):
            raise ValueError("gold must be 'record' or 'data'")
        self.gold = gold

    def score_files(self, files: Iterable[RawFile]) -> tuple[list[Scored], list[str]]:
        # Bulk JSON decoding allocates millions of acyclic objects; the cyclic collector would repeatedly
        # traverse them for nothing (reference counting frees them), so it is paused for the duration.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._score_files(files)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _score_files(self, files: Iterable[RawFile]) -> tuple[list[Scored], list[str]]:
        items: list[Scored] = []
        errors: list[str] = []
        for f in files:
            for line, rec in iter_records(f.path):
                if isinstance(rec, RawFileError):
                    errors.append(str(rec))
                    continue
                try:
                    idx, job, step_type = _make_job(f, rec, line, self.data, self.gold)
                    js = job.judge(self.policy)
                    s = Scored(f, line, idx, job, js, job.real_life(self.policy), step_type)
                except RawFileError as e:
                    errors.append(str(e))
                    continue
                except Exception as e:  # noqa: BLE001 - one bad row must not stop the rest
                    errors.append(f"{f.path}:{line}: {type(e).__name__}: {e}")
                    continue
                s.pending = [(j, schedule(j.pending, self.lc)) for j in js if j.pending is not None]
                items.append(s)
        for s in items:
            for j, fut in s.pending:
                apply_math(j, fut.result())
            s.pending = []
            s.correct = s.job.correct(s.judgements)
            if isinstance(s.job, MixedJob):
                s.pass_rate = s.job.pass_rate(s.judgements)
        self.lc.flush()
        return items, errors

    def run(self, paths: Sequence[str]) -> RescoreResult:
        files, errors = discover(paths)
        items, errs = self.score_files(files)
        return RescoreResult(items, errors + errs, self.policy, dict(self.lc.stats),
                             {k: v.value for k, v in self.lc.failures.items()})


# -- outputs ----------------------------------------------------------------------------------------
def jsonl_rows(items: Iterable[Scored]) -> Iterable[dict[str, Any]]:
    for s in items:
        yield {"model": s.file.model, "category": s.file.category, "mode": s.file.mode, "idx": s.idx,
               "correct": s.correct, "real_life": s.real_life}


def tables(result: RescoreResult) -> list[Table]:
    main: dict[tuple[str, str], dict[str, report.Tally]] = defaultdict(lambda: defaultdict(report.Tally))
    mixed: dict[tuple[str], dict[str, report.Tally]] = defaultdict(lambda: defaultdict(report.Tally))
    rounds: dict[tuple[str, str], dict[str, selfcorrect.RoundStats]] = defaultdict(
        lambda: defaultdict(selfcorrect.RoundStats))
    steps: dict[tuple[str], TypeStats] = defaultdict(TypeStats)
    for s in result.items:
        f = s.file
        if f.kind == "mixed":
            mixed[(f.model,)][f.category].add(s.correct, pass_rate=s.pass_rate)
        elif f.kind == "subquestions":
            steps[(f.model,)].add(s.step_type, s.correct)
        else:
            main[(f.model, f.mode)][f.category].add(s.correct, bool(s.real_life))
            if f.kind == "self-correction":
                rounds[(f.model, f.mode)][f.category].add([bool(j.correct) for j in s.judgements])
    out: list[Table] = []
    suffix = f" [{result.policy.name} scoring]"
    if main:
        out.append(report.table2(sorted(main.items()), ("model", "mode"), "KOR-Bench (Table 2 layout)" + suffix))
    if mixed:
        out.append(report.table3(sorted(mixed.items()), ("model",), "KOR-Bench complex tasks (Table 3 layout)" + suffix))
    if rounds:
        out.append(report.self_correction_table(sorted(rounds.items()), ("model", "mode"),
                                                "KOR-Bench self-correction: accuracy after each round" + suffix))
    if steps:
        out.append(report.subquestion_table(sorted(steps.items()), ("model",),
                                            "KOR-Bench cipher sub-steps: error rate by type" + suffix))
    return out


def latex_note(result: RescoreResult) -> str | None:
    if not result.latex_failures:
        return None
    problem = antlr_problem()
    if problem:
        return f"WARNING: {problem}."
    by_status: dict[str, int] = defaultdict(int)
    for k, v in result.latex_stats.items():
        if k.startswith("canon_"):
            by_status[k[len("canon_"):]] += v
    parts = ", ".join(f"{n} {st}" for st, n in sorted(by_status.items()))
    return (f"LaTeX: {len(result.latex_failures)} distinct strings could not be parsed/simplified ({parts}); "
            "those comparisons fell back to string equality, as the reference evaluator does.")


def diff(official: RescoreResult, corrected: RescoreResult, lc: LatexCanonicalizer) -> list[Disagreement]:
    """Every item whose official and corrected verdicts differ, with the fix(es) responsible."""
    by_key = {(s.file.path, s.idx): s for s in corrected.items}
    out: list[Disagreement] = []
    for s in official.items:
        c = by_key.get((s.file.path, s.idx))
        if c is None or c.correct == s.correct:
            continue
        job = s.job

        def verdict(pol: ScoringPolicy, job: Any = job) -> bool:
            return bool(job.correct([finish(j, lc) for j in job.judge(pol)]))

        out.append(Disagreement(s.file.model, s.file.category, s.file.mode, s.idx, s.correct, c.correct,
                                _extracted(s), _extracted(c), explain(verdict)))
    return out


def _extracted(s: Scored) -> str | None:
    if not s.judgements:
        return None
    j = next((j for j in s.judgements if j.correct), s.judgements[-1])
    return j.extracted


def run_cli(paths: Sequence[str], jsonl: bool, options: dict[str, Any], out: IO[str] | None = None,
            err: IO[str] | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        pol = policy_named(str(options.get("scoring", "official")))
    except ValueError as e:
        print(f"error: {e}", file=err)
        return 2
    lc = default_canonicalizer()
    result = Rescorer(pol, lc, gold=str(options.get("gold", "record"))).run(paths)
    for msg in result.errors:
        print(f"error: {msg}", file=err)
    if jsonl:
        for row in jsonl_rows(result.items):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        for t in tables(result):
            print(report.render(t) + "\n", file=out)
    note = latex_note(result)
    if note:
        print(note, file=err if jsonl else out)
    if options.get("diff"):
        other_pol = policy_named("corrected" if pol.name == "official" else "official")
        other = Rescorer(other_pol, lc, gold=str(options.get("gold", "record"))).run(paths)
        off, cor = (result, other) if pol.name == "official" else (other, result)
        dis = diff(off, cor, lc)
        stream = err if jsonl else out
        print(f"official vs corrected: {len(dis)} disagreements in {len(off.items)} items", file=stream)
        for d in dis:
            print(d.line(), file=stream)
    lc.flush()
    if not result.items and not result.errors:
        print("error: no raw-output files found", file=err)
        return 2
    return 1 if result.errors else 0
