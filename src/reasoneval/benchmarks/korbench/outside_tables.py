"""Tables for re-scored raw outputs: the paper's layouts with a row per model (and mode)."""

from __future__ import annotations

from collections import defaultdict

from reasoneval.core.benchmark import ScoredRow, Table
from reasoneval.scoring.antlr import antlr_problem
from reasoneval.scoring.latexcmp import LatexCanonicalizer

from . import report
from .latex_seed import canonicalizer
from .selfcorrect import RoundStats
from .subquestions import TypeStats


def outside_tables(groups: list[tuple[str, str, list[ScoredRow]]], scoring: str) -> list[Table]:
    """Table 2 (per model and mode), Table 3 (mixed sets), self-correction rounds, cipher sub-steps."""
    main: dict[tuple[str, str], dict[str, report.Tally]] = defaultdict(lambda: defaultdict(report.Tally))
    mixed: dict[tuple[str], dict[str, report.Tally]] = defaultdict(lambda: defaultdict(report.Tally))
    rounds: dict[tuple[str, str], dict[str, RoundStats]] = defaultdict(lambda: defaultdict(RoundStats))
    steps: dict[tuple[str], TypeStats] = defaultdict(TypeStats)
    for source, mode, rows in groups:
        for r in rows:
            v = r.final.verdict
            correct = bool(v and v.correct)
            detail = v.detail if v is not None else {}
            if mode == "mixed":
                mixed[(source,)][r.subset].add(correct, pass_rate=float(detail.get("pass_rate") or 0.0))
            elif mode == "subquestions":
                steps[(source,)].add(detail.get("type"), correct)
            else:
                main[(source, mode)][r.subset].add(correct, bool(detail.get("real_life")))
                if mode.startswith("self-correction"):
                    rounds[(source, mode)][r.subset].add([bool(t.verdict and t.verdict.correct) for t in r.turns])
    out: list[Table] = []
    suffix = f" [{scoring} scoring]"
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


def latex_note(lc: LatexCanonicalizer | None) -> str | None:
    """What could not be parsed as LaTeX (those comparisons fell back to string equality), or None."""
    lc = lc or canonicalizer()
    if not lc.failures:
        return None
    problem = antlr_problem()
    if problem:
        return f"WARNING: {problem}."
    by_status: dict[str, int] = defaultdict(int)
    for k, v in lc.stats.items():
        if k.startswith("canon_"):
            by_status[k[len("canon_"):]] += v
    parts = ", ".join(f"{n} {st}" for st, n in sorted(by_status.items()))
    return (f"LaTeX: {len(lc.failures)} distinct strings could not be parsed/simplified ({parts}); "
            "those comparisons fell back to string equality, as the reference evaluator does.")
