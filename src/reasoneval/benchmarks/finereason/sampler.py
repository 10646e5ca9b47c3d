"""Sampling benchmark states from puzzle trees, written in the release's JSON-lines schema.

Paper (section 2.2): "we uniformly sample both solvable and unsolvable states across different tree depths".
Every sampled state comes with its parent, its grandparent (None at depth 1) and one explored *unsolvable
child*; so a solvable state must have at least one unsolvable child (paper A.1) and an unsolvable state must
have at least one child (otherwise there is nothing to show; the release instead shows a stale grid for 86
Sudoku states, see ``tasks.release_defects``).

Two strategies, same output:
  * ``exact``: enumerate the whole tree (``tree.build_tree``), list the eligible nodes per (label, depth),
    pick a depth uniformly among the depths that still have nodes, then a node uniformly at that depth.
  * ``walk``: for trees too large to enumerate (Graph Coloring: most released graphs have > 3M nodes), pick the
    depth uniformly, then reach it by a random descent that follows solvable children (and, for an unsolvable
    target, leaves the solvable path at a random depth through an unsolvable child); labels come from the
    exact solver, which equals the tree label because the move generator is complete.
``auto`` uses ``exact`` when the tree has at most ``max_tree_nodes`` nodes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .engines.base import SOLVABLE, UNSOLVABLE, Engine
from .engines.gridpuzzle import GridPuzzleEngine, GridState
from .tree import Tree, TreeTooLarge, build_tree

Strategy = Literal["auto", "exact", "walk"]
ParentRule = Literal["any", "solvable"]


@dataclass
class Sample:
    path: list[Any]  # states root..current
    moves: list[Any]  # moves along the path (len(path) - 1)
    solvable: bool
    child: Any  # the explored unsolvable child
    child_move: Any

    @property
    def depth(self) -> int:
        return len(self.path) - 1


@dataclass
class SampleConfig:
    n_solvable: int = 5
    n_unsolvable: int = 5
    strategy: Strategy = "auto"
    max_tree_nodes: int = 200_000
    unsolvable_parent: ParentRule = "any"  # "solvable": only first dead ends (the release's Sudoku states)
    min_depth: int = 1
    walk_tries: int = 400
    balance: bool = True  # per instance keep as many unsolvable as solvable states (and vice versa)


def _exact(engine: Engine[Any, Any], tree: Tree[Any], cfg: SampleConfig, rng: random.Random) -> list[Sample]:
    pools: dict[bool, dict[int, list[int]]] = {True: {}, False: {}}
    for i in range(len(tree)):
        d = tree.depth[i]
        if d < cfg.min_depth:
            continue
        kids = tree.children[i]
        if tree.solvable[i]:
            if not any(not tree.solvable[c] for c in kids):
                continue
        else:
            if not kids or (cfg.unsolvable_parent == "solvable" and not tree.solvable[tree.parent[i]]):
                continue
        pools[tree.solvable[i]].setdefault(d, []).append(i)
    out: list[Sample] = []
    for label, want in ((True, cfg.n_solvable), (False, cfg.n_unsolvable)):
        pool = pools[label]
        for _ in range(want):
            depths = sorted(d for d, nodes in pool.items() if nodes)
            if not depths:
                break
            nodes = pool[rng.choice(depths)]
            i = nodes.pop(rng.randrange(len(nodes)))
            bad = [c for c in tree.children[i] if not tree.solvable[c]]
            c = rng.choice(bad)
            p = tree.path(i)
            out.append(Sample([tree.states[k] for k in p], [tree.move[k] for k in p[1:]], label,
                              tree.states[c], tree.move[c]))
    return out


def _children(engine: Engine[Any, Any], state: Any) -> list[tuple[Any, Any]]:
    return [(m, engine.apply(state, m)) for m in engine.moves(state)]


def _walk(engine: Engine[Any, Any], cfg: SampleConfig, rng: random.Random) -> list[Sample]:
    # the depth of the goal layer: follow solvable children from the root
    root = engine.root()
    if not engine.is_solvable(root):
        raise ValueError("the puzzle instance has no solution")
    s, max_depth = root, 0
    while not engine.is_goal(s):
        s = next(c for _, c in _children(engine, s) if engine.is_solvable(c))
        max_depth += 1
    seen: set[Any] = set()
    out: list[Sample] = []

    def descend(label: bool, depth: int) -> Sample | None:
        path, moves = [root], []
        leave_at = depth - 1 if cfg.unsolvable_parent == "solvable" else rng.randrange(depth)
        while len(path) - 1 < depth:
            kids = _children(engine, path[-1])
            if not kids:
                return None
            d = len(path) - 1
            if label or d < leave_at:
                pool = [(m, c) for m, c in kids if engine.is_solvable(c)]
            elif d == leave_at:
                pool = [(m, c) for m, c in kids if not engine.is_solvable(c)]
            else:
                pool = kids
            if not pool:
                return None
            m, c = rng.choice(pool)
            path.append(c)
            moves.append(m)
        cur = path[-1]
        kids = _children(engine, cur)
        bad = [(m, c) for m, c in kids if not engine.is_solvable(c)] if label else kids
        if not bad or engine.key(cur) in seen:
            return None
        m, c = rng.choice(bad)
        return Sample(path, moves, label, c, m)

    for label, want in ((True, cfg.n_solvable), (False, cfg.n_unsolvable)):
        got, tries = 0, 0
        lo = max(cfg.min_depth, 1)
        while got < want and tries < cfg.walk_tries and lo <= max_depth - 1:
            tries += 1
            smp = descend(label, rng.randint(lo, max_depth - 1))
            if smp is not None:
                seen.add(engine.key(smp.path[-1]))
                out.append(smp)
                got += 1
    return out


def sample_instance(engine: Engine[Any, Any], cfg: SampleConfig, rng: random.Random) -> list[Sample]:
    """Samples for one puzzle instance (solvable ones first)."""
    out = None
    if cfg.strategy in ("auto", "exact"):
        try:
            tree = build_tree(engine, max_nodes=cfg.max_tree_nodes if cfg.strategy == "auto" else None)
        except TreeTooLarge:
            tree = None
        if tree is not None:
            out = _exact(engine, tree, cfg, rng)
    if out is None:
        out = _walk(engine, cfg, rng)
    if cfg.balance:
        sol = [s for s in out if s.solvable]
        uns = [s for s in out if not s.solvable]
        k = min(len(sol), len(uns))
        out = sol[:k] + uns[:k]
    return out


# -- release-schema records ---------------------------------------------------------------------------
def to_record(puzzle: str, engine: Engine[Any, Any], inputs: dict[str, Any], smp: Sample,
              outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """One state in the release schema; ``inputs``/``outputs`` are the puzzle instance's question record."""
    js = engine.to_json
    path = smp.path
    parent = js(path[-2]) if len(path) >= 2 else None
    grandparent = js(path[-3]) if len(path) >= 3 else None
    status = SOLVABLE if smp.solvable else UNSOLVABLE
    if puzzle == "sudoku":
        final = (outputs or {}).get("final")
        if final is None:
            sol = engine.solution()  # type: ignore[attr-defined]
            final = js(sol) if sol is not None else None
        rec_in = {"initial": inputs["initial"], "grandparent": grandparent, "parent": parent,
                  "current": js(path[-1]), "unsolvable_child": js(smp.child)}
        return {"inputs": rec_in, "outputs": {"final": final, "current_status": status}}
    if puzzle == "graphcoloring":
        rec_in = {"graph": inputs["graph"], "chromatic_number": inputs["chromatic_number"],
                  "grandparent": grandparent, "parent": parent, "current": js(path[-1]),
                  "unsolvable_child": js(smp.child)}
        return {"inputs": rec_in, "outputs": {"current_status": status}}
    if puzzle == "game24":
        rec_in = {"initial_state": [str(x) for x in inputs["initial_state"]], "grandparent": grandparent,
                  "parent": parent, "current": js(path[-1]), "unsolvable_child": js(smp.child)}
        return {"inputs": rec_in, "outputs": {"current_status": status}}
    if puzzle == "gridpuzzle":
        assert isinstance(engine, GridPuzzleEngine)
        cur: GridState = path[-1]
        solution = (outputs or {}).get("solution")
        if solution is None:
            sols = engine.solutions()
            solution = [list(r) for r in sols[0]] if sols else None
        rec_in = {"question": inputs["question"], "categories": inputs["categories"], "clues": inputs["clues"],
                  "initial": js(path[0]), "current": js(cur), "applied_clues": list(cur.applied),
                  "initial_to_current": [js(s) for s in path], "unsolvable_child": js(smp.child),
                  "clue_applied_to_unsolvable_child": smp.child_move[0]}
        return {"inputs": rec_in, "outputs": {"solution": solution, "current_status": status}}
    raise ValueError(f"unknown puzzle {puzzle!r}")


def sample_records(puzzle: str, instances: Iterable[dict[str, Any]], n: int, rng: random.Random,
                   make_engine: Callable[[dict[str, Any]], Engine[Any, Any]], cfg: SampleConfig | None = None,
                   progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Up to ``n`` state records drawn from ``instances`` (question records, consumed lazily; pass a cycling
    or endless iterable to reach ``n``). Each instance contributes up to ``cfg.n_solvable + cfg.n_unsolvable``
    new states (equally many of each label when ``cfg.balance``), interleaved so that a prefix of the output
    stays balanced; a state already taken from the same instance is never repeated. ``progress`` is called with
    the number of records made so far after each instance."""
    cfg = cfg or SampleConfig()
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, Any]] = set()
    for inst in instances:
        if len(out) >= n:
            break
        engine = make_engine(inst)
        ident = json.dumps(inst.get("inputs"), sort_keys=True, default=str)
        fresh: dict[bool, list[Sample]] = {True: [], False: []}
        for smp in sample_instance(engine, cfg, rng):
            key = (ident, engine.key(smp.path[-1]))
            if key not in seen:
                seen.add(key)
                fresh[smp.solvable].append(smp)
        sol, uns = fresh[True], fresh[False]
        if cfg.balance:
            k = min(len(sol), len(uns))
            sol, uns = sol[:k], uns[:k]
        mixed = [x for pair in zip(sol, uns, strict=False) for x in pair] + sol[len(uns):] + uns[len(sol):]
        for smp in mixed[: n - len(out)]:
            out.append(to_record(puzzle, engine, inst["inputs"], smp, inst.get("outputs")))
        if progress is not None:
            progress(len(out))
    return out
