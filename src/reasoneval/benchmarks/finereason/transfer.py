"""FineReason's transfer report (paper Sec. 5, App. A.7/A.9): stored GSM8K / MATH / MMLU runs of several
checkpoints laid out as the paper's Tables 5, 6, 7, 11, 12 and Figs. 6-7, the paper's numbers beside ours.

Each checkpoint is named by a label ``ROLE[@SIZE][:KEY=VALUE,...]``:

* ``ROLE``: ``base`` | ``math-only`` | ``mmlu-only`` | ``mixed`` (another word is refused: a typo would place the
  checkpoint in no table without a word);
* ``SIZE``: the model size as the paper writes it (``1.5B``, the default, or ``7B``);
* keys: ``rm=R`` (math ratio r_m, Fig. 6), ``ru=R`` (unsolvable ratio r_u, Table 6), ``n=N`` (training samples,
  Fig. 7; ``10k`` and ``12.5k`` are read as numbers).

A checkpoint holds at most one run per benchmark (``gsm8k``, ``math``, ``mmlu``). The numbers are read from each
benchmark's own tables (its ``LEADERBOARD`` table and its ``BREAKDOWN`` tables by level / category), so they
are exactly what ``reasoneval report`` prints for the run. A layout is shown when at least one checkpoint fits
it; its rows are ours plus the rows the paper has a number for. The paper's numbers are data
(``data/transfer_paper.json``, each with its table/section); the seed text lost the tables' bodies, so only the
numbers its prose quotes are there and every other paper cell is empty.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ...core import number_format
from ...core.benchmark import Table, TableKind

ROLES = ("base", "math-only", "mmlu-only", "mixed")
MAIN_ROLES = ("base", "math-only", "mixed")
BENCHMARKS = ("gsm8k", "math", "mmlu")
NAMES = {"gsm8k": "GSM8K", "math": "MATH", "mmlu": "MMLU"}
CATEGORY_ORDER = ("STEM", "Humanities", "Social Sciences", "Other")
_LABEL_RE = re.compile(r"^(?P<role>[A-Za-z][\w-]*)(?:@(?P<size>\d+(?:\.\d+)?[BbMm]))?(?::(?P<keys>.+))?$")


@dataclass(frozen=True)
class Checkpoint:
    label: str
    role: str
    size: str = "1.5B"
    rm: float | None = None
    ru: float | None = None
    n: int | None = None

    @property
    def main(self) -> bool:
        """A checkpoint of the main comparison (Tables 5, 7, 11, 12): no ratio swept, 2,000 samples or unsaid."""
        return self.rm is None and self.ru is None and self.n in (None, 2000)


def _count(text: str) -> int:
    t = text.strip().lower()
    scale = 1000 if t.endswith("k") else 1
    value = float(t.removesuffix("k")) * scale
    if value <= 0 or value != int(value):
        raise ValueError(f"not a sample count: {text!r}")
    return int(value)


def _ratio(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"not a ratio in [0, 1]: {text!r}")
    return value


def parse_label(text: str) -> Checkpoint:
    """``mixed@7B:rm=0.8,n=10k`` -> Checkpoint; a ValueError (one line) naming the label otherwise."""
    m = _LABEL_RE.match(text.strip())
    if m is None:
        raise ValueError(f"label {text!r}: expected ROLE[@SIZE][:KEY=VALUE,...], e.g. mixed@1.5B:rm=0.8")
    if m["role"].lower() not in ROLES:
        raise ValueError(f"label {text!r}: unknown role {m['role']!r}; known: {', '.join(ROLES)}")
    keys: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in (m["keys"] or "").split(","))):
        key, eq, value = part.partition("=")
        parse = {"rm": _ratio, "ru": _ratio, "n": _count}.get(key.strip())
        if not eq or parse is None:
            raise ValueError(f"label {text!r}: unknown key {part!r}; known: rm=R, ru=R, n=N")
        try:
            keys[key.strip()] = parse(value)
        except ValueError as e:
            raise ValueError(f"label {text!r}: {key.strip()}: {e}") from None
    size = (m["size"] or "1.5B").upper()
    return Checkpoint(text.strip(), m["role"].lower(), size, **keys)


@dataclass(frozen=True)
class Score:
    correct: int
    scored: int  # items minus failed calls

    @property
    def accuracy(self) -> float | None:
        return round(100 * self.correct / self.scored, 2) if self.scored > 0 else None


@dataclass
class Measured:
    """One checkpoint's runs and scores: ``gsm8k``, ``math/level/Level 5``, ``mmlu/category/STEM``, ..."""

    checkpoint: Checkpoint
    runs: dict[str, str] = field(default_factory=dict)  # benchmark -> "run_id (model)"
    scores: dict[str, Score] = field(default_factory=dict)

    def acc(self, key: str) -> float | None:
        s = self.scores.get(key)
        return s.accuracy if s else None


def scores_of(benchmark: str, tables: Iterable[Table]) -> dict[str, Score]:
    """A benchmark's numbers from its own tables: its one-row LEADERBOARD table (the whole benchmark) and its
    BREAKDOWN tables (one group per row, named by the first column: ``level``, ``category``, ``subject``)."""
    out: dict[str, Score] = {}
    for t in tables:
        if not {"n", "correct", "errors"} <= set(t.columns):
            continue
        i_n, i_c, i_e = (t.columns.index(c) for c in ("n", "correct", "errors"))

        def score(row: list[Any], i_n: int = i_n, i_c: int = i_c, i_e: int = i_e) -> Score:
            return Score(int(row[i_c]), int(row[i_n]) - int(row[i_e]))

        if t.kind is TableKind.LEADERBOARD and len(t.rows) == 1:
            out[benchmark] = score(t.rows[0])
        elif t.kind is TableKind.BREAKDOWN:
            out.update({f"{benchmark}/{t.columns[0]}/{row[0]}": score(row) for row in t.rows})
    return out


# ---------------------------------------------------------------------------------------------- the paper
@dataclass(frozen=True)
class PaperCell:
    layout: str
    size: str
    row: str
    column: str
    value: float
    cite: str
    n: int | None = None


@functools.lru_cache(maxsize=1)
def paper() -> tuple[tuple[PaperCell, ...], dict[str, str], str]:
    """(cells, findings per layout, caveat) from ``data/transfer_paper.json``."""
    doc = json.loads(resources.files(__package__).joinpath("data/transfer_paper.json").read_text("utf-8"))
    cells = tuple(PaperCell(c["layout"], c["size"], c["row"], c["column"], float(c["value"]), c["cite"], c.get("n"))
                  for c in doc["cells"])
    return cells, dict(doc["findings"]), str(doc["caveat"])


def _paper(layout: str, size: str, row: str, column: str, n: int | None = None) -> float | None:
    for c in paper()[0]:
        if (c.layout, c.size, c.row, c.column, c.n) == (layout, size, row, column, n):
            return c.value
    return None


def _notes(layout: str) -> list[str]:
    cells, findings, caveat = paper()
    cites = [f"paper {c.value:g}: {c.cite}" for c in cells if c.layout == layout]
    return [findings[layout], *cites, f"Empty paper cells: {caveat}"]


# ---------------------------------------------------------------------------------------------- layouts
def _size_key(size: str) -> float:
    return float(size[:-1]) * (1 if size.endswith("B") else 1e-3)


def _role_key(role: str) -> int:
    return ROLES.index(role) if role in ROLES else len(ROLES)


def table5(ms: list[Measured]) -> Table | None:
    ours = [m for m in ms if m.checkpoint.main and m.checkpoint.role in MAIN_ROLES
            and ("gsm8k" in m.scores or "math" in m.scores)]
    if not ours:
        return None
    rows: list[list[Any]] = []
    for m in sorted(ours, key=lambda m: (_size_key(m.checkpoint.size), _role_key(m.checkpoint.role))):
        c = m.checkpoint
        rows.append([c.size, c.role, c.label, m.acc("gsm8k"), _paper("table5", c.size, c.role, "gsm8k"),
                     m.acc("math"), _paper("table5", c.size, c.role, "math")])
    have = {(r[0], r[1]) for r in rows}
    for p in paper()[0]:
        if p.layout == "table5" and (p.size, p.row) not in have:
            have.add((p.size, p.row))
            rows.append([p.size, p.row, "(paper only)", None, _paper("table5", p.size, p.row, "gsm8k"), None,
                         _paper("table5", p.size, p.row, "math")])
    rows.sort(key=lambda r: (_size_key(r[0]), _role_key(r[1])))
    return Table("FineReason Table 5: math reasoning after training (accuracy %)",
                 ["size", "training", "checkpoint", "GSM8K", "GSM8K (paper)", "MATH", "MATH (paper)"], rows,
                 _notes("table5"))


def _sweep(ms: list[Measured], layout: str, title: str, attr: str, column: str) -> Table | None:
    ours = [m for m in ms if getattr(m.checkpoint, attr) is not None and "gsm8k" in m.scores]
    if not ours:
        return None
    rows = [[getattr(m.checkpoint, attr), m.checkpoint.size, m.checkpoint.role, m.checkpoint.label, m.acc("gsm8k"),
             _paper(layout, m.checkpoint.size, f"{attr}={getattr(m.checkpoint, attr)}", "gsm8k")]
            for m in sorted(ours, key=lambda m: (_size_key(m.checkpoint.size), getattr(m.checkpoint, attr)))]
    return Table(title, [column, "size", "training", "checkpoint", "GSM8K", "GSM8K (paper)"], rows, _notes(layout))


def fig7(ms: list[Measured]) -> Table | None:
    ours = [m for m in ms if m.checkpoint.n is not None and m.checkpoint.role in ("math-only", "mixed")
            and "gsm8k" in m.scores]
    if not ours:
        return None
    points: dict[tuple[str, int], dict[str, float | None]] = {}
    for m in ours:
        c = m.checkpoint
        assert c.n is not None
        points.setdefault((c.size, c.n), {})[c.role] = m.acc("gsm8k")
    for p in paper()[0]:
        if p.layout == "fig7" and p.n is not None:
            points.setdefault((p.size, p.n), {})
    rows = [[n, size, got.get("math-only"), _paper("fig7", size, "math-only", "gsm8k", n), got.get("mixed"),
             _paper("fig7", size, "mixed", "gsm8k", n)]
            for (size, n), got in sorted(points.items(), key=lambda kv: (_size_key(kv[0][0]), kv[0][1]))]
    return Table("FineReason Fig. 7: scaling the training set (GSM8K accuracy %)",
                 ["samples", "size", "math-only", "math-only (paper)", "mixed", "mixed (paper)"], rows,
                 _notes("fig7"))


def table7(ms: list[Measured]) -> Table | None:
    ours = [m for m in ms if m.checkpoint.main and m.checkpoint.role in ("base", "mmlu-only", "mixed")
            and "mmlu" in m.scores]
    if not ours:
        return None
    rows = [[m.checkpoint.size, m.checkpoint.role, m.checkpoint.label, m.acc("mmlu"),
             _paper("table7", m.checkpoint.size, m.checkpoint.role, "mmlu")]
            for m in sorted(ours, key=lambda m: (_size_key(m.checkpoint.size), _role_key(m.checkpoint.role)))]
    return Table("FineReason Table 7: general reasoning after training (MMLU accuracy %)",
                 ["size", "training", "checkpoint", "MMLU", "MMLU (paper)"], rows, _notes("table7"))


def _groups(ms: list[Measured], prefix: str) -> list[str]:
    return sorted({k.removeprefix(prefix) for m in ms for k in m.scores if k.startswith(prefix)})


def _by_size(ms: list[Measured], roles: tuple[str, ...], prefix: str) -> dict[str, list[Measured]]:
    out: dict[str, list[Measured]] = {}
    for m in sorted(ms, key=lambda m: _role_key(m.checkpoint.role)):
        if m.checkpoint.main and m.checkpoint.role in roles and any(k.startswith(prefix) for k in m.scores):
            out.setdefault(m.checkpoint.size, []).append(m)
    return dict(sorted(out.items(), key=lambda kv: _size_key(kv[0])))


def _first(ms: list[Measured], *roles: str) -> Measured | None:
    return next((m for role in roles for m in ms if m.checkpoint.role == role), None)


def table11(ms: list[Measured]) -> list[Table]:
    """Correct MATH answers per level for each main checkpoint; the improvement of mixed over math-only
    (over base when there is no math-only checkpoint), in % of the reference's correct answers."""
    out = []
    prefix = "math/level/"
    for size, group in _by_size(ms, MAIN_ROLES, prefix).items():
        mixed, ref = _first(group, "mixed"), _first(group, "math-only", "base")
        rows = []
        for level in _groups(group, prefix):
            counts = [m.scores.get(prefix + level) for m in group]
            n = max((s.scored for s in counts if s), default=0)
            gain = None
            if mixed and ref and (a := mixed.scores.get(prefix + level)) and (b := ref.scores.get(prefix + level)) \
                    and b.correct:
                gain = number_format.percent(a.correct - b.correct, b.correct)  # 66.67, never 66.70
            rows.append([level, n, *(s.correct if s else None for s in counts), gain,
                         _paper("table11", size, level, "gain")])
        ref_name = ref.checkpoint.role if ref else "-"
        out.append(Table(f"FineReason Table 11: correct MATH answers per level ({size})",
                         ["level", "n", *(m.checkpoint.label for m in group), f"% gain mixed vs {ref_name}",
                          "% gain (paper)"], rows, _notes("table11")))
    return out


def table12(ms: list[Measured]) -> list[Table]:
    """MMLU accuracy per category for each main checkpoint; mixed minus MMLU-only (else base), in points."""
    out = []
    prefix = "mmlu/category/"
    for size, group in _by_size(ms, ("base", "mmlu-only", "mixed"), prefix).items():
        mixed, ref = _first(group, "mixed"), _first(group, "mmlu-only", "base")
        cats = sorted(_groups(group, prefix), key=lambda c: (c not in CATEGORY_ORDER,
                                                              CATEGORY_ORDER.index(c) if c in CATEGORY_ORDER else 0, c))
        rows = []
        for cat in cats:
            accs = [m.acc(prefix + cat) for m in group]
            a = mixed.acc(prefix + cat) if mixed else None
            b = ref.acc(prefix + cat) if ref else None
            delta = round(a - b, 2) if a is not None and b is not None and mixed is not ref else None
            rows.append([cat, *accs, delta, _paper("table12", size, cat, "delta")])
        ref_name = ref.checkpoint.role if ref else "-"
        out.append(Table(f"FineReason Table 12: MMLU accuracy per category ({size}, %)",
                         ["category", *(m.checkpoint.label for m in group), f"mixed - {ref_name} (points)",
                          "mixed - MMLU-only (paper)"], rows, _notes("table12")))
    return out


def overview(ms: list[Measured]) -> Table:
    rows = [[m.checkpoint.label, m.checkpoint.size, m.checkpoint.role, m.checkpoint.rm, m.checkpoint.ru,
             m.checkpoint.n, *(m.runs.get(b) for b in BENCHMARKS)] for m in ms]
    return Table("FineReason transfer: checkpoints and their runs",
                 ["checkpoint", "size", "training", "r_m", "r_u", "samples", *(f"{NAMES[b]} run" for b in BENCHMARKS)],
                 rows, ["Labels ROLE[@SIZE][:rm=R,ru=R,n=N] place a checkpoint in the paper's layouts; roles: "
                        + ", ".join(ROLES) + "."])


LAYOUTS: tuple[Callable[[list[Measured]], Table | list[Table] | None], ...] = (
    table5,
    lambda ms: _sweep(ms, "fig6", "FineReason Fig. 6: math ratio r_m (GSM8K accuracy %)", "rm", "r_m"),
    lambda ms: _sweep(ms, "table6", "FineReason Table 6: unsolvable ratio r_u (GSM8K accuracy %)", "ru", "r_u"),
    fig7, table7, table11, table12)


def tables(ms: list[Measured]) -> list[Table]:
    out = [overview(ms)]
    for layout in LAYOUTS:
        got = layout(ms)
        out.extend(got if isinstance(got, list) else [got] if got is not None else [])
    return out


# ---------------------------------------------------------------------------------------------- the store
def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def measure(store: Any, labelled: list[tuple[str | None, str]]) -> list[Measured]:
    """Checkpoints from ``(label, run ref)`` pairs, in the order given; a run without a label is a checkpoint of
    its own named by its model and placed in no layout. Raises ValueError (one line) for an unknown run, a bad
    label, a run of another benchmark, or two runs of one benchmark in one checkpoint."""
    from ...core import registry
    from ...report import collect
    from ...report.labels import display_name

    out: dict[str, Measured] = {}
    for label, ref in labelled:
        try:
            run = collect.resolve_run(store, ref)
        except KeyError as e:
            raise ValueError(str(e.args[0])) from None
        bench_name = str(run["benchmark"])
        if bench_name not in BENCHMARKS:
            raise ValueError(f"run {run['run_id']} is a {bench_name} run; the transfer report reads "
                             f"{', '.join(BENCHMARKS)} runs")
        model = _printable(display_name(run))  # --name / rename, else the model without provider and endpoint
        name = _printable(label) if label else model
        if name not in out:
            out[name] = Measured(parse_label(name) if label else Checkpoint(name, "(unlabelled)"))
        m = out[name]
        if bench_name in m.runs:
            raise ValueError(f"checkpoint {name!r} has two {bench_name} runs: {m.runs[bench_name]} and "
                             f"{run['run_id']}")
        m.runs[bench_name] = f"{run['run_id']} ({model})"
        bench = registry.for_run(run)
        rows = collect.scored_rows(store, run["run_id"], prompts=False)
        m.scores.update(scores_of(bench_name, bench.summarize(rows, str(run["mode"]))))
    return list(out.values())
