"""The shared plot pieces: Wilson whiskers, unique cut labels, lines that become a heat map, figure height that
grows with the rows, legends outside the data, the recorded layout."""

from __future__ import annotations

import math

import pytest

from reasoneval.report import plot_kit as kit

pytest.importorskip("matplotlib")


def test_wilson_against_a_hand_computation() -> None:
    # 7 of 10, z = 1.96: centre (0.7 + 1.9208/10) / 1.38416 = 0.64447, half-width
    # 1.96 * sqrt(0.021 + 0.0096040) / 1.38416 = 0.24769 -> [39.68, 89.22]
    lo, hi = kit.wilson(7, 10)
    assert lo == pytest.approx(39.68, abs=0.01) and hi == pytest.approx(89.22, abs=0.01)
    assert kit.wilson(0, 5)[0] == 0.0 and kit.wilson(5, 5)[1] == 100.0
    assert kit.wilson(0, 0) == (0.0, 0.0)
    lo, hi = kit.wilson(500, 1000)
    assert hi - lo == pytest.approx(2 * 1.96 * math.sqrt(0.25 / 1000) * 100, rel=0.01)


def test_fit_labels_cut_in_the_middle_and_stay_unique() -> None:
    a = "openai-compat-very-long-family-name-7B-Instruct (zero-shot, corrected)"
    b = "openai-compat-very-long-family-name-7B-Instruct-v2 (zero-shot, corrected)"
    got = kit.fit_labels([a, b, "short"], 30)
    assert len(set(got)) == 3 and all(len(s) <= 30 for s in got) and got[2] == "short"
    assert "corrected)" in got[0] and "corrected)" in got[1]  # the tail that tells runs apart is kept


def test_series_become_a_heat_map_past_max_lines_and_heights_grow() -> None:
    few = {f"run {i}": {0.0: 10.0 * i, 1.0: 12.0 * i} for i in range(kit.MAX_LINES)}
    fig = kit.series_figure("t", few, "round", "accuracy (%)")
    assert len(fig.axes[0].get_lines()) == kit.MAX_LINES and fig.legends  # legend beside the axes
    many = {f"run {i}": {0.0: 1.0 * i, 1.0: 1.5 * i} for i in range(60)}
    hm = kit.series_figure("t", many, "round", "accuracy (%)")
    assert hm.axes[0].images and not hm.axes[0].get_lines()
    rows = [t.get_text() for t in hm.axes[0].get_yticklabels()]
    assert rows[0] == "run 59" and rows[-1] == "run 0"  # sorted by their mean, best first
    assert hm.get_figheight() == pytest.approx(kit.rows_height(60, 1.1))
    assert kit.rows_height(1) == pytest.approx(kit.MIN_AXES_IN + 1.3)


def test_layout_records_axes_legends_and_labels_inside_the_png() -> None:
    fig = kit.series_figure("t", {"a": {0.0: 10.0, 1.0: 20.0}, "b": {0.0: 30.0, 1.0: 60.0}}, "x", "y")
    b64, lay = kit.png(fig)
    import base64
    import io

    from PIL import Image

    img = Image.open(io.BytesIO(base64.b64decode(b64)))
    assert img.size == (lay["w"], lay["h"])
    (ax,) = lay["axes"]
    (legend,) = lay["legends"]
    assert legend[0] > ax[2]  # right of the data area
    assert (ax[3] - ax[1]) >= kit.MIN_AXES_IN * kit.DPI * 0.9
    groups = {lab["g"] for lab in lay["labels"]}
    assert {"axes0-x", "axes0-y", "legend0"} <= groups
    assert sorted(lab["t"] for lab in lay["labels"] if lab["g"] == "legend0") == ["a", "b"]
    assert all(lab["px"] >= 9 for lab in lay["labels"])  # 7 pt at 96 dpi and up


def test_self_correction_runs_that_stopped_early_keep_their_last_round() -> None:
    from reasoneval.benchmarks.korbench import figures as kor_figures
    from reasoneval.core.benchmark import ScoredRow, Turn
    from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
    from reasoneval.report import collect
    from reasoneval.report.collect import RunView

    def row(i: int, outcomes: list[Outcome]) -> ScoredRow:
        return ScoredRow(f"s/{i}", "s", 0, [Turn(Prompt.chat("q"), Completion("a", "stop", Usage(1, 1)),
                                                 Verdict(o, None, "m", {})) for o in outcomes])

    C, W = Outcome.CORRECT, Outcome.INCORRECT
    three = [row(0, [W, W, C]), row(1, [W, C]), row(2, [C])]  # 1/3, 2/3, 3/3
    two = [row(0, [W, C]), row(1, [C])]  # 1/2, 2/2 after round 1, and so after round 2
    views = [RunView({"run_id": r, "model": f"m{r}", "benchmark": "korbench", "mode": "self-correction"}, rows, [],
                     collect.run_stats(rows)) for r, rows in (("a", three), ("b", two))]
    fig = kor_figures.self_correction_figure(views)
    a, b = fig.axes[0].get_lines()
    assert list(b.get_xdata()) == [0.0, 1.0, 2.0] and list(b.get_ydata()) == [50.0, 100.0, 100.0]
    assert [round(y, 1) for y in a.get_ydata()] == [33.3, 66.7, 100.0]
