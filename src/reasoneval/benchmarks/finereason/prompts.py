"""The official FineReason prompts (paper Tables 13-17, taken verbatim from the official code).

Quirks kept on purpose (they are what the published numbers were measured with):
  * lines are joined with ``\\n``; states are rendered with Python's ``str()`` of the JSON value;
  * ``\\{grid\\}`` / ``\\{coloring\\}`` / ``\\{expressions\\}`` / ``\\{table\\}`` carry a literal backslash;
  * "corresonding" is misspelt in the Graph Coloring prompts;
  * ST prompts hard-code every ancestor label as Solvable/Colorable (release defect: wrong for the
    states whose parent is unsolvable) - ``PromptOptions.true_ancestor_labels`` fixes it;
  * 86 released Sudoku states show a stale, unrelated grid as their "explored next state" (release
    defect) - ``PromptOptions.stale_child="omit"`` drops that block instead.
Blocks for a missing grandparent (generated depth-1 states) are left out, as the official Game-of-24 prompt
does. ``PromptOptions.missing_grandparent="official"`` (set by ``-O scoring=official``) renders them as the
official code does instead: Sudoku and Graph Coloring print ``S(i-2) = None`` with ``L(i-2) = Solvable`` /
``Colorable`` (the official templates format the null grandparent unconditionally), and Game of 24 shows its
"One move ago" block when the grandparent is truthy (``if grandparent_state:``). No released Sudoku or Graph
Coloring state has a null grandparent, so this touches generated states only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

TASKS = ("state_checking", "state_transition", "e2e")


@dataclass(frozen=True)
class PromptOptions:
    true_ancestor_labels: bool = False  # False = official (always "Solvable"/"Colorable")
    stale_child: Literal["keep", "omit"] = "keep"  # what to do when the shown child is not a real child
    # a null grandparent (depth 1): "omit" its block, or "official": as the official templates render it
    missing_grandparent: Literal["omit", "official"] = "omit"


def _s(x: Any) -> str:
    return str(x)


def _grandparent_shown(inp: dict[str, Any], official: bool) -> bool:
    """Whether a Sudoku / Graph Coloring ST prompt has its "Two moves ago" block: always in the official code
    (a null grandparent prints as ``None``), else only for a real grandparent."""
    return official or inp.get("grandparent") is not None


# -- Sudoku -------------------------------------------------------------------------------------------
def sudoku_sc(inp: dict[str, Any], child: bool = True) -> str:
    lines = [
        "You are given a partially filled 9x9 Sudoku grid represented as a list of lists, where empty cells are represented as 0. Your task is to determine if this current state can lead to a solvable solution. Specifically, use lookahead techniques to determine if it's possible to fill the remaining cells according to standard Sudoku rules, ensuring that each row, column, and 3x3 subgrid contains unique numbers from 1 to 9.",
        "Additionally, you are provided with a previously explored next state that has been proven to be unsolvable. Use this information to avoid revisiting this failed path and leverage it to make a more informed decision about the current state.",
        "Current state:",
        _s(inp["current"]),
    ]
    if child:
        lines += ["Explored next state that leads to an unsolvable path:", _s(inp["unsolvable_child"])]
    lines += [
        "Let's think step by step, considering the failed state to avoid unnecessary exploration. Do not solve using programming.",
        'Choose from (A) Solvable (B) Unsolvable. End your answer with "Answer: (A)" or "Answer: (B)".',
    ]
    return "\n".join(lines)


def sudoku_st(inp: dict[str, Any], status: str, labels: dict[str, str], child: bool = True,
              official_grandparent: bool = False) -> str:
    lines = [
        "You are given an initial Sudoku puzzle S(0), followed by a sequence of progressive states leading to the current state S(i). Alongside each state, its solvability status L(*) is given. Your task is to determine the next state by making exactly one move, ensuring progress toward a valid solution. A valid Sudoku solution requires that each row, column, and 3x3 subgrid contains the numbers 1 to 9 without repetition.",
        "Additionally, you are provided with a previously explored next state that has been proven to be unsolvable. Use this information to avoid revisiting this failed path.",
        "**A move is defined as either:**",
        "1. Filling: Replacing a 0 in exactly one empty cell with a value from 1 to 9.",
        "2. Removing: Replacing a value in exactly one filled cell with 0.",
        "**Initial puzzle:**",
        f"S(0) = {_s(inp['initial'])}",
        "L(0) = Solvable",
    ]
    if _grandparent_shown(inp, official_grandparent):
        lines += ["**Two moves ago:**", f"S(i-2) = {_s(inp.get('grandparent'))}", f"L(i-2) = {labels['grandparent']}"]
    lines += [
        "**One move ago:**", f"S(i-1) = {_s(inp['parent'])}", f"L(i-1) = {labels['parent']}",
        "**Current state:**", f"S(i) = {_s(inp['current'])}", f"L(i) = {status}",
    ]
    if child:
        lines += ["**Explored next state:**", f"S(i+1) = {_s(inp['unsolvable_child'])}", "L(i+1) = Unsolvable"]
    lines.append('Let\'s think step by step. Analyze the progress made so far and determine the immediate next move. End your answer with "Next state: \\{grid\\}", where \\{grid\\} is in the same python list format as the previous states.')
    return "\n".join(lines)


def sudoku_e2e(inp: dict[str, Any]) -> str:
    return "\n".join([
        "You are given a 9x9 Sudoku grid represented as a list of lists, where empty cells are represented as 0. Your task is to fill the empty cells, ensuring that each row, column, and 3x3 subgrid contains unique numbers from 1 to 9.",
        f"Initial Grid: {_s(inp['initial'])}",
        "Let's think step by step. Do not solve using programming.",
        'End your answer with "Solution: \\{grid\\}" where grid is in the same format as the Initial Grid.',
    ])


# -- Graph Coloring -----------------------------------------------------------------------------------
def gc_sc(inp: dict[str, Any], child: bool = True) -> str:
    k = inp["chromatic_number"]
    lines = [
        "You are given a graph represented as an adjacency list, where each index corresponds to a vertex, and the list at that index represents its adjacent vertices. You are also given the current coloring state of the graph in a list, where each index represents the corresonding vertex, and the number at that index represents its color (0 indicates an uncolored vertex).",
        f"Your task is to determine if this current state can lead to a valid coloring. Specifically, use lookahead techniques to determine if it's possible to color the remaining vertices such that no two adjacent vertices share the same color, using no more than {k} colors in total.",
        "Additionally, you are provided with a previously explored next state that has been proven to be uncolorable. Use this information to avoid revisiting this failed path and leverage it to make a more informed decision about the current state.",
        "**Graph adjacency list:**", _s(inp["graph"]),
        "**Current coloring state:**", _s(inp["current"]),
    ]
    if child:
        lines += ["**Explored next state that leads to an uncolorable path:**", _s(inp["unsolvable_child"])]
    lines += [
        "Let's think step by step, considering the failed state to avoid unnecessary exploration. Do not solve using programming.",
        'Choose from (A) Colorable (B) Uncolorable. End your answer with "Answer: (A)" or "Answer: (B)".',
    ]
    return "\n".join(lines)


_GC_LABEL = {"Solvable": "Colorable", "Unsolvable": "Uncolorable"}


def gc_st(inp: dict[str, Any], status: str, labels: dict[str, str], child: bool = True,
          official_grandparent: bool = False) -> str:
    k = inp["chromatic_number"]
    lines = [
        f"You are given a graph represented as an adjacency list, where each index corresponds to a vertex, and the list at that index represents its adjacent vertices. You are also given a sequence of partial coloring states leading to the current coloring state S(i). The coloring state is a list, where each index represents the corresonding vertex in the graph, and the number at that index represents its color (0 indicates an uncolored vertex). Alongside each state, its colorability status L(*) is given. Your task is to determine the next state by making exactly one move, ensuring progress toward a valid coloring with no more than {k} colors. A valid coloring requires that no two adjacent vertices share the same color.",
        "Additionally, you are provided with a previously explored next state that has been proven to be uncolorable. Use this information to avoid revisiting this failed path.",
        "**A move is defined as either:**",
        f"1. Coloring: Replacing a 0 in exactly one uncolored vertex with a value from 1 to {k}.",
        "2. Removing a color: Replacing a value in exactly one colored vertex with 0.",
        "**Graph adjacency list:**", _s(inp["graph"]),
    ]
    if _grandparent_shown(inp, official_grandparent):
        lines += ["**Two moves ago:**", f"S(i-2) = {_s(inp.get('grandparent'))}",
                  f"L(i-2) = {_GC_LABEL[labels['grandparent']]}"]
    lines += [
        "**One move ago:**", f"S(i-1) = {_s(inp['parent'])}", f"L(i-1) = {_GC_LABEL[labels['parent']]}",
        "**Current coloring state:**", f"S(i) = {_s(inp['current'])}", f"L(i) = {_GC_LABEL[status]}",
    ]
    if child:
        lines += ["**Explored next state:**", f"S(i+1) = {_s(inp['unsolvable_child'])}", "L(i+1) = Uncolorable"]
    lines.append('Let\'s think step by step. Analyze the progress made so far and determine the immediate next move. End your answer with "Next state: \\{coloring\\}", where \\{coloring\\} is in the same python list format as the previous states.')
    return "\n".join(lines)


def gc_e2e(inp: dict[str, Any]) -> str:
    k = inp["chromatic_number"]
    return "\n".join([
        "You are given a graph represented as an adjacency list, where each index corresponds to a vertex, and the list at that index represents its adjacent vertices. You are also given the initial coloring state of the graph in a list, where each index represents the corresonding vertex, and the number at that index represents its color (0 indicates an uncolored vertex).",
        f"Your task is to color the vertices such that no two adjacent vertices share the same color, using no more than {k} colors in total.",
        f"Graph: {_s(inp['graph'])}",
        f"Initial Coloring: {_s([0] * len(inp['graph']))}",
        "Let's think step by step. Do not solve using programming.",
        'End your answer with "Solution: \\{coloring\\}" where coloring is in the same format as the Initial Coloring.',
    ])


# -- Game of 24 ---------------------------------------------------------------------------------------
def g24_sc(inp: dict[str, Any], child: bool = True) -> str:
    lines = [
        "You are given four numbers and the current calculation state for the Game of 24.",
        "Your task is to determine if this current state can lead to a solvable solution. Specifically, use lookahead techniques to determine if the remaining numbers can be combined using basic arithmetic operations (+ - * /) to reach exactly 24. You must use each number exactly once.",
        "Additionally, you are provided with a previously explored next state that has been proven to be unsolvable. Use this information to avoid revisiting this failed path and leverage it to make a more informed decision about the current state.",
        "**Numbers:**", _s(inp["initial_state"]),
        "**Current calculation state:**", _s(inp["current"]),
    ]
    if child:
        lines += ["**Explored next state that leads to an unsolvable path:**", _s(inp["unsolvable_child"])]
    lines += [
        "Let's think step by step, considering the failed state to avoid unnecessary exploration. Do not solve using programming.",
        'Choose from (A) Solvable (B) Unsolvable. End your answer with "Answer: (A)" or "Answer: (B)".',
    ]
    return "\n".join(lines)


def g24_st(inp: dict[str, Any], status: str, labels: dict[str, str], child: bool = True,
           official_grandparent: bool = False) -> str:
    lines = [
        "You are given an initial Game of 24 configuration S(0), followed by a sequence of progressive states leading to the current state S(i). Alongside each state, its solvability status L(*) is given. Your task is to determine the next state by making exactly one move, ensuring progress toward a valid solution. A valid solution requires using each of the four initial numbers exactly once, using only basic arithmetic operations (+ - * /), and ultimately evaluating to 24.",
        "Additionally, you are provided with a previously explored next state that has been proven to be unsolvable. Use this information to avoid revisiting this failed path.",
        "**A move is defined as either:**",
        "1. Applying an operation: Combining two expressions using a basic arithmetic operation (+ - * /), reducing the number of expressions by 1.",
        "2. Reverting an operation: Removing the last operation applied to the expressions, increasing the number of expressions by 1.",
        "**Initial configuration:**", f"S(0) = {_s(inp['initial_state'])}", "L(0) = Solvable",
    ]
    if (bool(inp.get("grandparent")) if official_grandparent else inp.get("grandparent") is not None):
        lines += ["**One move ago:**", f"S(i-1) = {_s(inp['parent'])}", f"L(i-1) = {labels['parent']}"]
    lines += ["**Current state:**", f"S(i) = {_s(inp['current'])}", f"L(i) = {status}"]
    if child:
        lines += ["**Explored next state:**", f"S(i+1) = {_s(inp['unsolvable_child'])}", "L(i+1) = Unsolvable"]
    lines.append('Let\'s think step by step. Analyze the progress made so far and determine the immediate next move. End your answer with "Next state: \\{expressions\\}", where \\{expressions\\} is in the same python list format as the previous states.')
    return "\n".join(lines)


def g24_e2e(inp: dict[str, Any]) -> str:
    nums = [int(x) for x in inp["initial_state"]]
    return "\n".join([
        "You are given four numbers for the Game of 24.",
        "Your task is to use basic arithmetic operations (+ - * /) to reach exactly 24. You must use each number exactly once.",
        f"Numbers: {_s(nums)}",
        "Let's think step by step. Do not solve using programming.",
        'End your answer with "Solution: expression", e.g., "Solution: 5 + 5 + 5 + 9 = 24".',
    ])


# -- Grid puzzles -------------------------------------------------------------------------------------
_GRID_INTRO = "You are given a partially filled logic grid puzzle represented as a table, where each column corresponds to a specific category, and each row represents attributes of a distinct entry. Empty cells are represented as the empty string ('')."


def _clue_lines(clues: dict[str, Any]) -> list[str]:
    return [f"{num}. {c['text']}" for num, c in clues.items()]


def _grid_history(inp: dict[str, Any], status: str | None, labels: list[str] | None, child: bool) -> list[str]:
    path = inp["initial_to_current"]
    applied = inp["applied_clues"]
    m = len(applied)
    lines = ["**Initial state:**", f"S(0) = {_s(path[0])}"]
    if labels is not None:
        lines.append("L(0) = Solvable")
    for j in range(1, m + 1):
        head = f"**State {j} (Current state):**" if j == m else f"**State {j}:**"
        lines += [head, f"Clue applied: {applied[j - 1]}", f"S({j}) = {_s(path[j])}"]
        if labels is not None:
            lines.append(f"L({j}) = {status if j == m else labels[j]}")
    if child:
        head = ("**Explored next state:**" if labels is not None
                else "**Explored next state that leads to an unsolvable path:**")
        lines += [head, f"Clue applied: {inp['clue_applied_to_unsolvable_child']}",
                  f"S({m + 1}) = {_s(inp['unsolvable_child'])}"]
        if labels is not None:
            lines.append(f"L({m + 1}) = Unsolvable")
    return lines


def grid_sc(inp: dict[str, Any], child: bool = True) -> str:
    lines = [
        _GRID_INTRO,
        "Your task is to determine if this current state can lead to a solvable solution. Specifically, use lookahead techniques to determine if the current configuration can lead to a valid solution under standard logic puzzle constraints (each option in every category must only appear once and adhere to the given clues).",
        "Additionally, you are provided with a previously explored next state that has been proven to be unsolvable. Use this information to avoid revisiting this failed path and leverage it to make a more informed decision about the current state.",
        "**Question:**", inp["question"], "**Categories:**", inp["categories"], "**Clues:**",
        *_clue_lines(inp["clues"]),
        *_grid_history(inp, None, None, child),
        "Let's think step by step, considering the failed state to avoid unnecessary exploration. Do not solve using programming.",
        'Choose from (A) Solvable (B) Unsolvable. End your answer with "Answer: (A)" or "Answer: (B)".',
    ]
    return "\n".join(lines)


def grid_st(inp: dict[str, Any], status: str, path_labels: list[str], child: bool = True) -> str:
    lines = [
        "You are given a logic grid puzzle represented as a table, where each column corresponds to a specific category, and each row represents attributes of a distinct entry. Empty cells are represented as the empty string (''). You are also given a sequence of progressive states from the initial state S(0) to the current state S(n). Alongside each state, its solvability status L(*) is provided. Your task is to determine the next state by making exactly one move, ensuring progress toward a valid solution. A valid solution requires that each option in every category appears only once, strictly following the given clues.",
        "Additionally, you are provided with a previously explored next state that has been proven to be unsolvable. Use this information to avoid revisiting this failed path.",
        "**A move is defined as either:**",
        "1. Applying a clue: Filling the table with the values indicated by that clue, as long as it does not conflict with any existing clues or placed options.",
        "2. Reverting a clue: Removing the last operation applied to the table.",
        "**Question:**", inp["question"], "**Categories:**", inp["categories"], "**Clues:**",
        *_clue_lines(inp["clues"]),
        *_grid_history(inp, status, path_labels, child),
        'Let\'s think step by step. Analyze the progress made so far and determine the immediate next move. End your answer with "Next state: \\{table\\}", where \\{table\\} is in the same python list format as the previous states.',
    ]
    return "\n".join(lines)


def grid_e2e(inp: dict[str, Any]) -> str:
    return "\n".join([
        _GRID_INTRO.replace("a partially filled logic grid", "a logic grid"),
        "Your task is to assign the attributes from categories based on the clues.",
        "Question:", inp["question"], "Categories:", inp["categories"], "Clues:", *_clue_lines(inp["clues"]),
        "Initial Table:", _s(inp["initial"]),
        "Let's think step by step. Do not solve using programming.",
        'End your answer with "Solution: \\{table\\}" where table is in the same format as the Initial Table.',
    ])


SC: dict[str, Callable[..., str]] = {"sudoku": sudoku_sc, "graphcoloring": gc_sc, "game24": g24_sc,
                                     "gridpuzzle": grid_sc}
E2E: dict[str, Callable[[dict[str, Any]], str]] = {"sudoku": sudoku_e2e, "graphcoloring": gc_e2e,
                                                   "game24": g24_e2e, "gridpuzzle": grid_e2e}
