"""Where each block of the official rendered prompts (spec fixture) comes from; shared by the tests."""

from __future__ import annotations

from pathlib import Path

RENDERED = Path(__file__).parent / "fixtures" / "rendered_prompts.txt"
# (data file, prompter) of each block in the official rendering -> the record it was rendered from
RENDERED_INDEX = {
    ("sudoku_states", "sudoku_state_checking"): 0, ("sudoku_states", "sudoku_state_transition"): 1,
    ("sudoku", "sudoku_e2e"): 0,
    ("graphcoloring_states", "graphcoloring_state_checking"): 80,
    ("graphcoloring_states", "graphcoloring_state_transition"): 80, ("graphcoloring", "graphcoloring_e2e"): 8,
    ("game24_states", "game24_state_checking"): 0, ("game24", "game24_e2e"): 0,
    ("gridpuzzle_states", "gridpuzzle_state_checking"): 5,
    ("gridpuzzle_states", "gridpuzzle_state_transition"): 5, ("gridpuzzle", "gridpuzzle_e2e"): 0,
}
