"""The plot defects seen in a real browser, checked on the figures themselves (text boxes as drawn, ticks)."""

from __future__ import annotations

import pytest

from reasoneval.benchmarks.finereason import figures as fr_figures
from reasoneval.benchmarks.korbench import figures as kor_figures
from reasoneval.core.benchmark import ScoredRow, Turn
from reasoneval.core.types import Completion, Outcome, Prompt, Usage, Verdict
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
