"""The plot defects seen in a real browser, checked on the figures themselves (text boxes as drawn, ticks)."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.finereason import figures as fr_figures
from reasoneval.benchmarks.korbench import figures as kor_figures
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.report import collect, plots
from reasoneval.report.collect import RunView

pytest.importorskip("matplotlib")


def _rows(n_ok: int, n: int, out_tokens: int, turns: int = 1, depth: int | None = None) -> list[ScoredRow]:
    rows = []
    for i in range(n):
        ts = [Turn(Prompt.chat("q"), Completion("a", "stop", Usage(5, out_tokens)),
                   Verdict(Outcome.CORRECT if (i < n_ok and t == turns - 1) or i < n_ok // 2 else Outcome.INCORRECT,
                           None, "m", {} if depth is None else {"depth": depth}))
              for t in range(turns)]
        rows.append(ScoredRow(f"s/{i}", "s", 0, ts))
    return rows


def _view(model: str, rows: list[ScoredRow], mode: str = "zero-shot", bench: str = "korbench") -> RunView:
    return RunView({"run_id": f"id-{model}-{mode}", "model": model, "benchmark": bench, "mode": mode}, rows, [],
                   collect.run_stats(rows))


def _overlaps(a: object, b: object) -> bool:
    return bool(a.overlaps(b))  # type: ignore[attr-defined]


def test_accuracy_vs_tokens_labels_never_overlap() -> None:
    # six runs whose points nearly coincide: the old per-point model labels were drawn on top of each other
    views = [_view(f"openai-compat/some-long-model-name-{k}@http://h:1/v1", _rows(50 + (k % 2), 100, 300 + k),
                   mode=("zero-shot" if k % 2 else "three-shot")) for k in range(6)]
    # and a spread of points a little apart (each its own label): those labels must not collide either
    views += [_view(f"m{k}", _rows(10 + 7 * k, 100, 40 + 90 * k)) for k in range(6)]
    fig = plots.accuracy_vs_tokens_figure(views)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    ax = fig.axes[0]
    texts = [t for t in ax.texts if t.get_text()]
    boxes = [t.get_window_extent(r) for t in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not _overlaps(boxes[i], boxes[j]), (texts[i].get_text(), texts[j].get_text())
    key = next(t.get_text() for t in texts if t.get_gid() == "key")
    assert key.count("\n") == 11 and " 1  " in key and "12  " in key
    numbers = sorted(int(n) for t in texts if t.get_gid() == "point"
                     for n in t.get_text().replace("\n", ",").split(","))
    assert numbers == list(range(1, 13))  # every run numbered once


def test_long_labels_keep_the_mode_that_tells_runs_apart() -> None:
    # CoT and no-CoT runs of one long model name: cutting the label's end made the two key lines identical
    m = "openai-compat/qwen2.5-7b-instruct@http://localhost:8080/v1"
    views = [_view(m, _rows(50, 100, 300), mode="cot", bench="rbench"),
             _view(m, _rows(40, 100, 100), mode="no-cot", bench="rbench")]
    fig = plots.accuracy_vs_tokens_figure(views)
    key = next(t.get_text() for t in fig.axes[0].texts if t.get_gid() == "key").split("\n")
    assert len(set(key)) == 2 and key[0].endswith("(cot)") and key[1].endswith("(no-cot)")
    assert all(len(line) <= 44 for line in key)
    legend = [t.get_text() for t in kor_figures.self_correction_figure(
        [_view(m, _rows(6, 10, 20, turns=2), mode=mode) for mode in ("a-mode", "b-mode")]).legends[0].texts]
    assert len(set(legend)) == 2


def test_single_depth_axis_is_whole_numbers() -> None:
    fig = fr_figures.depth_figure([_view("m", _rows(3, 5, 10, depth=3), bench="finereason")])
    ticks = list(fig.axes[0].get_xticks())
    assert ticks == [3.0]
    lo, hi = fig.axes[0].get_xlim()
    assert lo < 3 < hi
    fig2 = fr_figures.depth_figure([_view("m", _rows(3, 5, 10, depth=1) + _rows(1, 5, 10, depth=4), bench="finereason")])
    assert list(fig2.axes[0].get_xticks()) == [1.0, 2.0, 3.0, 4.0]


def test_self_correction_rounds_numbered_like_the_table() -> None:
    from reasoneval.benchmarks.korbench.report import self_correction_table
    from reasoneval.benchmarks.korbench.selfcorrect import MAX_CALLS

    v = _view("m", _rows(6, 10, 20, turns=MAX_CALLS), mode="self-correction")
    fig = kor_figures.self_correction_figure([v])
    ticks = [int(x) for x in fig.axes[0].get_xticks()]
    table_rounds = [int(c.split()[1]) for c in self_correction_table([]).columns if c.startswith("round ")]
    assert ticks == table_rounds == list(range(MAX_CALLS))
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == table_rounds
    assert line.get_ydata()[0] == pytest.approx(30.0) and line.get_ydata()[-1] == pytest.approx(60.0)


def test_real_life_rate_figure_ours_beside_the_papers() -> None:
    from reasoneval.benchmarks.korbench import paper_numbers as pn

    rows = []
    for i in range(20):
        v = Verdict(Outcome.CORRECT if i < 15 else Outcome.INCORRECT, None, "m", {"real_life": 15 <= i < 18})
        rows.append(ScoredRow(f"counterfactual/{i}", "counterfactual", 0,
                              [Turn(Prompt.chat("q"), Completion("a", "stop", Usage(1, 1)), v)]))
    views = [_view("openai/gpt-4o", rows), _view("m", _rows(1, 2, 5))]
    assert kor_figures.real_life_points(views) == [("gpt-4o", 75.0, 15.0, 20)]
    fig = kor_figures.real_life_figure(views)
    ax = fig.axes[0]
    paper_chat = ax.collections[0].get_offsets()
    assert len(paper_chat) == len(pn.KORBENCH_TABLE2_CHAT)
    assert list(ax.collections[-1].get_offsets()[0]) == [75.0, 15.0]
    assert kor_figures.real_life_figure(views[1:]) is None


def _counterfactual_rows(n: int, ok: int, rl: int) -> list[ScoredRow]:
    rows = []
    for i in range(n):
        v = Verdict(Outcome.CORRECT if i < ok else Outcome.INCORRECT, None, "m", {"real_life": ok <= i < ok + rl})
        rows.append(ScoredRow(f"counterfactual/{i}", "counterfactual", 0,
                              [Turn(Prompt.chat("q"), Completion("a", "stop", Usage(1, 40 + i)), v)]))
    return rows


def _scatter_problems(fig: object) -> tuple[list[str], list[int]]:
    """What collides in a numbered scatter of one benchmark as drawn: point labels on each other, on any numbered
    point's marker, past the axes, or one label for points apart; and every number the labels carry."""
    from reasoneval.report import plot_kit as kit

    lay = kit.layout(fig)
    ax = fig.axes[0]  # type: ignore[attr-defined]
    labels = [lab for lab in lay["labels"] if lab["g"] == "points0"]
    h = lay["h"]
    ours = [c for c in ax.collections if not str(c.get_label()).startswith("paper")]
    assert len(ours) == 1  # the numbered runs, in their numbers' order
    where = [(x, h - y) for x, y in ax.transData.transform(ours[0].get_offsets())]  # PNG pixels, origin top left
    marks = [(n, [x - 3, y - 3, x + 3, y + 3]) for n, (x, y) in enumerate(where, 1)]  # a marker's core (8 px)
    frame = lay["axes"][0]
    out = []

    def meets(a: list[float], b: list[float]) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    for i, a in enumerate(labels):
        if not (frame[0] <= a["b"][0] and a["b"][2] <= frame[2] and frame[1] <= a["b"][1] and a["b"][3] <= frame[3]):
            out.append(f"label {a['t']!r} {a['b']} leaves the axes {frame}")
        out += [f"labels {a['t']!r} and {b['t']!r} overlap" for b in labels[i + 1:] if meets(a["b"], b["b"])]
        out += [f"label {a['t']!r} covers point {n}" for n, m in marks if meets(a["b"], m)]
        nums = [int(n) for n in a["t"].replace("\n", ",").split(",")]
        xs, ys = [where[n - 1][0] for n in nums], [where[n - 1][1] for n in nums]
        if max(xs) - min(xs) > 4 or max(ys) - min(ys) > 4:
            out.append(f"label {a['t']!r} is one label for points apart")
    numbers = sorted(int(n) for lab in labels for n in lab["t"].replace("\n", ",").split(","))
    return out, numbers


@pytest.mark.parametrize("spread", ["tight", "coincident", "spread"])
def test_numbered_scatters_never_collide_at_62_runs(spread: str) -> None:
    """KOR-Bench's real-life scatter and the accuracy/tokens scatter at the release's 62 runs: most points in a
    small region (the issue saw labels on top of each other at 58 runs), many on the very same spot, or spread:
    every run numbered once, no label on another label or on a point, every label inside the axes."""
    import random

    rng = random.Random(spread)
    views = []
    for k in range(62):
        if spread == "tight":  # a cluster of ~10 x 8 points of accuracy / real-life rate (the release's shape)
            ok, rl = rng.randint(60, 70), rng.randint(5, 13)
        elif spread == "coincident":  # a few exact repeats of the same numbers
            ok, rl = 60 + 2 * (k % 4), 6 + (k % 3)
        else:
            ok, rl = rng.randint(5, 95), rng.randint(0, min(40, 100 - rng.randint(5, 95)))
        views.append(_view(f"org/model-{k:02d}-instruct", _counterfactual_rows(100, ok, min(rl, 100 - ok))))
    for fig in (kor_figures.real_life_figure(views), plots.accuracy_vs_tokens_figure(views)):
        bad, numbers = _scatter_problems(fig)
        assert bad == [], "\n".join(bad[:20])
        assert numbers == list(range(1, 63))
