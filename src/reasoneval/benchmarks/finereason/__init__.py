"""FineReason: reflective puzzle solving (Sudoku, Graph Coloring, Game of 24, Logic Grid Puzzles).

Layout:
    engines/   one module per puzzle: state type, minimal moves, rule validator, exact solver
    tree.py    full DFS tree enumeration with post-order solvability labels
    sampler.py depth-uniform, label-balanced state sampling in the release's JSON-lines schema
    data.py    loaders for the released ``*_questions.json`` / ``*_states.json`` (JSON lines)
    prompts.py the official prompt templates (verbatim, quirks included)
    tasks.py   scorers for state checking, state transition and end-to-end solving, and SC metrics
    generate.py new puzzle instances; export.py SFT/RL training data; cli.py typer commands

The registered benchmark (``benchmark.py``) only wires the plugin hooks to ``modes`` (mode names),
``items`` (data files -> items, golds), ``policies`` (the verdict under ``-O scoring``), ``tables``
(``summarize``), ``versions`` (data and prompt versions) and ``outside`` (the ``rescore`` adapter);
docs/finereason.md, "Code layout", lists every module.
"""

from .engines import PUZZLES, engine_for_record
from .engines.base import SOLVABLE, UNSOLVABLE
from .label import label_records

__all__ = ["PUZZLES", "SOLVABLE", "UNSOLVABLE", "engine_for_record", "label_records"]
