"""General365 summaries: overall and per answer type (with the grading path of each item), per
challenge category (multi-label: an item counts in each of its categories), seeds vs variants, and
accuracy against output length.

Aggregation follows the reconstruction in the spec (§3.5): every item (seed or variant) counts once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...core.benchmark import Table
from ...core.number_format import rounded
from ...core.values import Outcome, Verdict
from ...core.verdicts import Method

PATHS = (Method.RULE, Method.JUDGE, Method.UNEXTRACTABLE, Method.JUDGE_UNPARSEABLE, Method.JUDGE_MISSING)


@dataclass
class Scored:
    id: str
    verdict: Verdict | None
    meta: dict[str, Any] = field(default_factory=dict)
    output_tokens: int | None = None


@dataclass
class _Count:
    n: int = 0
    correct: int = 0
    errors: int = 0
    paths: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ids: set[str] = field(default_factory=set)  # the items answered (several samples of one count once)

    def add(self, v: Verdict | None, item: str | None = None) -> None:
        self.n += 1
        if item is not None:
            self.ids.add(item)
        if v is None:
            self.paths["unscored"] += 1
            return
        self.correct += int(v.outcome is Outcome.CORRECT)
        self.errors += int(v.outcome is Outcome.ERROR)
        self.paths[v.method or "?"] += 1

    @property
    def accuracy(self) -> float:
        return rounded(100 * self.correct / max(self.n - self.errors, 1))  # as every table rounds

    def row(self, label: str) -> list[Any]:
        other = self.n - self.errors - sum(self.paths.get(p, 0) for p in PATHS)
        return [label, len(self.ids) or self.n, self.accuracy, *(self.paths.get(p, 0) for p in PATHS), max(other, 0),
                self.errors]


def overall_table(rows: list[Scored], mode: str) -> Table:
    total = _Count()
    by_type: dict[str, _Count] = defaultdict(_Count)
    for r in rows:
        total.add(r.verdict, r.id)
        by_type[r.meta.get("answer_type") or "(unknown)"].add(r.verdict, r.id)
    out = [total.row("overall"), *(by_type[t].row(t) for t in sorted(by_type))]
    return Table(f"General365 accuracy ({mode})",
                 ["answer type", "n", "accuracy", "by rule", "by judge", "unextractable", "judge unparseable",
                  "judge missing", "other", "errors"], out,
                 notes=["Columns 'by rule' .. 'judge missing' count which path decided each item "
                        "(Verdict.method); unparseable judge replies are counted apart and score as wrong.",
                        "n: items, every item (seed or variant) once, its samples together; accuracy = correct / "
                        "(answers - errors) over every sample."])


def category_table(rows: list[Scored]) -> Table | None:
    stats: dict[str, _Count] = defaultdict(_Count)
    for r in rows:
        for c in r.meta.get("categories") or []:
            stats[c].add(r.verdict)
    if not stats:
        return None
    from .paper_meta import CATEGORIES

    order = list(CATEGORIES)  # the paper's Table 1 columns first, then any other label
    out = [[c, s.n, s.accuracy] for c, s in sorted(
        stats.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))]
    return Table("General365 accuracy per challenge category", ["category", "n", "accuracy"], out,
                 notes=["Multi-label: an item counts in every category it carries."])


def seed_variant_table(rows: list[Scored]) -> Table | None:
    kinds: dict[str, _Count] = defaultdict(_Count)
    families: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        is_seed = r.meta.get("is_seed")
        if is_seed is not None:
            kinds["seed" if is_seed else "variant"].add(r.verdict)
        sid = r.meta.get("seed_id")
        if sid is not None and r.verdict is not None and r.verdict.outcome is not Outcome.ERROR:
            families[str(sid)].append(r.verdict.correct)
    if not kinds and not families:
        return None
    out: list[list[Any]] = [[k, c.n, c.accuracy] for k, c in sorted(kinds.items())]
    notes = []
    multi = [v for v in families.values() if len(v) > 1]
    if multi:
        all_ok = sum(all(v) for v in multi)
        out.append(["seed families, all versions correct", len(multi), rounded(100 * all_ok / len(multi))])
        notes.append("A seed family is a seed with its variants (items sharing seed_id).")
    return Table("General365 seeds vs variants", ["group", "n", "accuracy"], out, notes)


def efficiency_table(rows: list[Scored]) -> Table | None:
    toks = [(r.output_tokens, r.verdict) for r in rows if r.output_tokens is not None and r.verdict is not None
            and r.verdict.outcome is not Outcome.ERROR]
    if not toks or not any(t for t, _ in toks):
        return None
    toks.sort(key=lambda x: x[0] or 0)
    out: list[list[Any]] = []
    mean = rounded(sum(t or 0 for t, _ in toks) / len(toks))
    acc = rounded(100 * sum(v.correct for _, v in toks) / len(toks))
    out.append(["all", len(toks), mean, acc])
    for label, want in (("correct answers", True), ("wrong answers", False)):
        sel = [t or 0 for t, v in toks if v.correct is want]
        if sel:
            out.append([label, len(sel), rounded(sum(sel) / len(sel)), 100.0 if want else 0.0])
    q = len(toks)
    for i in range(4):
        part = toks[i * q // 4:(i + 1) * q // 4]
        if part:
            out.append([f"length quartile {i + 1} (<= {part[-1][0]})", len(part),
                        rounded(sum(t or 0 for t, _ in part) / len(part)),
                        rounded(100 * sum(v.correct for _, v in part) / len(part))])
    return Table("General365 accuracy against output tokens", ["group", "n", "mean output tokens", "accuracy"],
                 out, notes=["Output tokens as reported by the backend (completion tokens, all turns)."])


def all_tables(rows: list[Scored], mode: str) -> list[Table]:
    out = [overall_table(rows, mode)]
    cats, seeds = category_table(rows), seed_variant_table(rows)
    missing = [what for what, t in (("per-category table", cats), ("seeds-vs-variants table", seeds)) if t is None]
    if missing:  # say so, rather than leave the paper's breakdowns silently out
        out[0].notes.append(
            f"No {' and no '.join(missing)}: these items carry no category labels / seed links (the public "
            "release has neither, and nothing in it derives them; see general365/paper_meta.py).")
    for t in (cats, seeds, efficiency_table(rows)):
        if t is not None:
            out.append(t)
    return out


def models_efficiency_table(runs: Iterable[tuple[str, list[Scored]]]) -> Table:
    """Across runs (one per model): accuracy against mean output tokens, as in the paper's Fig. 4."""
    out: list[list[Any]] = []
    for label, rows in runs:
        c = _Count()
        toks: list[int] = []
        for r in rows:
            c.add(r.verdict)
            if r.output_tokens is not None:
                toks.append(r.output_tokens)
        out.append([label, c.n, c.accuracy, rounded(sum(toks) / len(toks)) if toks else None])
    out.sort(key=lambda r: float(r[3] or 0))
    return Table("General365 accuracy vs mean output tokens (per model)",
                 ["model", "n", "accuracy", "mean output tokens"], out)


def efficiency_plot(table: Table, path: str) -> str:
    """Scatter plot (PNG) of a :func:`models_efficiency_table`; needs matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - optional dependency
        raise RuntimeError("the plot needs matplotlib: pip install 'reasoneval[report]'") from e
    pts = [(r[3], r[2], r[0]) for r in table.rows if r[3] is not None]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter([p[0] for p in pts], [p[1] for p in pts])
    for x, y, label in pts:
        ax.annotate(str(label), (x, y), fontsize=7)
    ax.set_xlabel("mean output tokens")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("General365: accuracy vs output length")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
