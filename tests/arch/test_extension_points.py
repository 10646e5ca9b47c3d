"""The generic layers reach a benchmark only through the extension points of ``core/benchmark.py``: a plugin
benchmark from outside the package gets its paper tables into the report, its dataset tables into ``stats``,
its release into the Hub layer, its build step into the catalogue, its figures into the HTML plots (through a
lazily imported ``hook``), its commands into the CLI, its training rewards into ``reasoneval.rewards``, its named
generation settings into ``--settings`` and ``list``, its own table kind into the report's groups and its item
groups into the HTML item browser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import reasoneval
from reasoneval.builder import steps
from reasoneval.builder.catalog import all_steps
from reasoneval.core import registry
from reasoneval.core.benchmark import ScoredRow, Table
from reasoneval.hub import releases
from reasoneval.report.collect import RunView
from reasoneval.report.dataset_stats import dataset_tables
from reasoneval.report.paper_tables import extra_tables

SRC = str(Path(reasoneval.__file__).resolve().parents[1])

MODULE = '''
from dataclasses import dataclass

import typer

from reasoneval.builder.steps import StepResult, step
from reasoneval.core.benchmark import Benchmark, Table, TableKind, hook
from reasoneval.core.presets import Preset
from reasoneval.core.registry import register
from reasoneval.core.values import Item, Outcome, Prompt, Verdict
from reasoneval.hub.releases import ReleaseSpec

PER_HOOK = TableKind("hooks-per-hook", like=TableKind.BREAKDOWN)


def hook_figures(views):
    from reasoneval.report.plots import Plot
    return [Plot("hooks-figure", "hooks figure", "")]


@dataclass(frozen=True)
class NoParams:
    pass


@register("hooks")
class HookBench(Benchmark):
    name = "hooks"
    description = "extension points"
    settings = {"fast": Preset("fast", {"max_tokens": 16}, "the hooks paper, section 2")}
    table_kinds = (PER_HOOK,)
    figures = hook("hookbench:hook_figures")

    def subsets(self): return ["all"]
    def modes(self): return ["zero-shot"]
    def load(self, subset, mode): return [Item("hooks", "all", "0", {"q": "?"}, "A")]
    def prompt(self, item, mode): return Prompt.chat("?")
    def score(self, item, text, mode): return Verdict(Outcome.CORRECT, text, "rule")

    def paper_tables(self, views):
        return [Table(f"hooks paper table of {len(views)} run(s)", ["model"], [[v.run["model"]] for v in views])]

    def dataset_tables(self, data, outputs):
        return [Table("hooks release statistics", ["data"], [[data]])]

    def releases(self):
        return {"hooks-data": ReleaseSpec("hooks-data", "org/hooks", "main", ("default",), "https://example.org")}

    def build_steps(self):
        @step("hooks-step", NoParams, "a step of the hooks benchmark")
        def run(rows, params, ctx):
            return StepResult(rows)

    def summarize(self, rows, mode):
        return [Table("hooks per hook", ["hook", "n"], [["h", len(rows)]], kind=PER_HOOK)]

    def item_group(self, item_key, detail, item):
        return "group-" + item_key.rpartition("/")[2]

    def cli(self, groups):
        @groups.root.command("hooks-hello")
        def hello() -> None:
            typer.echo("hello from hooks")

        @groups.generate.command("hooks")
        def gen(n: int = 1) -> None:
            typer.echo(f"{n} hooks item(s)")

    def rewards(self):
        return {"hooks_reward": lambda prompts=None, completions=None, **cols: [float(c == "A") for c in completions],
                "verl.compute_score": lambda source, text, truth, extra=None: float(text.strip() == truth),
                "verl.verl_row": lambda row, index, split="train": {"data_source": "hooks", "index": index}}
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "hookbench.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("REASONEVAL_PLUGINS", "hookbench")
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_INSTANCES", dict(registry._INSTANCES))
    monkeypatch.setattr(releases, "RELEASES", dict(releases.RELEASES))
    monkeypatch.setitem(steps.STEPS, "hooks-step", None)  # replaced by the plugin's step; gone after the test
    monkeypatch.delitem(sys.modules, "hookbench", raising=False)
    return tmp_path


def _view(bench: str, model: str) -> RunView:
    return RunView({"run_id": model, "model": model, "mode": "zero-shot", "benchmark": bench, "spec": {}},
                   list[ScoredRow](), [Table("t", ["a"], [])], {})


def test_report_stats_hub_and_builder_ask_the_benchmark(plugin: Path) -> None:
    tables = extra_tables([_view("hooks", "m1"), _view("hooks", "m2")])
    assert [(t.title, t.rows) for t in tables] == [("hooks paper table of 2 run(s)", [["m1"], ["m2"]])]
    assert [t.title for t in dataset_tables("hooks", "x.jsonl")] == ["hooks release statistics"]
    assert releases.release("hooks-data").repo_id == "org/hooks"
    assert "hooks-step" in all_steps()


def test_settings_kinds_and_item_groups_ask_the_benchmark(plugin: Path) -> None:
    from reasoneval.core.benchmark import Turn
    from reasoneval.core.presets import presets_for
    from reasoneval.core.values import Completion, GenParams, Prompt
    from reasoneval.report.assemble import assemble
    from reasoneval.report.html_page import item_data
    from reasoneval.runner.launch import gen_params

    bench = registry.get("hooks")
    assert list(presets_for(bench)) == ["fast"]
    params, record = gen_params(bench, "openai/m", "fast", {})
    assert params.max_tokens == 16 and record is not None and record["source"] == "the hooks paper, section 2"
    item = bench.load("all", "zero-shot")[0]
    rows = [ScoredRow(item.key, "all", 0, [Turn(Prompt.chat("?"), Completion("A"), bench.score(item, "A", ""))])]
    view = RunView({"run_id": "r", "model": "m", "mode": "zero-shot", "benchmark": "hooks", "spec": {}}, rows,
                   bench.summarize(rows, "zero-shot"), {})
    assert [(rt.table.title, rt.group) for rt in assemble([view]).tables if rt.benchmark == "hooks"] == [
        ("hooks per hook", "rules")]  # the plugin's kind is like a breakdown
    index, _ = item_data([view], ["m"])
    assert [it[4] for it in index["items"]] == ["group-0"]
    assert GenParams().max_tokens != 16


def test_rewards_ask_the_benchmark(plugin: Path) -> None:
    import reasoneval.rewards as rewards
    from reasoneval.rewards import plugins

    plugins.by_name.cache_clear()
    plugins.for_source.cache_clear()
    try:
        assert rewards.hooks_reward(completions=["A", "B"]) == [1.0, 0.0]  # a TRL reward by its public name
        assert rewards.compute_score("hooks", " yes ", "yes") == 1.0  # verl: the row's data_source decides
        assert rewards.compute_score("hooks", "no", "yes") == 0.0
        assert rewards.compute_score("openai/gsm8k", "... #### 18", "18") == 1.0  # any other source: math
        assert rewards.verl_row({"source": "hooks", "prompt": []}, 3) == {"data_source": "hooks", "index": 3}
        assert rewards.verl_row({"source": "other", "prompt": [], "gold": "2"}, 0)["reward_model"] == {
            "style": "rule", "ground_truth": "2"}
        with pytest.raises(AttributeError, match="nor does any benchmark's rewards"):
            rewards.no_such_reward  # noqa: B018
    finally:
        plugins.by_name.cache_clear()
        plugins.for_source.cache_clear()


def test_html_plots_ask_the_benchmark(plugin: Path) -> None:
    pytest.importorskip("matplotlib")
    from reasoneval.report.plots import make_plots

    plots, notes = make_plots([_view("hooks", "m1")])
    assert "hooks-figure" in [p.key for p in plots] and notes == []


def test_cli_commands_come_from_the_benchmark(plugin: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), SRC]), "REASONEVAL_PLUGINS": "hookbench"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                              timeout=120, cwd=plugin, env=env)

    hello = cli("hooks-hello")
    assert (hello.returncode, hello.stdout) == (0, "hello from hooks\n"), hello.stderr
    gen = cli("generate", "hooks", "--n", "3")
    assert (gen.returncode, gen.stdout) == (0, "3 hooks item(s)\n"), gen.stderr
    helped = cli("rescore", "--help")
    assert "hooks" in helped.stdout  # help texts list the registered benchmarks
    listed = cli("list")
    assert "settings: fast (--settings NAME)" in listed.stdout, listed.stderr


def test_every_extension_point_is_in_the_plugin_guide() -> None:
    """docs/adding-a-benchmark.md's "Every extension point" shows each member of the Benchmark class a plugin
    may set or override (and the package-level prestart), so the contract is written down in one place."""
    import re

    from reasoneval.core.benchmark import Benchmark

    doc = (Path(SRC).parent / "docs" / "adding-a-benchmark.md").read_text(encoding="utf-8")
    section = doc.split("## Every extension point", 1)[1].split("\n## ", 1)[0]
    members = {n for n in vars(Benchmark) if not n.startswith("_")} - {"name", "description", "options", "configure"}
    members -= set(Benchmark.__abstractmethods__)  # the five every benchmark writes: the guide's first example
    shown = set(re.findall(r"^(?:def )?(\w+)(?:\(|,| =)", section, re.MULTILINE)) | set(
        re.findall(r", (\w+) =", section))
    assert members - shown == set()
    assert "def prestart(argv)" in section
