"""The registered FineReason :class:`~reasoneval.core.benchmark.Benchmark`.

Subsets are the four puzzles (``sudoku``, ``graphcoloring``, ``game24``, ``gridpuzzle``); modes are the
paper's three protocols:

=====================  ==============================  ======================================================
mode                   items (per puzzle)              correct when
=====================  ==============================  ======================================================
``state-checking``     the 500 released states         the last ``(A)``/``(B)`` (fallback: text after
(default)              (``<puzzle>_states.json``)      ``Answer:``) equals ``outputs.current_status``
``state-transition``   the same 500 states             the state after the last ``Next state:`` is a valid
                                                       unexplored child (solvable state) or the parent
                                                       (unsolvable state); error taxonomy in ``detail``
``end-to-end``         the released questions          the ``Solution:`` is a valid solution (validator)
                       (``<puzzle>_questions.json``)
=====================  ==============================  ======================================================

Item ids are the 0-based record index in the data file (stable). Prompts are the official templates
(``prompts.py``; one user message, no system prompt); answers are read as the official code reads them
(``score_official.py``, ``score_official_e2e.py``; ``-O scoring=official``, the default) or by the corrected
scorer (``tasks.py``, ``-O scoring=corrected``), the other reading kept beside it (``policies.py``, which
also lists what ``Verdict.detail`` carries).

This class only wires the plugin hooks to the modules that hold the work: ``modes`` (mode names),
``items`` (data files, records -> items, golds), ``policies`` (verdicts), ``tables`` (``summarize``),
``versions`` (data and prompt versions) and ``outside`` (the ``rescore`` adapter).

``reasoneval run finereason --data DIR`` (option ``data``, :class:`.options.FROptions`) points at a folder with files named
like the release (``<puzzle>_states.json`` / ``<puzzle>_questions.json``, e.g. written by
``reasoneval finereason generate``) to evaluate instead of the released data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from reasoneval.hub.releases import ReleaseSpec

from ...core.benchmark import Benchmark, OutsideRow, ScoredRow, Table
from ...core.errors import DataError
from ...core.options import BenchOptions
from ...core.registry import register
from ...core.response import Response
from ...core.values import GenParams, Item, Prompt, Verdict
from . import outside, policies, tables, tasks, versions
from .data import DATA_DIR
from .engines import PUZZLES
from .items import data_file, read_items
from .modes import E2E, MODES, SC, TASK_OF
from .options import FROptions, stored_options
from .prompts import PromptOptions
from .settings import SETTINGS


@register("finereason")
class FineReason(Benchmark):
    name = "finereason"
    settings = SETTINGS
    description = ("FineReason: reflective puzzle solving - state checking, state transition and end-to-end "
                   "solving on Sudoku, Graph Coloring, Game of 24 and Logic Grid Puzzles (ACL 2025)")
    default_mode = SC
    # The official vLLM runs used --max_output_length 2048 (README; the code default 512 truncates most
    # state-transition answers); API models ran at the provider's default sampling: temperature None.
    default_params = GenParams(max_tokens=2048, temperature=None)

    Options = FROptions

    def __init__(self, prompt_options: PromptOptions | None = None, strict: bool = False) -> None:
        """``prompt_options``: the defect fixes of ``prompts.PromptOptions`` (default: the official prompts);
        ``strict``: the strict state-transition scorer (default: the official criterion)."""
        if prompt_options is not None or strict:
            fixes = prompt_options or PromptOptions()
            self.configure(FROptions(true_ancestor_labels=fixes.true_ancestor_labels,
                                     stale_child=fixes.stale_child, strict=strict))
        self._items: dict[tuple[str, str, str], list[Item]] = {}
        self._version: dict[str, str] = {}

    # -- catalogue ----------------------------------------------------------------------------------
    def subsets(self) -> list[str]:
        return list(PUZZLES)

    def modes(self) -> list[str]:
        return list(MODES)

    def configure(self, options: BenchOptions | Mapping[str, Any]) -> None:
        """As ``Benchmark.configure``; a mapping that holds every option but ``scoring`` is a run record
        stored before that option existed, whose answers were read the corrected way (``stored_options``)."""
        super().configure(options if isinstance(options, BenchOptions) else stored_options(options))

    @property
    def opts(self) -> FROptions:
        options = self.options
        assert isinstance(options, FROptions)
        return options

    @property
    def prompt_options(self) -> PromptOptions:
        """The prompt fixes of the options; ``scoring=official`` also renders a null grandparent (generated
        depth-1 states) as the official templates do (``S(i-2) = None``)."""
        return PromptOptions(true_ancestor_labels=self.opts.true_ancestor_labels, stale_child=self.opts.stale_child,
                             missing_grandparent="official" if self.opts.scoring == "official" else "omit")

    @property
    def strict(self) -> bool:
        return self.opts.strict

    def data_dir(self) -> Path:
        return Path(self.opts.data) if self.opts.data else DATA_DIR

    def load(self, subset: str, mode: str) -> list[Item]:
        if subset not in PUZZLES:
            raise KeyError(f"unknown finereason subset {subset!r}; known: {', '.join(PUZZLES)}")
        if mode not in MODES:
            raise KeyError(f"unknown finereason mode {mode!r}; known: {', '.join(MODES)}")
        path = data_file(self.data_dir(), subset, mode)
        key = (str(path), subset, mode)
        if key not in self._items:
            self._items[key] = read_items(path, subset, mode)
        return list(self._items[key])

    # -- prompting and scoring ----------------------------------------------------------------------
    def stratum(self, item: Item, mode: str) -> str:
        """``--limit``: keep the Solvable/Unsolvable share of the states (end-to-end questions: one group)."""
        if mode == E2E:
            return ""
        return str(item.data.get("outputs", {}).get("current_status") or item.gold)

    def prompt(self, item: Item, mode: str) -> Prompt:
        return Prompt.chat(tasks.build_prompt(item.subset, TASK_OF[mode], item.data, self.prompt_options))

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        return policies.judge(item, text, mode, text, False, self.opts.scoring, self.strict)

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        """As ``score`` on the final text, except that the official readings get the raw output, ``<think>``
        sections included, and read it even when it was cut off (an unclosed ``<think>``, the token limit):
        the official ``get_answer`` strips nothing and knows no truncation. Such a verdict carries
        ``detail["reads_cut_output"]`` (the runner then keeps it) and ``detail["cut_off"]``."""
        return policies.judge(item, response.final, mode, response.raw, response.truncated, self.opts.scoring,
                              self.strict)

    def reads_officially(self, puzzle: str, mode: str) -> bool:
        """Whether this item's verdict is the official reading (``policies.reads_officially``)."""
        return policies.reads_officially(self.opts.scoring, puzzle, mode)

    def cli(self, groups: Any) -> None:
        from .cli import add_commands

        add_commands(groups)

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        """The cause of the disagreement between the two readings of this answer (``rescore --diff``)."""
        return outside.diff_reason(row, final_text, self.strict)

    # -- summaries ----------------------------------------------------------------------------------
    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

    def paper_tables(self, views: list[Any]) -> list[Table]:
        from .paper_tables import finereason_table3

        table3 = finereason_table3(views)
        return [] if table3 is None else [table3]

    def figures(self, views: list[Any]) -> list[Any]:
        from .figures import finereason_figures

        return finereason_figures(views)

    def rewards(self) -> Mapping[str, Any]:
        from .rewards import REWARDS

        return REWARDS

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        return tables.summary_tables(rows, mode, self.opts.scoring)

    # -- versions -----------------------------------------------------------------------------------
    def data_version(self) -> str:
        folder = self.data_dir()
        key = str(folder)
        if key not in self._version:
            self._version[key] = versions.data_version(folder)
        return self._version[key]

    def prompt_version(self, mode: str) -> str:
        return versions.prompt_version(mode, self.prompt_options)

    # -- re-scoring completions made elsewhere ------------------------------------------------------
    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """JSONL rows in the release schema plus a ``response`` field (``reasoneval rescore``;
        ``outside.outside_rows`` says how a row's task, puzzle and id are told)."""
        return outside.outside_rows(paths, options)

    def outside_json(self, row: OutsideRow, verdict: Verdict) -> dict[str, Any]:
        return outside.outside_json(row, verdict)
