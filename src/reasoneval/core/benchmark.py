"""The contract every benchmark implements once; the runner, store and report use only this.

:class:`Benchmark` declares every extension point of the generic layers (docs/adding-a-benchmark.md lists each
with an example). The one hook that cannot live on the class is ``prestart(argv)`` in the benchmark's package
``__init__``: the console script calls it before importing the class (``entry.py``), so its declaration is
:data:`Prestart` here and the package's own function.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from .errors import DataError
from .options import BenchOptions
from .presets import Preset
from .response import Response, cut_off
from .table import Cell, Column, Table, TableKind
from .values import Completion, GenParams, Item, Outcome, Prompt, Verdict
from .verdicts import Method

__all__ = ["BatchScorer", "Benchmark", "Cell", "Column", "OutsideRow", "Prestart", "ScoredRow", "Table", "TableKind",
           "Turn", "decided", "hook"]

#: ``prestart(argv)`` in a benchmark package's ``__init__``: called by the console script with the command line
#: when its second word names the benchmark (``reasoneval rescore NAME ...``), before the CLI's imports and before
#: the benchmark's class is imported, to start slow work that can overlap them; an exception is ignored
Prestart = Callable[[list[str]], None]


@dataclass
class Turn:
    """One model call inside an item's conversation (most protocols have exactly one)."""

    prompt: Prompt
    completion: Completion
    verdict: Verdict | None = None

    @property
    def error(self) -> str | None:
        """This call's error (``completion.error``; None: it answered). A table's compact turn
        (``report.slim``) has it as a field: asking it here makes no completion object."""
        return self.completion.error

    @property
    def cut_off(self) -> bool:
        """Whether this call's output was cut off (``core.response.cut_off``: the token limit or an unclosed
        reasoning section), whatever its verdict: what every table's "truncated" counts."""
        return cut_off(self.completion.text, self.completion.finish_reason)


@dataclass
class ScoredRow:
    """What the store hands back to a benchmark's summariser: one (item, sample)'s final state."""

    item_key: str
    subset: str
    sample: int
    turns: list[Turn]

    @property
    def final(self) -> Turn:
        return self.turns[-1]


class Benchmark(ABC):
    name: str = ""
    description: str = ""
    default_mode: str = "zero-shot"
    default_params: GenParams = GenParams()
    #: this benchmark's typed options (a frozen dataclass subclassing BenchOptions); ``-O key=value``
    Options: ClassVar[type[BenchOptions]] = BenchOptions
    #: ``summarize`` reads the answers' texts: the report gives it rows with texts (default: compact rows of
    #: verdicts, finish reasons and token counts, whose completions refuse to give a text)
    summary_needs_texts: ClassVar[bool] = False
    #: named generation settings (``--settings NAME``, e.g. the paper's decoding settings), by name
    settings: ClassVar[Mapping[str, Preset]] = {}
    #: this benchmark's own table kinds (``TableKind(name, like=...)``, made in its folder) besides the generic
    #: ones; renderers treat each as the generic kind it is ``like``
    table_kinds: ClassVar[tuple[TableKind, ...]] = ()

    @property
    def options(self) -> BenchOptions:
        got = self.__dict__.get("_options")
        if got is None:
            got = self.__dict__["_options"] = self.Options()
        return got

    def configure(self, options: BenchOptions | Mapping[str, Any]) -> None:
        """Set this instance's options (a mapping is validated and merged over the current ones)."""
        if not isinstance(options, BenchOptions):
            merged = {**self.options.to_json(),
                      **{name: value for name, value in options.items() if value is not None}}
            options = self.Options.from_mapping(merged, benchmark=self.name)
        elif not isinstance(options, self.Options):
            options = self.Options.from_mapping(options.to_json(), benchmark=self.name)
        self.__dict__["_options"] = options
        self.options_changed()

    def options_changed(self) -> None:
        """Hook: drop whatever was cached under the previous options."""
        return None

    @abstractmethod
    def subsets(self) -> list[str]: ...

    @abstractmethod
    def modes(self) -> list[str]: ...

    @abstractmethod
    def load(self, subset: str, mode: str) -> list[Item]: ...

    @abstractmethod
    def prompt(self, item: Item, mode: str) -> Prompt: ...

    @abstractmethod
    def score(self, item: Item, text: str, mode: str) -> Verdict: ...

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        """Score the runner's view of one output. Default: ``score`` on the final text (reasoning removed);
        override to use ``response.reasoning`` or ``response.raw`` as well."""
        return self.score(item, response.final, mode)

    def score_now(self, item: Item, response: Response, mode: str) -> Verdict | None:
        """``score_response``'s verdict when it can be made at once, or None when it may wait (SymPy or other
        sandboxed work, a file, a network): the runner then calls ``score_response`` in a worker thread.

        Called on the runner's event loop for outputs of moderate size, so it must be quick and never block.
        Default: None (every verdict in a thread)."""
        return None

    def stratum(self, item: Item, mode: str) -> str:
        """The label/category group of an item that ``--limit N`` keeps in proportion when it samples
        (``runner/sample.py``). Default: one group (a plain seeded sample)."""
        return ""

    def followup(self, item: Item, mode: str, turns: list[Turn]) -> Prompt | None:
        """Next prompt of a multi-turn protocol (e.g. self-correction), or None when done."""
        return None

    def judge_prompt(self, item: Item, text: str, mode: str) -> Prompt | None:
        """A judge-model prompt when this answer needs an LLM judge; None when rules decide.

        The runner calls the judge model (cached and stored like any completion) and then
        ``score_judged``. Without a configured judge the verdict stays ``score``'s.
        """
        return None

    def score_judged(self, item: Item, text: str, mode: str, judge_text: str) -> Verdict:
        raise NotImplementedError(f"{self.name} does not use a judge")

    def data_version(self) -> str:
        return "unknown"

    def prompt_version(self, mode: str) -> str:
        return "unknown"

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        """Default: accuracy per subset and overall, over final turns."""
        from collections import defaultdict

        stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # correct, answers, unans, err
        items: dict[str, set[str]] = defaultdict(set)  # n counts items: the samples of one count once
        for row in rows:
            verdict = row.final.verdict
            items[row.subset].add(row.item_key)
            counts = stats[row.subset]
            counts[1] += 1
            if verdict is None:
                continue
            counts[0] += int(verdict.correct)
            counts[2] += int(verdict.outcome.value == "unanswerable")
            counts[3] += int(verdict.outcome.value == "error")
        out = []
        tot = [0, 0, 0, 0]
        for sub in sorted(stats):
            correct, answers, unanswerable, errors = stats[sub]
            tot = [total + count for total, count in zip(tot, stats[sub], strict=True)]
            out.append([sub, len(items[sub]), round(100 * correct / max(answers - errors, 1), 2), unanswerable,
                        errors])
        correct, answers, unanswerable, errors = tot
        out.append(["overall", sum(map(len, items.values())), round(100 * correct / max(answers - errors, 1), 2),
                    unanswerable, errors])
        return [Table(f"{self.name} ({mode})", ["subset", "n", "accuracy", "unextractable", "errors"], out,
                      ["n: items (the samples of one item count once); accuracy, unextractable and errors: over "
                       "every answer."] if len(rows) > sum(map(len, items.values())) else [])]

    # -- completions made elsewhere (``reasoneval rescore``; the runner's ``outside`` module does the rest) --
    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """The adapter: outside files -> (item, mode, completion) rows; a ``DataError`` for an unusable row."""
        raise NotImplementedError(f"{self.name} has no rescore support")

    def outside_json(self, row: OutsideRow, verdict: Verdict) -> dict[str, Any]:
        """One JSON-lines object per row (``rescore --jsonl``). ``correct`` is None when undecided."""
        return {"id": row.item.id, "correct": decided(verdict), "extracted": verdict.extracted,
                "method": str(verdict.method)}

    def batch_scorer(self) -> BatchScorer | None:
        """Optional hook for re-scoring many outside completions at once (e.g. SymPy comparisons scheduled on
        the worker pool while the rest is read). None: the runner calls ``score_response``."""
        return None

    def summarize_outside(self, groups: list[tuple[str, str, list[ScoredRow]]]) -> list[Table]:
        """Tables for re-scored outside completions, grouped as ``(source, mode, rows)`` (``source``: where the
        completions came from, e.g. the model named in a file name). Default: ``summarize`` per mode."""
        by_mode: dict[str, list[ScoredRow]] = {}
        for _, mode, rows in groups:
            by_mode.setdefault(mode, []).extend(rows)
        return [table for mode, rows in by_mode.items() for table in self.summarize(rows, mode)]

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        """Why this row's verdict differs between the values of the ``scoring`` option (``rescore --diff``)."""
        return ""

    # --- extension points of the generic layers (all optional; the defaults add nothing) -------------------

    def cli(self, groups: Any) -> None:
        """Add this benchmark's own commands to ``groups`` (``reasoneval.cli.common.CommandGroups``): ``root``
        (``reasoneval CMD``), ``generate`` (``reasoneval generate NAME``, one per generator) and ``build``
        (``reasoneval build STEP``), each a ``typer.Typer``. Shared options (``--store``, ``--json``, ``-O``) are
        in ``reasoneval.cli.common``."""
        return None

    def paper_tables(self, views: list[Any]) -> list[Table]:
        """Tables that span several runs of this benchmark (``views``: the report's ``RunView`` of each run of
        it, in order), printed after the per-run tables, e.g. the paper's layout beside its published numbers."""
        return []

    def with_paper(self, table: Table, runs: Sequence[Mapping[str, Any]]) -> Table:
        """``table`` (one of this benchmark's summary tables as a report shows it, its rows from several runs:
        ``runs[i]`` is the stored run record of ``table.rows[i]``, with ``model``, ``mode``, ``subset`` and
        ``spec``) with the published values on its cells (:meth:`Cell.compared`) and notes saying what was
        compared with which paper row, or why not. The HTML report shows such a cell as "paper X Δ Y".
        Default: the table unchanged."""
        return table

    def item_group(self, item_key: str, detail: Mapping[str, Any], item: Item | None) -> str | None:
        """The group of an item (a rule, a category) shown in the HTML report's item browser, whose filter
        selects by it: from its key, its final verdict's ``detail`` or the item (None when the report could not
        load the data). Default: none."""
        return None

    def dataset_tables(self, data: str | None, outputs: Path | None) -> list[Table] | None:
        """``reasoneval stats NAME``: statistics of the release itself (``data``: another copy of it; ``outputs``:
        a folder of the paper's raw outputs, where a table needs them). None: the generic tables."""
        return None

    def figures(self, views: list[Any]) -> list[Any]:
        """The paper's figures for this benchmark's runs (``report.plots.Plot`` objects), shown in HTML reports."""
        return []

    def build_steps(self) -> None:
        """Import the modules that define this benchmark's ``reasoneval build`` steps (each registers itself with
        ``builder.steps.step``)."""
        return None

    def releases(self) -> Mapping[str, Any]:
        """The Hub releases this benchmark reads (name -> ``hub.releases.ReleaseSpec``), for ``reasoneval data``."""
        return {}

    # ---------------------------------------------------------------- RL training rewards

    def rewards(self) -> Mapping[str, Callable[..., Any]]:
        """Reward functions for RL training on this benchmark's data (``reasoneval.rewards``). By name: TRL's
        ``f(prompts, completions, **columns) -> list[float]``, importable as ``reasoneval.rewards.<name>``;
        ``"verl.compute_score"``: verl's ``(data_source, solution_str, ground_truth, extra_info) -> float`` for
        rows whose ``data_source`` is this benchmark's name; ``"verl.verl_row"``: ``(row, index, split) -> dict``,
        an exported row whose ``source`` is this benchmark's name in verl's schema. Default: none."""
        return {}


def hook(target: str) -> Any:
    """An extension point implemented by a function of another module, imported on its first call so that
    loading the benchmark stays cheap: ``figures = hook(".figures:my_figures")`` in the class body calls
    ``my_figures(views)`` with the hook's arguments (no ``self``); a target without ``:function``
    (``build_steps = hook(".build_mine")``) only imports the module and returns None. A relative module is in
    the benchmark's package."""
    return _Hook(target)


class _Hook:
    __slots__ = ("target", "package")

    def __init__(self, target: str) -> None:
        self.target = target
        self.package = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.package = owner.__module__.rpartition(".")[0]

    def __call__(self, *args: Any) -> Any:
        module, _, function = self.target.partition(":")
        mod = importlib.import_module(module, self.package or None)
        return getattr(mod, function)(*args) if function else None

    def __repr__(self) -> str:
        return f"hook({self.target!r})"


class BatchScorer(ABC):
    """Scores a batch of outside completions: ``submit`` starts one verdict and returns the function that
    finishes it; the runner submits every row before finishing any, then calls ``close``."""

    @abstractmethod
    def submit(self, item: Item, response: Response, mode: str) -> Callable[[], Verdict]: ...

    def close(self) -> None:
        return None


def decided(v: Verdict) -> bool | None:
    """Correct or not; None for an error or an answer still waiting for a judge."""
    if v.outcome is Outcome.ERROR or v.method in (Method.JUDGE_MISSING, Method.JUDGE_UNPARSEABLE):
        return None
    return v.correct


@dataclass
class OutsideRow:
    """One completion made elsewhere, as a benchmark's adapter reads it."""

    item: Item
    mode: str
    completion: Completion  # the final turn
    where: str = ""  # file:line, for messages
    sample: int = 0
    source: str = ""  # where the completion came from (e.g. the model named in the file name), for tables
    earlier: list[Completion] = field(default_factory=list)  # earlier turns of a multi-turn protocol, in order
    prompt: Prompt | None = None  # the prompt the outside files record for the final turn, if any (``import``)
    #: the outside harness's protocol when the prompt it sent is not the one ``Benchmark.prompt`` builds (e.g.
    #: ``imported: lm-eval task mybench_logic``); empty: the benchmark's own prompt, or not known
    protocol: str = ""
