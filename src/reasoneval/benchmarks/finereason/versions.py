"""What a FineReason run records about its data and prompts (``data_version``, ``prompt_version``).

The data version hashes the data files (the ``--data`` file, or the ``*.json`` files of the folder); the
prompt version hashes the source of the functions that build the mode's prompts, the mode, the template
constants and the prompt options, so it changes whenever a prompt could.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from ...core.hashing import hash_files, sha256_text
from . import prompts, tasks
from .modes import SC, ST


def data_version(path: Path) -> str:
    """The hash of the data at ``path`` (a file, or a folder's ``*.json`` files); ``missing`` for none."""
    files = [path] if path.is_file() else sorted(path.glob("*.json")) if path.is_dir() else []
    return hash_files(files) if files else "missing"


def prompt_version(mode: str, prompt_options: prompts.PromptOptions) -> str:
    """16 hex digits that change when the prompts of ``mode`` under ``prompt_options`` could."""
    builders: list[Any] = [tasks.build_prompt, prompts._s]
    if mode == SC:
        builders += [*prompts.SC.values(), prompts._grid_history, prompts._clue_lines]
    elif mode == ST:
        builders += [prompts.sudoku_st, prompts.gc_st, prompts.g24_st, prompts.grid_st, prompts._grid_history,
                     prompts._clue_lines, prompts._grandparent_shown]
    else:
        builders += [*prompts.E2E.values(), prompts._clue_lines]
    text = "\n".join(inspect.getsource(builder) for builder in builders)
    text += f"\n{mode}\n{prompts._GRID_INTRO}\n{prompts._GC_LABEL}\n{prompt_options}"
    return sha256_text(text)[:16]
