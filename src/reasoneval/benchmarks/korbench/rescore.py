"""Re-scoring official KOR-Bench raw outputs from Python (``reasoneval rescore korbench PATH...`` on the
command line): the same path as the CLI — the adapter (:mod:`.outside`), the runner's outside scoring with
KOR-Bench's batch scorer (SymPy scheduled on the sandboxed pool while the rest is read), ``summarize_outside`` —
with each row's raw-output file kept alongside, for tests and ``bench/korbench_rescore.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from reasoneval.core.benchmark import OutsideRow, Table
from reasoneval.core.errors import DataError
from reasoneval.core.values import Verdict
from reasoneval.scoring.latexcmp import LatexCanonicalizer

from .benchmark import KorBench
from .data import KorData
from .latex_seed import canonicalizer
from .outside import raw_rows
from .outside_tables import latex_note as _latex_note
from .rawfiles import RawFile
from .score_corrected import Disagreement
from .score_official import OFFICIAL, ScoringPolicy


@dataclass
class Scored:
    """One raw-output record and its verdicts (one per turn; the last decides)."""

    file: RawFile
    row: OutsideRow
    verdicts: list[Verdict]

    @property
    def idx(self) -> str:
        return self.row.item.id

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[-1]

    @property
    def correct(self) -> bool:
        return self.verdict.correct

    @property
    def real_life(self) -> bool | None:
        got = self.verdict.detail.get("real_life")
        return None if got is None else bool(got)

    @property
    def pass_rate(self) -> float | None:
        got = self.verdict.detail.get("pass_rate") if self.file.kind == "mixed" else None
        return None if got is None else float(got)


@dataclass
class RescoreResult:
    items: list[Scored]
    errors: list[str]
    policy: ScoringPolicy
    latex_stats: dict[str, int]
    latex_failures: dict[str, str]
    bench: KorBench


class Rescorer:
    def __init__(self, pol: ScoringPolicy = OFFICIAL, lc: LatexCanonicalizer | None = None,
                 data: KorData | None = None, gold: str = "record") -> None:
        if gold not in ("record", "data"):
            raise ValueError("gold must be 'record' or 'data'")
        self.policy = pol
        self.lc = lc or canonicalizer()
        self.bench = KorBench(pol.name, data, self.lc)
        self.gold = gold

    def run(self, paths: Sequence[str]) -> RescoreResult:
        from reasoneval.runner.rescore_outside import score_outside

        files: list[RawFile] = []

        def rows() -> Iterator[OutsideRow | DataError]:
            for f, row in raw_rows(paths, self.bench.data, self.gold):
                if isinstance(row, OutsideRow):
                    assert f is not None
                    files.append(f)
                yield row

        got = score_outside(self.bench, rows(), {})
        items = [Scored(f, r, vs) for f, r, vs in zip(files, got.rows, got.verdicts, strict=True)]
        return RescoreResult(items, [str(e) for e in got.errors], self.policy, dict(self.lc.stats),
                             {k: v.value for k, v in self.lc.failures.items()}, self.bench)


def jsonl_rows(items: Iterable[Scored]) -> Iterable[dict[str, Any]]:
    for s in items:
        yield {"model": s.file.model, "category": s.file.category, "mode": s.file.mode, "idx": s.idx,
               "correct": s.correct, "real_life": s.real_life, "cut_off": bool(s.verdict.detail.get("cut_off"))}


def tables(result: RescoreResult) -> list[Table]:
    from reasoneval.runner.rescore_outside import OutsideScores

    got = OutsideScores([s.row for s in result.items], [s.verdicts for s in result.items])
    return result.bench.summarize_outside(got.groups())


def latex_note(result: RescoreResult) -> str | None:
    return _latex_note(result.bench.lc)


def diff(official: RescoreResult, corrected: RescoreResult, lc: LatexCanonicalizer) -> list[Disagreement]:
    """Every item whose official and corrected verdicts differ, with the fix(es) responsible."""
    from reasoneval.runner.verdict_of import response_of

    by_key = {(s.file.path, s.idx): s for s in corrected.items}
    bench = KorBench(official.policy.name, lc=lc)
    out: list[Disagreement] = []
    for s in official.items:
        c = by_key.get((s.file.path, s.idx))
        if c is None or c.correct == s.correct:
            continue
        reason = bench.diff_reason(s.row, response_of(s.row.completion).final)
        out.append(Disagreement(s.file.model, s.file.category, s.file.mode, s.idx, s.correct, c.correct,
                                s.verdict.extracted, c.verdict.extracted, reason))
    return out

