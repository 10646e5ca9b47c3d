"""How one FineReason answer becomes a verdict under ``-O scoring``: the three scoring policies (state
checking, state transition, end-to-end solving) and the harness verdict built from their reading.

Each policy reads the answer both ways, officially (``score_official.py``, ``score_official_e2e.py``: the
official ``get_answer`` / ``is_next_state`` of the raw output, ``<think>`` sections included) and corrected
(``tasks.py``), returns the chosen reading and keeps the other one's label and verdict in
``detail["other_scoring"]`` / ``["other_correct"]`` (``["other_error"]`` for ST and end-to-end) so the two
can be diffed (``scoring_diff_table``, ``rescore --diff``) without re-asking.

``Verdict.detail`` carries ``puzzle``, ``gold`` (the label, the reference next state or a reference
solution), ``error_type`` (one of ``tasks.ERROR_TYPES`` or None) and, but for end-to-end, ``depth`` (moves
from the root) and ``status`` (the state's label); Sudoku states add ``empty_cells`` (paper Fig. 5).

The official readers are imported on first use, so loading the plugin stays light.
"""

from __future__ import annotations

from ...core.values import Item, Outcome, Verdict
from . import tasks
from .items import sudoku_empty_cells
from .modes import E2E, SC, ST, TASK_OF


def reads_officially(scoring: str, puzzle: str, mode: str) -> bool:
    """Whether this item's verdict is the official reading (``scoring=official``; a puzzle without an
    official state-transition reader would be scored by the corrected one)."""
    from .score_official import OFFICIAL_ST_PUZZLES

    return scoring == "official" and (mode != ST or puzzle in OFFICIAL_ST_PUZZLES)


def state_checking_policy(scoring: str, puzzle: str, corrected: tasks.Verdict, raw: str) -> tasks.Verdict:
    """State checking: the official reading is of ``raw``, the output as the model returned it (reasoning
    sections not removed)."""
    from .score_official import extract_sc_official

    official_label, official_method = extract_sc_official(raw, puzzle)
    gold = corrected.detail.get("gold")
    if scoring == "official":
        return tasks.Verdict(official_label == gold, official_label, official_method,
                             {**corrected.detail, "other_scoring": corrected.extracted,
                              "other_correct": corrected.correct})
    return tasks.Verdict(corrected.correct, corrected.extracted, corrected.method,
                         {**corrected.detail, "other_scoring": official_label,
                          "other_correct": official_label == gold})


def state_transition_policy(scoring: str, puzzle: str, item: Item, corrected: tasks.Verdict, raw: str
                            ) -> tasks.Verdict:
    """State transition: the official reading is ``score_official.score_st_official`` of the raw output. The
    chosen verdict's ``official_error`` is the official label of the official reading."""
    from .score_official import score_st_official

    official = score_st_official(puzzle, item.data, raw)
    if official is None:
        return corrected
    official_error = official.detail.get("official_error")
    if scoring == "official":
        return tasks.Verdict(official.correct, official.extracted, official.method,
                             {**official.detail, "other_scoring": corrected.extracted,
                              "other_correct": corrected.correct, "other_error": corrected.error})
    detail = {key: value for key, value in corrected.detail.items() if key != "official_error"}
    if official_error is not None:
        detail["official_error"] = official_error
    return tasks.Verdict(corrected.correct, corrected.extracted, corrected.method,
                         {**detail, "other_scoring": official.extracted, "other_correct": official.correct,
                          "other_error": official.error})


def end_to_end_policy(scoring: str, puzzle: str, item: Item, corrected: tasks.Verdict, raw: str
                      ) -> tasks.Verdict:
    """End-to-end solving: as :func:`state_transition_policy`, the official reading being
    ``score_official_e2e.score_e2e_official`` of the raw output."""
    from .score_official_e2e import score_e2e_official

    official = score_e2e_official(puzzle, item.data, raw)
    if scoring == "official":
        return tasks.Verdict(official.correct, official.extracted, official.method,
                             {**official.detail, "other_scoring": corrected.extracted,
                              "other_correct": corrected.correct, "other_error": corrected.error})
    detail = dict(corrected.detail)
    if "official_error" in official.detail:
        detail["official_error"] = official.detail["official_error"]
    return tasks.Verdict(corrected.correct, corrected.extracted, corrected.method,
                         {**detail, "other_scoring": official.extracted, "other_correct": official.correct,
                          "other_error": official.error})


def judge(item: Item, text: str, mode: str, raw: str, cut_off: bool, scoring: str, strict: bool) -> Verdict:
    """The verdict on one answer: ``text`` is the final answer (reasoning removed), ``raw`` the output as
    returned, ``cut_off`` whether it was cut off; ``strict``: the strict state-transition scorer."""
    puzzle = item.subset
    kwargs = {"strict": strict} if mode == ST else {}
    reading = tasks.score(puzzle, TASK_OF[mode], item.data, text, **kwargs)
    if mode == SC:
        reading = state_checking_policy(scoring, puzzle, reading, raw)
    elif mode == ST:
        reading = state_transition_policy(scoring, puzzle, item, reading, raw)
    else:
        reading = end_to_end_policy(scoring, puzzle, item, reading, raw)
    detail = dict(reading.detail)
    error_type = detail.pop("error", None)
    if mode == SC and reading.extracted is None:
        error_type = tasks.PARSE_ERROR
    if mode == E2E and error_type is None and str(detail.get("reason", "")).startswith("unparsable"):
        error_type = tasks.PARSE_ERROR  # Game of 24: the text after "Solution:" is no expression
    if reading.correct:
        outcome = Outcome.CORRECT
    elif error_type == tasks.PARSE_ERROR:
        outcome = Outcome.UNANSWERABLE
    else:
        outcome = Outcome.INCORRECT
    detail.update(puzzle=puzzle, gold=item.gold, error_type=error_type)
    if reads_officially(scoring, puzzle, mode):
        detail.update(reads_cut_output=True, cut_off=cut_off)
    if mode != E2E:
        detail["depth"] = item.data.get("depth")
        detail["status"] = item.data["outputs"].get("current_status")
        if puzzle == "sudoku":  # paper Fig. 5: accuracy against the state's empty cells
            detail["empty_cells"] = sudoku_empty_cells(item.data)
    return Verdict(outcome, reading.extracted, reading.method, detail)
