"""Training data (paper section 5): puzzle state-checking / state-transition samples mixed with math samples
(a local JSONL / JSON / Parquet file, or MetaMathQA from the Hub: ``mathdata.py``), as chat-format JSONL.

Columns of every line: ``messages`` (user prompt + reference answer, for SFT), ``prompt`` (the user turn
alone: TRL's conversational prompt for GRPO), ``source`` (``finereason`` | ``math``), ``puzzle``, ``task``
(``state_checking`` | ``state_transition`` | ``math``), ``label`` (the state's Solvable/Unsolvable),
``answer`` (the reference answer), ``state`` (puzzle rows: the state record as JSON, what the rewards judge
moves against) and ``gold`` (math rows: the final answer read from ``answer``). ``reasoneval.rewards``
scores completions against exactly these columns.

Knobs (paper names): ``math_ratio`` r_m = share of math samples in the mix; ``unsolvable_ratio`` r_u = share
of unsolvable states among the puzzle samples; ``sc_ratio`` = share of state-checking among puzzle samples.
The paper's puzzle data uses Sudoku, Graph Coloring and Game of 24 only (no Grid), the default here.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ...core.records import read_records
from ...rewards.extract import final_answer
from .data import DataError, iter_jsonl, load_questions
from .engines.base import SOLVABLE, UNSOLVABLE
from .engines.gridpuzzle import GridPuzzleEngine
from .generate import generate_states
from .label import INSTANCE_KEYS, state_of
from .tasks import build_prompt, engine_for

TRAIN_PUZZLES = ("sudoku", "graphcoloring", "game24")
_MATH_KEYS = (("query", "response"), ("question", "answer"), ("problem", "solution"), ("instruction", "output"),
              ("prompt", "completion"))


@dataclass
class MixConfig:
    total: int
    math_ratio: float = 0.8  # r_m; the paper's best GSM8K result used 0.8
    unsolvable_ratio: float = 0.5  # r_u
    sc_ratio: float = 0.5
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("math_ratio", "unsolvable_ratio", "sc_ratio"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {v}")
        if self.total < 0:
            raise ValueError("total must be >= 0")


def _math_rows(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """(where, record) of every row: JSON lines by line number, JSON arrays / Parquet by row."""
    p = Path(path)
    if p.name.lower().endswith((".json", ".parquet")):
        try:
            return [(f"{r.source}: row {r.row}", r.data) for r in read_records(p)]
        except DataError:
            if not p.name.lower().endswith(".json") or not _starts_with_object(p):
                raise  # a .json file of JSON lines (as FineReason's own releases are) is read below
    return [(f"{path}:{lineno}", rec) for lineno, rec in iter_jsonl(path)]


def _starts_with_object(p: Path) -> bool:
    with p.open("rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{")


def load_math(path: str | Path, question_key: str | None = None, answer_key: str | None = None
              ) -> list[dict[str, str]]:
    """Math samples as {"question", "answer"}; keys auto-detected (MetaMathQA ``query``/``response``,
    ``question``/``answer``, ``problem``/``solution``, ...) or a ``messages`` list (user, assistant).
    ``path``: JSON lines (``.jsonl`` or any other name), a JSON array (``.json``, MetaMathQA's own file) or
    Parquet."""
    out = []
    for where, rec in _math_rows(path):
        if question_key and answer_key:
            keys: tuple[str, str] | None = (question_key, answer_key)
        else:
            keys = next((k for k in _MATH_KEYS if k[0] in rec and k[1] in rec), None)
        if keys is not None:
            q, a = rec.get(keys[0]), rec.get(keys[1])
        elif isinstance(rec.get("messages"), list):
            msgs = rec["messages"]
            q = next((m.get("content") for m in msgs if m.get("role") == "user"), None)
            a = next((m.get("content") for m in msgs if m.get("role") == "assistant"), None)
        else:
            raise DataError(f"{where}: no question/answer fields (tried {_MATH_KEYS} and 'messages')")
        if not isinstance(q, str) or not isinstance(a, str):
            raise DataError(f"{where}: question and answer must be strings")
        out.append({"question": q, "answer": a})
    return out


def target_state(puzzle: str, record: dict[str, Any]) -> Any:
    """The correct ST answer: the parent at an unsolvable state; at a solvable state the first solvable
    child in DFS order (never the shown unsolvable child)."""
    eng = engine_for(puzzle, record)
    inp = record["inputs"]
    if record["outputs"]["current_status"] == UNSOLVABLE:
        if isinstance(eng, GridPuzzleEngine):
            return inp["initial_to_current"][-2]
        return inp["parent"]
    cur = state_of(eng, record)
    shown = eng.key(state_of(eng, record, "unsolvable_child"))
    for m in eng.moves(cur):
        child = eng.apply(cur, m)
        if eng.key(child) != shown and eng.is_solvable(child):
            return eng.to_json(child)
    raise ValueError("a solvable state without a solvable child")


def puzzle_sample(puzzle: str, task: str, record: dict[str, Any]) -> dict[str, Any]:
    prompt = build_prompt(puzzle, task, record)
    status = record["outputs"]["current_status"]
    if task == "state_checking":
        letter = "A" if status == SOLVABLE else "B"
        answer = f"Answer: ({letter})"
    else:
        answer = f"Next state: {target_state(puzzle, record)}"
    state = json.dumps({"inputs": record["inputs"], "outputs": record["outputs"]}, ensure_ascii=False)
    return {"messages": [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}],
            "prompt": [{"role": "user", "content": prompt}],
            "source": "finereason", "puzzle": puzzle, "task": task, "label": status, "answer": answer,
            "state": state, "gold": None}


def math_sample(item: dict[str, str]) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": item["question"]},
                         {"role": "assistant", "content": item["answer"]}],
            "prompt": [{"role": "user", "content": item["question"]}],
            "source": "math", "puzzle": None, "task": "math", "label": None, "answer": item["answer"],
            "state": None, "gold": final_answer(item["answer"])}


def build_mix(math: Sequence[dict[str, str]], states: Mapping[str, Sequence[dict[str, Any]]], cfg: MixConfig
              ) -> list[dict[str, Any]]:
    """Mix ``cfg.total`` samples. Raises ValueError when a pool is too small for the requested counts."""
    rng = random.Random(cfg.seed)
    n_math = round(cfg.total * cfg.math_ratio)
    n_puz = cfg.total - n_math
    n_uns = round(n_puz * cfg.unsolvable_ratio)
    if n_math > len(math):
        raise ValueError(f"need {n_math} math samples, the file has {len(math)}")
    pools: dict[str, list[tuple[str, dict[str, Any]]]] = {SOLVABLE: [], UNSOLVABLE: []}
    for puzzle, recs in states.items():
        for r in recs:
            pools[r["outputs"]["current_status"]].append((puzzle, r))
    for lab, need in ((UNSOLVABLE, n_uns), (SOLVABLE, n_puz - n_uns)):
        if need > len(pools[lab]):
            raise ValueError(f"need {need} {lab} states, have {len(pools[lab])}")
    out = [math_sample(m) for m in rng.sample(list(math), n_math)]
    for lab, need in ((UNSOLVABLE, n_uns), (SOLVABLE, n_puz - n_uns)):
        picked = rng.sample(pools[lab], need)
        n_sc = round(need * cfg.sc_ratio)
        for i, (puzzle, rec) in enumerate(picked):
            out.append(puzzle_sample(puzzle, "state_checking" if i < n_sc else "state_transition", rec))
    rng.shuffle(out)
    return out


def _released_keys(puzzle: str) -> set[str]:
    return {json.dumps([q["inputs"].get(k) for k in INSTANCE_KEYS[puzzle]], sort_keys=True)
            for q in load_questions(puzzle)}


#: extra rounds of fresh states when instances equal to released ones (or a generator that runs short) leave a
#: label below its need; each round draws the shortfall with a margin, under seeds of its own
TOPUP_ROUNDS = 12
TOPUP_MARGIN = 1.15
_ROUND_SEED = 1_000_000_007  # a top-up round's seeds: the first round's + round x this


def label_needs(cfg: MixConfig) -> dict[str, int]:
    """States of each label that ``cfg``'s puzzle part draws."""
    n_puz = cfg.total - round(cfg.total * cfg.math_ratio)
    n_uns = round(n_puz * cfg.unsolvable_ratio)
    return {SOLVABLE: n_puz - n_uns, UNSOLVABLE: n_uns}


def training_states(cfg: MixConfig, puzzles: Iterable[str] = TRAIN_PUZZLES,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Freshly generated states (instances identical to a released puzzle are dropped), enough for ``cfg``."""
    return states_pool(per_label_need(cfg), cfg.seed, puzzles, needs=label_needs(cfg), progress=progress)


def per_label_need(cfg: MixConfig) -> int:
    """States of the more frequent label that ``cfg``'s puzzle part draws."""
    return max(label_needs(cfg).values())


def _instance_key(puzzle: str, rec: dict[str, Any]) -> str:
    return json.dumps([rec["inputs"].get(k) for k in INSTANCE_KEYS[puzzle]], sort_keys=True)


def states_pool(per_label: int, seed: int, puzzles: Iterable[str] = TRAIN_PUZZLES, *,
                needs: Mapping[str, int] | None = None,
                progress: Callable[[int, int], None] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Fresh label-balanced states, ``2 * per_label`` split over ``puzzles`` (released instances dropped); a
    sweep draws all its mixes from one pool made for its largest need.

    ``needs`` (default ``per_label`` of each label): what the pool must hold at least. When the first draw
    falls short (instances equal to released ones dropped; a generator running out), more states are drawn in
    rounds (:data:`TOPUP_ROUNDS`, each the shortfall x :data:`TOPUP_MARGIN` under seeds of its own); a pool
    that is still short is a ValueError naming the shortfall. A state is taken once (a repeated instance, as
    Game of 24's small instance space makes, repeats its states). The first draw is the generator call it
    always was.
    ``progress(states kept, states needed)`` is called as states are made."""
    puzzles = list(puzzles)
    want = {SOLVABLE: per_label, UNSOLVABLE: per_label} if needs is None else {
        SOLVABLE: needs.get(SOLVABLE, 0), UNSOLVABLE: needs.get(UNSOLVABLE, 0)}
    out: dict[str, list[dict[str, Any]]] = {p: [] for p in puzzles}
    if not puzzles:
        return out
    have = {SOLVABLE: 0, UNSOLVABLE: 0}
    seen: set[tuple[str, str]] = set()
    target = max(sum(want.values()), 1)

    released = {p: _released_keys(p) for p in puzzles}

    def kept() -> int:
        return sum(min(have[lab], want[lab]) for lab in want)

    shown = 0

    def report(done: int) -> None:  # never backwards: states made, then some dropped, keep the bar where it was
        nonlocal shown
        shown = max(shown, min(done, target))
        if progress is not None:
            progress(shown, target)

    for rnd in range(TOPUP_ROUNDS + 1):
        short = max(want[lab] - have[lab] for lab in want)
        if rnd == 0:
            share = -(-2 * per_label // len(puzzles))  # balanced sets: 2 x the larger label, split over puzzles
        elif short <= 0:
            break
        else:
            share = -(-int(2 * short * TOPUP_MARGIN) // len(puzzles)) + 2
        if share <= 0:
            continue
        for i, puzzle in enumerate(puzzles):
            base = kept()
            tick = None if progress is None else (lambda n, b=base: report(b + n))
            recs = generate_states(puzzle, share, seed=seed * 1000 + i + rnd * _ROUND_SEED, progress=tick)
            for r in recs:
                if _instance_key(puzzle, r) in released[puzzle]:
                    continue
                ident = (puzzle, json.dumps(r["inputs"], sort_keys=True))
                if ident in seen:  # the same state of a repeated instance (Game of 24's are few): once
                    continue
                seen.add(ident)
                out[puzzle].append(r)
                have[r["outputs"]["current_status"]] += 1
            report(kept())
    missing = {lab: want[lab] - have[lab] for lab in want if have[lab] < want[lab]}
    if missing:
        raise ValueError("could not draw enough fresh puzzle states after "
                         f"{TOPUP_ROUNDS} extra rounds: " + ", ".join(f"need {want[lab]} {lab}, have {have[lab]}"
                                                                     for lab in missing))
    return out


def write_mix(mix: Iterable[dict[str, Any]], fh: IO[str]) -> int:
    n = 0
    for item in mix:
        fh.write(json.dumps(item, ensure_ascii=False) + "\n")
        n += 1
    return n


def export_training(math_path: str | Path | Sequence[dict[str, str]], fh: IO[str], cfg: MixConfig,
                    puzzles: Iterable[str] = TRAIN_PUZZLES,
                    states: dict[str, Sequence[dict[str, Any]]] | None = None) -> int:
    """Write the mix as JSONL to ``fh``; returns the number of lines. ``math_path``: a file for
    :func:`load_math`, or samples already loaded."""
    math = load_math(math_path) if isinstance(math_path, str | Path) else math_path
    pool: dict[str, Sequence[dict[str, Any]]] = dict(states) if states is not None else dict(
        training_states(cfg, puzzles))
    return write_mix(build_mix(math, pool, cfg), fh)


__all__ = ["MixConfig", "build_mix", "export_training", "label_needs", "load_math", "puzzle_sample", "target_state",
           "per_label_need", "states_pool", "training_states", "write_mix"]
