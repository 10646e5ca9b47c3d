"""Crafted mixed-set answers scored side by side by the KOR-Bench reference evaluator and by our official scoring.

    python scripts/korbench_mixed_crafted.py CHECKOUT [--items 40] [--seed 5]

CHECKOUT is a checkout of github.com/KOR-Bench/KOR-Bench (its ``eval/eval_utils.py`` is imported from there and
run as it is; nothing of it is copied here; it needs its ``data/`` folder, SymPy and antlr4 4.11). For
``--items`` random items of each of Multi-Q, Multi-R and Multi-RQ, 21 answer forms are built from the golds:
JSON values as strings, as ``[[3]]`` lists, nested lists, bare numbers and strings, objects, booleans / null /
floats, fewer and more values, control characters, broken JSON, text after the object, duplicate keys,
``$\\boxed{}$`` and single brackets, single quotes, no JSON. Printed: how many agree on every per-question
verdict, the pass rate and the item verdict, then the first differences.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

from reasoneval.benchmarks.korbench.data import default_data
from reasoneval.benchmarks.korbench.mixed import judge_mixed
from reasoneval.benchmarks.korbench.score_official import OFFICIAL, finish


def _num(s: str) -> Any:
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def answers(golds: list[str]) -> list[str]:
    inner = [g[2:-2] if g.startswith("[[") and g.endswith("]]") else g for g in golds]

    def d(vals: list[Any]) -> dict[str, Any]:
        return {f"question{i + 1}": v for i, v in enumerate(vals)}

    return [
        json.dumps(d(golds)),
        "Sure:\n```json\n" + json.dumps(d(golds), indent=2) + "\n```\nDone.",
        json.dumps(d([[[_num(x)]] for x in inner])),
        json.dumps(d([[[x]] for x in inner])),
        json.dumps(d([_num(x) for x in inner])),
        json.dumps(d(inner)),
        json.dumps(d([{"answer": g} for g in golds])),
        json.dumps(d([True, None, 3.0, 1e3, -2][: len(golds)])),
        json.dumps(d(golds[:-1])) if len(golds) > 1 else "{}",
        json.dumps(d([*golds, "[[extra]]"])),
        json.dumps(d(golds)).replace(", ", ",\t\n"),
        json.dumps(d(golds))[:-1],
        json.dumps(d(golds)) + " and later {x}",
        '{"question1": "[[A]]", "question1": ' + json.dumps(golds[0]) + "}",
        json.dumps(d([f"$\\boxed{{{x}}}$" for x in inner])),
        json.dumps(d([f"[ {x} ]" for x in inner])),
        json.dumps(d([f"[[ {x} ]] or [[nope]]" for x in inner])),
        json.dumps(d([[_num(x), "y"] for x in inner])),
        json.dumps(d([[[_num(x)], [_num(x)]] for x in inner])),
        json.dumps(d(golds), ensure_ascii=False).replace('"', "'"),
        "no json at all",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--items", type=int, default=40, help="items per mixed set")
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args(argv)
    root = a.checkout.resolve()
    if not (root / "eval" / "eval_utils.py").is_file():
        print(f"error: {root}: no eval/eval_utils.py (a KOR-Bench checkout?)", file=sys.stderr)
        return 2
    sys.path[:0] = [str(root), str(root / "eval")]
    os.chdir(root)  # the reference reads data/<category>/sample.jsonl relative to the working directory
    import eval_utils as ref  # type: ignore[import-not-found]

    data, rng = default_data(), random.Random(a.seed)
    n = agree = 0
    diffs = []
    for subset in ("Multi-Q", "Multi-R", "Multi-RQ"):
        for m in rng.sample(data.mixed(subset), a.items):
            qs = [data.question(c, i) for c, i in m.questions]
            names = [f"{c}_{i}" for c, i in m.questions]
            for text in answers([q.answer for q in qs]):
                r = ref.compute_one_mixed_question_pass_rate(m.idx, names, ref.extract_json(text))
                ms = judge_mixed(text, qs, OFFICIAL)
                per = [bool(finish(j).correct) for j in ms.judgements]
                ours = (per, sum(per) / len(qs) if ms.parsed else 0, ms.parsed and sum(per) == len(qs))
                theirs = ([x["is_correct"] for x in (r["details"] or [])], r["pass_rate"], r["is_correct"])
                n += 1
                if ours[0] == theirs[0] and abs(ours[1] - theirs[1]) < 1e-12 and ours[2] == theirs[2]:
                    agree += 1
                else:
                    diffs.append((subset, m.idx, ascii(text[:100]), ours, theirs))
    print(f"{agree}/{n} crafted mixed answers agree with the reference")
    for x in diffs[:10]:
        print(*x)
    return 0 if agree == n else 1


if __name__ == "__main__":
    sys.exit(main())
