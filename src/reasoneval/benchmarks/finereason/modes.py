"""FineReason's three modes (the paper's protocols), the names they are also called by, and the
``tasks.py`` task of each."""

from __future__ import annotations

SC, ST, E2E = "state-checking", "state-transition", "end-to-end"
MODES = (SC, ST, E2E)
TASK_OF = {SC: "state_checking", ST: "state_transition", E2E: "e2e"}  # harness mode -> tasks.py task
MODE_ALIASES = {
    SC: SC, "state_checking": SC, "sc": SC, "checking": SC,
    ST: ST, "state_transition": ST, "st": ST, "transition": ST,
    E2E: E2E, "e2e": E2E, "end_to_end": E2E, "endtoend": E2E, "solve": E2E, "solving": E2E,
}


def normalize_mode(name: str) -> str:
    """``state_checking`` / ``sc`` / ``state-checking`` ... -> the harness mode name; ValueError otherwise."""
    key = str(name).strip().lower().replace(" ", "-")
    mode = MODE_ALIASES.get(key) or MODE_ALIASES.get(key.replace("-", "_"))
    if mode is None:
        raise ValueError(f"unknown FineReason task {name!r}; expected one of {', '.join(MODES)} "
                         f"(or {', '.join(TASK_OF.values())})")
    return mode
