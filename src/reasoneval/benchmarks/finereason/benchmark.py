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
scorer (``tasks.py``, ``-O scoring=corrected``), the other reading kept beside it. ``Verdict.detail`` carries
``puzzle``, ``gold`` (the label, the reference next state or a reference solution), ``error_type`` (one of
``tasks.ERROR_TYPES`` or None) and ``depth`` (moves from the root; not for end-to-end).

``reasoneval run finereason --data DIR`` (option ``data``, :class:`.options.FROptions`) points at a folder with files named
like the release (``<puzzle>_states.json`` / ``<puzzle>_questions.json``, e.g. written by
``reasoneval finereason generate``) to evaluate instead of the released data.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from reasoneval.hub.releases import ReleaseSpec

from ...core.benchmark import Benchmark, OutsideRow, ScoredRow, Table
from ...core.errors import DataError, OptionError
from ...core.hashing import hash_files, sha256_text
from ...core.jsonl import iter_jsonl_tolerant
from ...core.options import BenchOptions
from ...core.registry import register
from ...core.response import Response
from ...core.types import Completion, GenParams, Item, Outcome, Prompt, Verdict
from ...core.verdicts import Method
from . import prompts as P
from . import tasks
from .baselines import COLUMNS as BASELINE_COLUMNS
from .baselines import NOTE as BASELINE_NOTE
from .baselines import label_baseline
from .data import DATA_DIR, LABELS, QUESTION_INPUTS, STATE_INPUTS, load_questions, load_states
from .empty_cells import empty_cells_table
from .engines import PUZZLES
from .engines.game24 import Game24Engine
from .engines.graphcoloring import GraphColoringEngine
from .options import FROptions, stored_options
from .settings import SETTINGS

SC, ST, E2E = "state-checking", "state-transition", "end-to-end"
MODES = (SC, ST, E2E)
TASK_OF = {SC: "state_checking", ST: "state_transition", E2E: "e2e"}  # harness mode -> tasks.py task
MODE_ALIASES = {
    SC: SC, "state_checking": SC, "sc": SC, "checking": SC,
    ST: ST, "state_transition": ST, "st": ST, "transition": ST,
    E2E: E2E, "e2e": E2E, "end_to_end": E2E, "endtoend": E2E, "solve": E2E, "solving": E2E,
}
_TRUNCATED = Method.TRUNCATED


def normalize_mode(name: str) -> str:
    """``state_checking`` / ``sc`` / ``state-checking`` ... -> the harness mode name; ValueError otherwise."""
    key = str(name).strip().lower().replace(" ", "-")
    mode = MODE_ALIASES.get(key) or MODE_ALIASES.get(key.replace("-", "_"))
    if mode is None:
        raise ValueError(f"unknown FineReason task {name!r}; expected one of {', '.join(MODES)} "
                         f"(or {', '.join(TASK_OF.values())})")
    return mode


def depth_of(puzzle: str, inputs: dict[str, Any]) -> int | None:
    """Moves from the tree root to ``inputs['current']`` (None when it cannot be told)."""
    try:
        cur = inputs["current"]
        if puzzle == "sudoku":
            filled = sum(1 for row in cur for v in row if v)
            return filled - sum(1 for row in inputs["initial"] for v in row if v)
        if puzzle == "graphcoloring":  # the root has vertex 0 coloured (symmetry breaking)
            return sum(1 for v in cur if v) - 1
        if puzzle == "game24":
            return len(inputs["initial_state"]) - len(cur)
        if puzzle == "gridpuzzle":
            return len(inputs["applied_clues"])
    except (KeyError, TypeError):
        return None
    return None


def _reference_solution(puzzle: str, rec: dict[str, Any]) -> Any:
    """A gold answer for an end-to-end item: the released solution (Sudoku, Grid) or one valid solution found
    by the exact solver (Graph Coloring, Game of 24: any valid answer is accepted)."""
    out = rec.get("outputs") or {}
    if puzzle == "sudoku" and out.get("final") is not None:
        return out["final"]
    if puzzle == "gridpuzzle" and out.get("solution") is not None:
        return out["solution"]
    try:
        eng = tasks.engine_for(puzzle, rec)
        if isinstance(eng, GraphColoringEngine):
            col = eng.find_coloring()
            return None if col is None else list(col)
        if isinstance(eng, Game24Engine):
            expr = eng.solution()
            return None if expr is None else f"{expr.render()} = 24"
        sol = eng.solution() if hasattr(eng, "solution") else None  # type: ignore[attr-defined]
        return None if sol is None else eng.to_json(sol)
    except (ValueError, TypeError, KeyError):
        return None


def _gold(puzzle: str, mode: str, rec: dict[str, Any]) -> Any:
    if mode == SC:
        return rec["outputs"]["current_status"]
    if mode == ST:  # the parent at an unsolvable state, else the first solvable unexplored child (DFS order)
        from .export import target_state

        try:
            return target_state(puzzle, rec)
        except (ValueError, TypeError, KeyError):
            return None
    return _reference_solution(puzzle, rec)


def make_item(puzzle: str, mode: str, ident: str, rec: dict[str, Any]) -> Item:
    """An Item for one release record (a state record for SC/ST, a question record for end-to-end).

    ``item.data`` is the record (``inputs``/``outputs``) plus ``puzzle``, ``task`` (the mode) and ``depth``,
    so it can be handed to the ``tasks.py`` scorers as it is.
    """
    inputs = rec["inputs"]
    data: dict[str, Any] = {"inputs": inputs, "outputs": rec.get("outputs") or {}, "puzzle": puzzle,
                            "task": mode, "depth": None if mode == E2E else depth_of(puzzle, inputs)}
    return Item("finereason", puzzle, ident, data, _gold(puzzle, mode, data))


def _puzzle_order(name: str) -> tuple[int, str]:
    return (PUZZLES.index(name) if name in PUZZLES else len(PUZZLES), name)


def _pct(num: float, den: float) -> float | None:
    return round(100.0 * num / den, 2) if den else None




def sudoku_empty_cells(data: Mapping[str, Any]) -> int | None:
    """Empty cells (0) of a Sudoku state's current grid; None when the record has no 9x9 grid."""
    grid = (data.get("inputs") or {}).get("current") if isinstance(data.get("inputs"), dict) else None
    if not isinstance(grid, list) or not all(isinstance(r, list) for r in grid):
        return None
    return sum(1 for r in grid for x in r if x == 0 or x == "0")


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

    def __init__(self, prompt_options: P.PromptOptions | None = None, strict: bool = False) -> None:
        """``prompt_options``: the defect fixes of ``prompts.PromptOptions`` (default: the official prompts);
        ``strict``: the strict state-transition scorer (default: the official criterion)."""
        if prompt_options is not None or strict:
            po = prompt_options or P.PromptOptions()
            self.configure(FROptions(true_ancestor_labels=po.true_ancestor_labels, stale_child=po.stale_child,
                                     strict=strict))
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
        o = self.options
        assert isinstance(o, FROptions)
        return o

    @property
    def prompt_options(self) -> P.PromptOptions:
        """The prompt fixes of the options; ``scoring=official`` also renders a null grandparent (generated
        depth-1 states) as the official templates do (``S(i-2) = None``)."""
        return P.PromptOptions(true_ancestor_labels=self.opts.true_ancestor_labels, stale_child=self.opts.stale_child,
                               missing_grandparent="official" if self.opts.scoring == "official" else "omit")

    @property
    def strict(self) -> bool:
        return self.opts.strict

    def data_dir(self) -> Path:
        return Path(self.opts.data) if self.opts.data else DATA_DIR

    def _file(self, puzzle: str, mode: str) -> Path:
        """The data file of ``puzzle`` in ``mode``: ``--data FILE`` itself, or the release-named file in the
        ``--data`` folder (default: the shipped release)."""
        d = self.data_dir()
        if d.is_file():  # one file (e.g. from `reasoneval generate finereason --questions`): this puzzle's data
            return d
        if not d.is_dir():
            raise FileNotFoundError(f"{d}: not a folder (FineReason data: <puzzle>_states.json / "
                                    f"<puzzle>_questions.json)")
        p = d / f"{puzzle}_{'questions' if mode == E2E else 'states'}.json"
        if not p.is_file():
            raise FileNotFoundError(f"{p}: no such file")
        return p

    def load(self, subset: str, mode: str) -> list[Item]:
        if subset not in PUZZLES:
            raise KeyError(f"unknown finereason subset {subset!r}; known: {', '.join(PUZZLES)}")
        if mode not in MODES:
            raise KeyError(f"unknown finereason mode {mode!r}; known: {', '.join(MODES)}")
        path = self._file(subset, mode)
        key = (str(path), subset, mode)
        if key not in self._items:
            recs = load_questions(subset, path) if mode == E2E else load_states(subset, path)
            self._items[key] = [make_item(subset, mode, str(i), r) for i, r in enumerate(recs)]
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
        return self._score(item, text, mode, text, False)

    def score_response(self, item: Item, response: Response, mode: str) -> Verdict:
        """As ``score`` on the final text, except that the official readings get the raw output, ``<think>``
        sections included, and read it even when it was cut off (an unclosed ``<think>``, the token limit):
        the official ``get_answer`` strips nothing and knows no truncation. Such a verdict carries
        ``detail["reads_cut_output"]`` (the runner then keeps it) and ``detail["cut_off"]``."""
        return self._score(item, response.final, mode, response.raw, response.truncated)

    def reads_officially(self, puzzle: str, mode: str) -> bool:
        """Whether this item's verdict is the official reading (``scoring=official``; a puzzle without an
        official state-transition reader would be scored by the corrected one)."""
        from .score_official import OFFICIAL_ST_PUZZLES

        return self.opts.scoring == "official" and (mode != ST or puzzle in OFFICIAL_ST_PUZZLES)

    def _score(self, item: Item, text: str, mode: str, raw: str, cut_off: bool) -> Verdict:
        puzzle = item.subset
        task = TASK_OF[mode]
        kwargs = {"strict": self.strict} if mode == ST else {}
        v = tasks.score(puzzle, task, item.data, text, **kwargs)
        if mode == SC:
            v = self._sc_policy(puzzle, v, raw)
        elif mode == ST:
            v = self._st_policy(puzzle, item, v, raw)
        else:
            v = self._e2e_policy(puzzle, item, v, raw)
        detail = dict(v.detail)
        error_type = detail.pop("error", None)
        if mode == SC and v.extracted is None:
            error_type = tasks.PARSE_ERROR
        if mode == E2E and error_type is None and str(detail.get("reason", "")).startswith("unparsable"):
            error_type = tasks.PARSE_ERROR  # Game of 24: the text after "Solution:" is no expression
        if v.correct:
            outcome = Outcome.CORRECT
        elif error_type == tasks.PARSE_ERROR:
            outcome = Outcome.UNANSWERABLE
        else:
            outcome = Outcome.INCORRECT
        detail.update(puzzle=puzzle, gold=item.gold, error_type=error_type)
        if self.reads_officially(puzzle, mode):
            detail.update(reads_cut_output=True, cut_off=cut_off)
        if mode != E2E:
            detail["depth"] = item.data.get("depth")
            detail["status"] = item.data["outputs"].get("current_status")
            if puzzle == "sudoku":  # paper Fig. 5: accuracy against the state's empty cells
                detail["empty_cells"] = sudoku_empty_cells(item.data)
        return Verdict(outcome, v.extracted, v.method, detail)

    def _sc_policy(self, puzzle: str, v: tasks.Verdict, raw: str) -> tasks.Verdict:
        """State checking under ``-O scoring``: the chosen reading, with the other one's label and verdict
        kept in ``detail["other_scoring"]`` / ``["other_correct"]`` so the two can be diffed
        (``scoring_diff_table``, ``rescore --diff``) without re-asking. The official reading is of ``raw``,
        the output as the model returned it (reasoning sections not removed)."""
        from .score_official import extract_sc_official

        off, off_method = extract_sc_official(raw, puzzle)
        gold = v.detail.get("gold")
        if self.opts.scoring == "official":
            return tasks.Verdict(off == gold, off, off_method,
                                 {**v.detail, "other_scoring": v.extracted, "other_correct": v.correct})
        return tasks.Verdict(v.correct, v.extracted, v.method,
                             {**v.detail, "other_scoring": off, "other_correct": off == gold})

    def _st_policy(self, puzzle: str, item: Item, v: tasks.Verdict, raw: str) -> tasks.Verdict:
        """State transition under ``-O scoring``: as ``_sc_policy``, the official reading being
        ``score_official.score_st_official`` of the raw output. The chosen verdict's ``official_error`` is
        the official label of the official reading."""
        from .score_official import score_st_official

        off = score_st_official(puzzle, item.data, raw)
        if off is None:
            return v
        official_error = off.detail.get("official_error")
        if self.opts.scoring == "official":
            return tasks.Verdict(off.correct, off.extracted, off.method,
                                 {**off.detail, "other_scoring": v.extracted, "other_correct": v.correct,
                                  "other_error": v.error})
        detail = {k: x for k, x in v.detail.items() if k != "official_error"}
        if official_error is not None:
            detail["official_error"] = official_error
        return tasks.Verdict(v.correct, v.extracted, v.method,
                             {**detail, "other_scoring": off.extracted, "other_correct": off.correct,
                              "other_error": off.error})

    def _e2e_policy(self, puzzle: str, item: Item, v: tasks.Verdict, raw: str) -> tasks.Verdict:
        """End-to-end solving under ``-O scoring``: as ``_st_policy``, the official reading being
        ``score_official_e2e.score_e2e_official`` of the raw output."""
        from .score_official_e2e import score_e2e_official

        off = score_e2e_official(puzzle, item.data, raw)
        if self.opts.scoring == "official":
            return tasks.Verdict(off.correct, off.extracted, off.method,
                                 {**off.detail, "other_scoring": v.extracted, "other_correct": v.correct,
                                  "other_error": v.error})
        detail = dict(v.detail)
        if "official_error" in off.detail:
            detail["official_error"] = off.detail["official_error"]
        return tasks.Verdict(v.correct, v.extracted, v.method,
                             {**detail, "other_scoring": off.extracted, "other_correct": off.correct,
                              "other_error": off.error})

    def cli(self, groups: Any) -> None:
        from .cli import add_commands

        add_commands(groups)

    def diff_reason(self, row: OutsideRow, final_text: str) -> str:
        """The cause of the disagreement between the two readings of this answer (``rescore --diff``;
        ``diff_cause``)."""
        from .diff_cause import diff_cause

        c = row.completion
        cut_off = Response.of(c.text, c.finish_reason, c.reasoning).truncated
        return diff_cause(row.item.subset, row.mode, row.item.data, c.text or "", final_text, cut_off, self.strict)

    # -- summaries ----------------------------------------------------------------------------------
    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

    def paper_tables(self, views: list[Any]) -> list[Table]:
        from .paper_tables import finereason_table3

        t = finereason_table3(views)
        return [] if t is None else [t]

    def figures(self, views: list[Any]) -> list[Any]:
        from .figures import finereason_figures

        return finereason_figures(views)

    def rewards(self) -> Mapping[str, Any]:
        from .rewards import REWARDS

        return REWARDS

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        by: dict[str, list[Verdict | None]] = defaultdict(list)
        for r in rows:
            by[r.subset].append(r.final.verdict)
        puzzles = sorted(by, key=_puzzle_order)
        groups: list[tuple[str, list[Verdict | None]]] = [(p, by[p]) for p in puzzles]
        if len(puzzles) > 1:
            groups.append(("overall", [v for p in puzzles for v in by[p]]))
        title = f"finereason ({mode})"
        if mode == SC:
            from .score_official import scoring_diff_table

            tables = [self._sc_table(title, groups)]
            diff = scoring_diff_table(f"{title} official vs corrected extraction", groups, self.opts.scoring)
            if diff is not None:
                tables.append(diff)
            fig5 = empty_cells_table(by.get("sudoku", []), f"{title} Sudoku accuracy by empty cells (Fig. 5)")
            if fig5 is not None:
                tables.append(fig5)
        elif mode == ST:
            from .score_official import scoring_diff_table

            tables = [self._st_table(title, groups), self._error_table(f"{title} error types", groups)]
            diff = scoring_diff_table(f"{title} official vs corrected scoring", groups, self.opts.scoring)
            if diff is not None:
                tables.append(diff)
        else:
            from .score_official import scoring_diff_table

            tables = [self._e2e_table(title, groups)]
            diff = scoring_diff_table(f"{title} official vs corrected scoring", groups, self.opts.scoring)
            if diff is not None:
                tables.append(diff)
        if mode != E2E:
            tables.append(self._depth_table(f"{title} accuracy by depth", puzzles, by))
        return tables

    @staticmethod
    def _counts(vs: Sequence[Verdict | None]) -> tuple[int, int, int, int]:
        """(items, correct, unextractable, failed calls)."""
        n = len(vs)
        correct = sum(1 for v in vs if v is not None and v.correct)
        unans = sum(1 for v in vs if v is not None and v.outcome is Outcome.UNANSWERABLE)
        errors = sum(1 for v in vs if v is not None and v.outcome is Outcome.ERROR)
        return n, correct, unans, errors

    def _sc_table(self, title: str, groups: list[tuple[str, list[Verdict | None]]]) -> Table:
        out = []
        for name, vs in groups:
            n, correct, unans, errors = self._counts(vs)
            golds, preds = [], []
            for v in vs:
                if v is None or v.outcome is Outcome.ERROR or v.detail.get("gold") not in LABELS:
                    continue
                golds.append(v.detail["gold"])
                ok = v.outcome in (Outcome.CORRECT, Outcome.INCORRECT) and v.extracted in LABELS
                preds.append(v.extracted if ok else None)
            m = tasks.state_checking_metrics(golds, preds)
            prec = round(100 * m.precision, 2) if m.tp + m.fp else None  # undefined: no positive prediction
            rec = round(100 * m.recall, 2) if m.tp + m.fn else None  # undefined: no unsolvable state
            f1 = round(100 * m.f1, 2) if prec is not None and rec is not None else None
            out.append([name, n, _pct(correct, n - errors), *label_baseline(golds).cells(), prec, rec, f1, unans,
                        errors])
        return Table(title, ["puzzle", "n", "accuracy", *BASELINE_COLUMNS, "precision", "recall", "f1",
                             "unextractable", "errors"],
                     out, [BASELINE_NOTE,
                           "precision / recall / F1 with Unsolvable as the positive class (paper Tables 4, 9); "
                           "an unextracted answer is wrong and never a positive prediction; empty where undefined",
                           "accuracy excludes failed model calls (errors); overall pools all items"])

    def _st_table(self, title: str, groups: list[tuple[str, list[Verdict | None]]]) -> Table:
        out = []
        for name, vs in groups:
            n, correct, unans, errors = self._counts(vs)
            per: dict[str, list[int]] = {lab: [0, 0] for lab in LABELS}
            for v in vs:
                if v is None or v.outcome is Outcome.ERROR:
                    continue
                st = v.detail.get("status")
                if st in per:
                    per[st][0] += int(v.correct)
                    per[st][1] += 1
            out.append([name, n, _pct(correct, n - errors), _pct(*per["Solvable"]), _pct(*per["Unsolvable"]),
                        unans, errors])
        return Table(title, ["puzzle", "n", "accuracy", "acc. solvable", "acc. unsolvable", "unextractable",
                             "errors"], out,
                     ["correct: a valid unexplored child at a solvable state, the parent at an unsolvable "
                      "state (ground-truth labels are given in the prompt; paper Fig. 4a splits by label)",
                      "random baseline: none is defined (a move is free text over an open move space; the paper "
                      "gives none for state transition)"])

    def _error_table(self, title: str, groups: list[tuple[str, list[Verdict | None]]]) -> Table:
        out = []
        for name, vs in groups:
            counts = dict.fromkeys(tasks.ERROR_TYPES, 0)
            wrong = truncated = 0
            for v in vs:
                if v is None or v.correct or v.outcome is Outcome.ERROR:
                    continue
                wrong += 1
                if v.method == _TRUNCATED:
                    truncated += 1
                    continue
                et = v.detail.get("error_type")
                if et in counts:
                    counts[et] += 1
            out.append([name, wrong, *counts.values(), truncated])
        return Table(title, ["puzzle", "wrong", *tasks.ERROR_TYPES, "truncated"], out,
                     ["wrong transitions by error type (paper Fig. 4b): Multiple Moves / Invalid Move / "
                      "Unsolvable Child at solvable states, Backtracking Failure / Sibling at unsolvable states",
                      "truncated: the output hit max_tokens (not classified)"])

    def _e2e_table(self, title: str, groups: list[tuple[str, list[Verdict | None]]]) -> Table:
        out = []
        for name, vs in groups:
            n, correct, unans, errors = self._counts(vs)
            out.append([name, n, _pct(correct, n - errors), unans, errors])
        return Table(title, ["puzzle", "n", "accuracy", "unextractable", "errors"], out,
                     ["paper Table 2 (o1): sudoku 0, graphcoloring 78.4, game24 54.1, gridpuzzle 45.7",
                      "random baseline: about 0 (a uniformly random full answer is almost never a solution)"])

    @staticmethod
    def _depth_table(title: str, puzzles: list[str], by: dict[str, list[Verdict | None]]) -> Table:
        out = []
        for p in puzzles:
            acc: dict[int, list[int]] = defaultdict(lambda: [0, 0])
            for v in by[p]:
                if v is None or v.outcome is Outcome.ERROR:
                    continue
                d = v.detail.get("depth")
                if isinstance(d, int) and not isinstance(d, bool):
                    acc[d][0] += int(v.correct)
                    acc[d][1] += 1
            for d in sorted(acc):
                ok, n = acc[d]
                out.append([p, d, n, _pct(ok, n)])
        return Table(title, ["puzzle", "depth", "n", "accuracy"], out,
                     ["depth: moves from the root (Sudoku: digits placed, Graph Coloring: vertices coloured "
                      "after vertex 0, Game of 24: operations applied, Grid: clues applied)"])

    # -- versions -----------------------------------------------------------------------------------
    def data_version(self) -> str:
        d = self.data_dir()
        key = str(d)
        if key not in self._version:
            files = [d] if d.is_file() else sorted(d.glob("*.json")) if d.is_dir() else []
            self._version[key] = hash_files(files) if files else "missing"
        return self._version[key]

    def prompt_version(self, mode: str) -> str:
        fns: list[Any] = [tasks.build_prompt, P._s]
        if mode == SC:
            fns += [*P.SC.values(), P._grid_history, P._clue_lines]
        elif mode == ST:
            fns += [P.sudoku_st, P.gc_st, P.g24_st, P.grid_st, P._grid_history, P._clue_lines, P._grandparent_shown]
        else:
            fns += [*P.E2E.values(), P._clue_lines]
        text = "\n".join(inspect.getsource(f) for f in fns)
        text += f"\n{mode}\n{P._GRID_INTRO}\n{P._GC_LABEL}\n{self.prompt_options}"
        return sha256_text(text)[:16]

    # -- re-scoring completions made elsewhere ------------------------------------------------------
    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """JSONL rows in the release schema plus a ``response`` field (``reasoneval rescore``).

        The task of a row: ``options["mode"]`` (or ``options["task"]``) if given, else the row's ``task`` /
        ``mode`` field, else the file name (``..._state_transition...``, ``..._e2e...``), else ``end-to-end``
        for a question record (no ``inputs.current``), else ``state-checking``. The puzzle: the row's
        ``puzzle`` field, else the file name (``<puzzle>_...``), else the shape of ``inputs``.
        """
        forced = options.get("mode") or options.get("task")
        try:
            forced_mode = normalize_mode(forced) if forced else None
        except ValueError as e:  # a wrong option, not a bad row
            raise OptionError(str(e)) from None
        files = list(_rescore_files(paths))
        if not files:
            yield DataError("no .jsonl/.json files found in " + ", ".join(paths))
            return
        for path in files:
            for ordinal, (line, rec) in enumerate(iter_jsonl_tolerant(path, DataError)):
                if isinstance(rec, DataError):
                    yield rec
                    continue
                where = f"{path}:{line}"
                try:
                    mode, item, response = self._row_item(path, ordinal, rec, forced_mode)
                except (ValueError, KeyError) as e:
                    yield DataError(f"{where}: {e}")
                    continue
                yield OutsideRow(item, mode, Completion(response), where)

    def outside_json(self, row: OutsideRow, verdict: Verdict) -> dict[str, Any]:
        return {"id": row.item.id, "puzzle": row.item.subset, "task": row.mode, "correct": verdict.correct,
                "extracted": verdict.extracted, "method": str(verdict.method),
                "error_type": verdict.detail.get("error_type")}

    def _row_item(self, path: Path, ordinal: int, rec: dict[str, Any], forced: str | None
                  ) -> tuple[str, Item, str]:
        inputs = rec.get("inputs")
        if not isinstance(inputs, dict):
            raise ValueError("row has no 'inputs' object")
        response = rec.get("response")
        if not isinstance(response, str):
            raise ValueError("row has no 'response' string")
        mode = forced
        if mode is None:
            tag = rec.get("task", rec.get("mode"))
            mode = normalize_mode(tag) if tag is not None else (_mode_from_name(path.name) or (
                SC if "current" in inputs else E2E))
        puzzle = rec.get("puzzle") or _puzzle_from_name(path.name) or _puzzle_from_inputs(inputs)
        if puzzle not in PUZZLES:
            raise ValueError(f"cannot tell the puzzle (got {puzzle!r}); add a 'puzzle' field "
                             f"({', '.join(PUZZLES)})")
        need = QUESTION_INPUTS[puzzle] if mode == E2E else STATE_INPUTS[puzzle]
        missing = [k for k in need if k not in inputs]
        if missing:
            raise ValueError(f"{puzzle} {mode} row: inputs lack {', '.join(missing)}")
        if mode != E2E:
            status = (rec.get("outputs") or {}).get("current_status")
            if status not in LABELS:
                raise ValueError(f"{mode} row: outputs.current_status is {status!r}, expected one of {LABELS}")
        ident = str(rec["id"]) if rec.get("id") is not None else str(ordinal)
        return mode, make_item(puzzle, mode, ident, rec), response


def _rescore_files(paths: Sequence[str]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".jsonl", ".json"))
        else:
            yield p


def _mode_from_name(name: str) -> str | None:
    n = name.lower().replace("-", "_")
    if "state_transition" in n:
        return ST
    if "state_checking" in n:
        return SC
    if "e2e" in n or "end_to_end" in n:
        return E2E
    return None


def _puzzle_from_name(name: str) -> str | None:
    n = name.lower()
    for p in PUZZLES:
        if n.startswith(p + "_") or n.startswith(p + "."):
            return p
    return None


def _puzzle_from_inputs(inputs: dict[str, Any]) -> str | None:
    if "clues" in inputs:
        return "gridpuzzle"
    if "graph" in inputs:
        return "graphcoloring"
    if "initial_state" in inputs:
        return "game24"
    if "initial" in inputs:
        return "sudoku"
    return None
