"""FineReason ``-O scoring=official`` beside the official code, on crafted answers of every kind.

    python bench/finereason_official_sidebyside.py OFFICIAL_CHECKOUT [--write FIXTURE] [--show N] [--grid-sweep]

OFFICIAL_CHECKOUT is a checkout of ``DAMO-NLP-SG/FineReason`` (this script fetches nothing; its Python
dependencies ``pydantic`` and ``sympy`` must be importable, ``fire`` is stubbed). The script crafts answers
programmatically from the released records - state checking (every template on 3 states of each puzzle),
state transition (Sudoku, Graph Coloring, Game of 24 and Grid) and end-to-end solving (every puzzle): labels
inside ``<think>`` (closed and unclosed), markers missing or in another case, words in either case, the
official quirks (``Not Solvable``, capital letters), Game-of-24 lists that only ``ast.literal_eval`` reads,
Sudoku rows without outer brackets, grids restated after the answer, colouring remarks and quoted numbers,
``×``/``÷``/``$...$``/``24 = expr`` solutions, Grid ``"9"`` for ``9`` - then scores each one with the
official prompter's ``get_answer`` (imported from the checkout, run in this process) and with this package's
official reading (the runner's scoring path, ``score_completion``), and prints the agreement per task and
puzzle (verdict and official label), and how many verdicts the corrected reading
(``-O scoring=corrected``) gives differently from the official code. ``--write`` stores the crafted answers
with the official verdicts as the fixture the tests replay (``tests/finereason/fixtures/official_crafted.jsonl``). ``--grid-sweep`` also
compares the Grid next tables and four answers of every released Grid state (minutes: the official code
is slow). Last, the bounded readers' times on adversarial texts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from reasoneval.benchmarks.finereason.benchmark import FineReason
from reasoneval.benchmarks.finereason.engines import PUZZLES
from reasoneval.benchmarks.finereason.modes import E2E, SC, ST
from reasoneval.benchmarks.finereason.options import FROptions
from reasoneval.core.values import Completion, Item
from reasoneval.runner.verdict_of import score_completion

TASK = {SC: "state_checking", ST: "state_transition", E2E: "e2e"}
LABELS = ("Solvable", "Unsolvable")

# -- crafting ------------------------------------------------------------------------------------------
SC_TEMPLATES: list[Callable[[str], str]] = [
    lambda p: "Let me check the constraints.\nAnswer: (A)",
    lambda p: "Answer: (B)",
    lambda p: "<think>The grid looks fine, so (A).</think>\nAnswer: (B)",
    lambda p: "<think>Checking the constraints... I lean towards (B)",
    lambda p: "<think>Hmm, so the final answer is Answer: (A)",
    lambda p: "The current state is Unsolvable.",
    lambda p: "Answer: unsolvable",
    lambda p: "Answer: Not Solvable",
    lambda p: "Answer: Colorable",
    lambda p: "Answer: Uncolorable",
    lambda p: "Answer: At this point the answer is B",
    lambda p: "Answer: ( B )",
    lambda p: "**Answer:** (A)",
    lambda p: "answer: (b)",
    lambda p: "Answer: the state is solvable",
    lambda p: "After analysis (A) seems wrong; final (B).",
    lambda p: "i cannot decide.",
    lambda p: "ANSWER: B",
    lambda p: "Both (A) and (B) are possible. Answer: Solvable",
    lambda p: "<think>\n(A)\n</think>\n\nThe state is solvable. Answer: Unsolvable",
]


def _fmt(state: Any) -> str:
    return str(state)


def _rows(grid: list[list[int]]) -> str:
    return "\n".join(str(r) for r in grid)


def _g24(exprs: list[str], quote: Callable[[str], str], sep: str = ", ") -> str:
    return "[" + sep.join(quote(e) for e in exprs) + "]"


def st_templates(puzzle: str, item: Item) -> list[str]:
    inp = item.data["inputs"]
    gold, cur, child = item.gold, inp["current"], inp["unsolvable_child"]
    parent = inp.get("parent") if puzzle != "gridpuzzle" else inp["initial_to_current"][-2]
    out = [
        f"I fill the next cell.\nNext state: {_fmt(gold)}",
        f"Next state: {_fmt(parent)}",
        f"Next state: {_fmt(cur)}",
        f"Next state: {_fmt(child)}",
        f"<think>Let me work it out. Next state: {_fmt(gold)}",
        f"<think>Next state: {_fmt(gold)}</think>\nNext state: {_fmt(cur)}",
        f"The move gives {_fmt(gold)}",
        f"next state: {_fmt(gold)}",
        f"Next state: {json.dumps(gold)}",
        f"**Next state:** {_fmt(gold)}",
    ]
    if puzzle == "sudoku":
        out += [f"Next state:\n{_rows(gold)}", f"Next state: {_fmt(gold)}\nFor reference, S(0) = {inp['initial']}",
                f"Next state:\n{_rows(gold)}\nIt was {_rows(cur)}",
                f"Next state: {json.dumps(gold, separators=(',', ':'))}"]
    elif puzzle == "graphcoloring":
        out += [f"Next state: {_fmt(gold)} (vertex 3 keeps colour 2)", f"Next state: {[str(x) for x in gold]}",
                f"Next state: {_fmt(gold)}.", f"Next state: {_fmt([x + 5 for x in gold])}"]
    elif puzzle == "game24":
        out += [f"Next state: {_g24(gold, lambda e: 'u' + repr(e))}",
                f"Next state: {_g24(gold, lambda e: '(' + repr(e) + ')')}",
                f"Next state: {_g24(gold, lambda e: chr(39) * 3 + e + chr(39) * 3)}",
                "Next state: [\n" + "".join(f"  {e!r},  # expression {i}\n" for i, e in enumerate(gold)) + "]",
                f"Next state: {_g24(gold, lambda e: repr(e[:1]) + ' ' + repr(e[1:]) if len(e) > 1 else repr(e))}",
                f"Next state: {_fmt(list(reversed(gold)))}",
                f"Next state: {_g24(gold, lambda e: json.dumps(e))}",
                f"Next state: {_g24(gold, lambda e: repr(e).replace('(', chr(92) + 'x28'))}"]
    else:
        as_text = [[str(v) for v in row] for row in gold]
        floats = [[float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in row] for row in gold]
        out += [f"Next state: {_fmt(gold)}".replace("'", '"'), "Next state: [\n" + ",\n".join(map(str, gold)) + "\n]",
                f"Next state: {as_text}", f"Next state: {floats}", f"Next state: {_fmt(inp['initial'])}",
                f"Next state: {_fmt(tuple(tuple(r) for r in gold))}"]
    return out


def e2e_templates(puzzle: str, item: Item) -> list[str]:
    inp, out_ = item.data["inputs"], item.data["outputs"]
    if puzzle == "sudoku":
        final, initial = out_["final"], inp["initial"]
        wrong = [row[:] for row in final]
        wrong[0][0], wrong[0][1] = wrong[0][1], wrong[0][0]
        return [f"Filling every cell.\nSolution: {final}", f"{final}", f"<think>Solution: {final}",
                f"Solution:\n{_rows(final)}", f"Solution: {final}\nInitial Grid: {initial}",
                f"Solution: {wrong}", f"Solution: {json.dumps(final, separators=(',', ':'))}",
                f"solution: {final}", f"<think>{final}</think>\nSolution: {initial}"]
    if puzzle == "graphcoloring":
        col, k = list(item.gold), inp["chromatic_number"]
        graph = inp["graph"]
        clash = col[:]
        u = next(v for v in range(len(graph)) if graph[v])
        clash[u] = clash[graph[u][0]]
        many = col[:]
        many[0] = k + 1
        return [f"Solution: {col}", f"Solution: {col}\nThis uses {k} colors.", f"Solution: {[str(c) for c in col]}",
                f"The coloring is {col}", f"<think>Solution: {col}", f"Solution: {[0] * len(col)}",
                f"Solution: {many}", f"Solution: {clash}", f"**Solution:** {col}"]
    if puzzle == "game24":
        expr = str(item.gold).split("=")[0].strip()
        nums = [int(x) for x in inp["initial_state"]]
        plain = " + ".join(map(str, nums))
        return [f"Solution: {expr} = 24", f"Solution: {expr.replace('*', '×').replace('/', '÷')} = 24",
                f"Solution: ${expr}$ = 24", f"Solution: 24 = {expr}", f"**Solution:** {expr} = 24",
                "Solution: " + expr.replace("*", " \\times ").replace("/", " \\div ") + " = 24",
                "Solution: \\(" + expr + "\\) = 24", f"Solution: {plain} = 24", f"We get {expr} = 24",
                f"Solution: **{expr} = 24**", f"Solution: {expr.replace('*', '^')} = 24",
                f"Solution: {expr}\nwhich is twenty-four"]
    sol = out_["solution"]
    as_text = [[str(v) for v in row] for row in sol]
    swapped = [row[:] for row in sol]
    swapped[1][1], swapped[2][1] = swapped[2][1], swapped[1][1]
    return [f"Solution: {sol}", f"Solution: {as_text}", f"{sol}", f"<think>Solution: {sol}",
            "Solution:\n[\n" + ",\n".join(map(str, sol)) + "\n]", f"Solution: {json.dumps(sol)}",
            f"Solution: {swapped}"]


def _pick(items: list[Item], n: int, mode: str) -> list[Item]:
    """n items spread over the file: half solvable, half unsolvable (state tasks)."""
    if mode == E2E:
        return [items[i * len(items) // n] for i in range(n)]
    out: list[Item] = []
    for label in LABELS:
        of = [it for it in items if it.data["outputs"]["current_status"] == label and it.gold is not None]
        want = (n + 1) // 2 if label == "Solvable" else n // 2
        out += [of[i * len(of) // want] for i in range(want)]
    return out


def craft(bench: FineReason) -> Iterator[tuple[str, str, Item, str]]:
    for puzzle in PUZZLES:
        for it in _pick(bench.load(puzzle, SC), 3, SC):
            for t in SC_TEMPLATES:
                yield puzzle, SC, it, t(puzzle)
    for puzzle in PUZZLES:
        for it in _pick(bench.load(puzzle, ST), 8, ST):
            for text in st_templates(puzzle, it):
                yield puzzle, ST, it, text
    for puzzle in PUZZLES:
        for it in _pick(bench.load(puzzle, E2E), 3 if puzzle != "game24" else 2, E2E):
            for text in e2e_templates(puzzle, it):
                yield puzzle, E2E, it, text


# -- the official code ---------------------------------------------------------------------------------
def official_reader(checkout: Path) -> Callable[[str, str, Item, str], tuple[bool, str | None]]:
    sys.modules.setdefault("fire", types.SimpleNamespace(Fire=lambda *a, **k: None))  # type: ignore[arg-type]
    sys.path.insert(0, str(checkout))
    import data_loading  # type: ignore[import-not-found]
    import prompting  # type: ignore[import-not-found]

    def read(puzzle: str, mode: str, item: Item, text: str) -> tuple[bool, str | None]:
        sample = data_loading.Sample(inputs=item.data["inputs"], outputs=item.data["outputs"])
        prompter = prompting.select_prompter(f"{puzzle}_{TASK[mode]}")
        prompter.run(sample)
        pred = prompter.get_answer(text)
        if mode == SC:
            return pred == item.data["outputs"]["current_status"], (pred if pred in LABELS else None)
        return pred == "1", pred

    return read


def ours(bench: FineReason, mode: str, item: Item, text: str) -> tuple[bool, str | None]:
    v = score_completion(bench, item, Completion(text), mode)
    if mode == SC:
        return v.correct, v.extracted
    return v.correct, ("1" if v.correct else v.detail.get("official_error"))


def grid_sweep(bench: FineReason) -> None:
    """Every released Grid state: the official next tables of the current state (and, at an unsolvable
    state, of the parent) for every unapplied clue, beside this package's (``score_official_grid``); and the
    official verdict of the reference answer, the shown child, the parent and the current state beside ours."""
    import gridpuzzle_tree  # type: ignore[import-not-found]

    from reasoneval.benchmarks.finereason.score_official_grid import _Grid, official_grid_st

    apps = same = extra = missing = 0
    verdicts = agree = labels = 0
    official = official_reader_cached()
    for item in bench.load("gridpuzzle", ST):
        inp, out_ = item.data["inputs"], item.data["outputs"]
        sol = out_["solution"]
        domains = {h: sorted({row[j] for row in sol[1:]}) for j, h in enumerate(sol[0])}
        conds = [c["conditions"] for c in inp["clues"].values()]
        tree = gridpuzzle_tree.LogicGridPuzzleTree(inp["initial"], domains, conds)
        grid = _Grid(item.data)
        starts = [(inp["current"], inp["applied_clues"])]
        if out_["current_status"] == "Unsolvable":
            starts.append((inp["initial_to_current"][-2], inp["applied_clues"][:-1]))
        for table, applied in starts:
            for k, c in inp["clues"].items():
                if k in applied:
                    continue
                theirs = [t for t, _, _ in tree.apply_clue_to_table(c["conditions"], table)]
                ours = grid.next_tables(table, c["conditions"])
                apps += 1
                same += all(t in ours for t in theirs) and all(t in theirs for t in ours)
                missing += sum(t not in ours for t in theirs)
                extra += sum(t not in theirs for t in ours)
        for text in (f"Next state: {item.gold}", f"Next state: {inp['unsolvable_child']}",
                     f"Next state: {inp['initial_to_current'][-2]}", f"Next state: {inp['current']}"):
            want = official("gridpuzzle", ST, item, text)
            label, _ = official_grid_st(item.data, text)
            verdicts += 1
            agree += (label == "1") == want[0]
            labels += (label == "1", label) == want
    print(f"Grid sweep, 500 released states: {apps} clue applications, next tables equal in {same}; "
          f"official tables missing here {missing}, extra here {extra} (two values sent to one cell: every "
          f"winner accepted); answers = reference / shown child / parent / current state: verdicts agree "
          f"{agree}/{verdicts}, labels {labels}/{verdicts}")


_READER: list[Callable[[str, str, Item, str], tuple[bool, str | None]]] = []


def official_reader_cached() -> Callable[[str, str, Item, str], tuple[bool, str | None]]:
    return _READER[0]


def adversarial() -> None:
    """The bounded readers on the worst texts found for them: seconds per call."""
    from reasoneval.benchmarks.finereason.g24_value import MAX_CHARS, sympy_equals_24
    from reasoneval.benchmarks.finereason.score_official import (
        MAX_LITERAL_CHARS,
        last_bracket,
        python_literal,
    )
    from reasoneval.benchmarks.finereason.score_official_e2e import last_table

    def literal(text: str) -> object:
        try:
            return python_literal(text)
        except Exception as exc:  # noqa: BLE001 - the official readers catch everything
            return type(exc).__name__

    n = MAX_LITERAL_CHARS
    cases: list[tuple[str, Callable[[], object]]] = [
        ("literal_eval, 100k chars of strings", lambda: literal("[" + "'1', " * (n // 5 - 1) + "]")),
        ("literal_eval, 100k chars of nesting", lambda: literal("[" + "(" * (n - 2) + "]")),
        ("literal_eval, 100k-digit integer", lambda: literal("[" + "9" * (n - 2) + "]")),
        ("literal_eval, over the limit", lambda: literal("[" + " " * n + "]")),
        ("last [[...]] of 2 MB '[[' (regex: quadratic)", lambda: last_table("[[" * 1_000_000)),
        ("last [...] of 2 MB '['", lambda: last_bracket("[" * 2_000_000)),
        ("Game of 24, 10k signs", lambda: sympy_equals_24("-" * (MAX_CHARS - 20) + "(5+9-12)*12")),
        ("Game of 24, 10k parentheses", lambda: sympy_equals_24("(" * (MAX_CHARS // 2) + "24" + ")" * (MAX_CHARS // 2 - 2))),
        ("Game of 24, huge power", lambda: sympy_equals_24("9**9**9")),
    ]
    print("adversarial texts (seconds per call):")
    for name, fn in cases:
        t = time.perf_counter()
        got = fn()
        print(f"  {name:48s} {time.perf_counter() - t:8.4f}  -> {str(got)[:30]!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", type=Path, help="a checkout of DAMO-NLP-SG/FineReason")
    ap.add_argument("--write", type=Path, help="store the crafted answers and official verdicts (JSONL)")
    ap.add_argument("--show", type=int, default=20, help="disagreements to print")
    ap.add_argument("--grid-sweep", action="store_true", help="also compare Grid next states on every released state")
    args = ap.parse_args()
    bench = FineReason()
    bench.configure(FROptions(scoring="official"))
    corrected = FineReason()
    corrected.configure(FROptions(scoring="corrected"))
    official = official_reader(args.checkout)
    _READER.append(official)
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    shown, rows = 0, []
    t_off = t_ours = 0.0
    for puzzle, mode, item, text in craft(bench):
        t = time.perf_counter()
        want = official(puzzle, mode, item, text)
        t_off += time.perf_counter() - t
        t = time.perf_counter()
        got = ours(bench, mode, item, text)
        t_ours += time.perf_counter() - t
        c = counts[(mode, puzzle)]
        c[0] += 1
        c[1] += got[0] == want[0]
        c[2] += got == want
        c[3] += ours(corrected, mode, item, text)[0] != want[0]
        if got != want and shown < args.show:
            shown += 1
            print(f"DIFF {mode} {puzzle}/{item.id}: official={want} ours={got}\n  {text[:300]!r}")
        rows.append({"puzzle": puzzle, "mode": mode, "id": item.id, "response": text,
                     "official_correct": want[0], "official_label": want[1]})
    print(f"{'task':18s} {'puzzle':14s} {'n':>4s} {'verdict agrees':>15s} {'label agrees':>13s} "
          f"{'corrected differs':>18s}")
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for (mode, puzzle), (n, verdict, label, other) in sorted(counts.items()):
        print(f"{mode:18s} {puzzle:14s} {n:4d} {verdict:15d} {label:13d} {other:18d}")
        key = mode
        for i, x in enumerate((n, verdict, label, other)):
            totals[key][i] += x
    for key, (n, verdict, label, other) in totals.items():
        print(f"{key:33s} {n:4d} {verdict:15d} {label:13d} {other:18d}  ({100 * verdict / n:.1f}% verdicts agree)")
    print(f"time: official {t_off:.2f} s, ours {t_ours:.2f} s")
    if args.grid_sweep:
        grid_sweep(bench)
    adversarial()
    if args.write:
        with args.write.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"wrote {len(rows)} rows to {args.write}")


if __name__ == "__main__":
    main()
