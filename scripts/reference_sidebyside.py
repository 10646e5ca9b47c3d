r"""Official scoring side by side with the reference code, on crafted answers (``scripts/crafted_answers.py``).

    python scripts/reference_sidebyside.py [--korbench PATH] [--simple-evals PATH] [--open-r1 PATH]
        [--math-verify] [--write DIR] [--show 10]

Each PATH is a checkout of the reference repository, or its bare git directory as the search tool's ``fetch``
leaves it (``/work/.mirror/KOR-Bench+KOR-Bench/repo``: the files needed are taken from ``HEAD`` into a
temporary folder). Nothing of the reference code is copied into this project: it is imported from there and run.

* ``--korbench``: KOR-Bench/KOR-Bench ``eval/eval_utils.evaluate_responses`` on raw-output records (its
  ``data/`` is read for mixed sets) vs ``reasoneval rescore korbench`` (official) on the same records;
* ``--simple-evals``: openai/simple-evals ``mmlu_eval.MMLUEval`` (its ``__call__`` with a sampler that returns
  the crafted answer) vs ``rescore mmlu``; the prompt the reference sends is compared byte for byte with ours;
* ``--math-verify``: the installed math-verify (the version pinned in constraints.txt) called as open-r1's
  ``math_500`` metric (``math_metric(gold=(LatexExtractionConfig(),), pred=(ExprExtractionConfig(),
  LatexExtractionConfig(boxed_match_priority=0)), precision=5)``) vs ``rescore gsm8k`` / ``rescore math``;
* ``--open-r1``: huggingface/open-r1's MATH template (``src/open_r1/evaluate.py`` at commit eeca246, read from
  its git history) compared byte for byte with our GSM8K / MATH prompts.

A benchmark whose reference is not given is skipped (said so). Printed: ``N equal / N total`` per benchmark and
the first differences. ``--write DIR`` stores the crafted answers with the reference verdicts as
``DIR/<bench>.json`` (the replay tests read ``tests/fixtures/reference_verdicts/``).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import json
import os
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import crafted_answers  # noqa: E402

OPEN_R1_COMMIT = "eeca246"  # "Update prompt template and sampling parameters for evaluation (#392)"
PINNED_MATH_VERIFY = "0.9.0"


# --------------------------------------------------------------------------- checkouts

@contextlib.contextmanager
def work_tree(path: Path, needed: list[str]) -> Iterator[Path]:
    """``path`` itself when it is a checkout, else ``needed`` taken from its ``HEAD`` into a temporary folder."""
    if all((path / n).exists() for n in needed):
        yield path
        return
    with tempfile.TemporaryDirectory() as tmp:
        arch = subprocess.run(["git", "--git-dir", str(path), "archive", "HEAD", *needed], capture_output=True,
                              check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=arch, check=True)
        yield Path(tmp)


@contextlib.contextmanager
def chdir(p: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(p)
    try:
        yield
    finally:
        os.chdir(old)


# --------------------------------------------------------------------------- reference verdicts

def korbench_reference(root: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    sys.path[:0] = [str(root), str(root / "eval")]
    with chdir(root):
        eu = importlib.import_module("eval_utils")
        out = []
        for c in cases:
            if "question_list" in c:
                rec = {"idx": c["idx"], "response": c["response"], "question_list": c["question_list"]}
                r = eu.evaluate_responses([rec], None, "mixed")[0]
                out.append({"correct": bool(r["is_correct"]), "pass_rate": float(r["pass_rate"])})
                continue
            rec = {k: c[k] for k in ("idx", "response", "answer", "rule_id")}
            if "real_life_answer" in c:
                rec["real_life_answer"] = c["real_life_answer"]
            r = eu.evaluate_responses([rec], c["category"], "zero-shot")[0]
            got = {"correct": bool(r["is_correct"])}
            if "is_real_life" in r:
                got["real_life"] = bool(r["is_real_life"])
            out.append(got)
    return out


def simple_evals_reference(root: Path, cases: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    pkg = types.ModuleType("simple_evals_ref")
    pkg.__path__ = [str(root)]
    sys.modules["simple_evals_ref"] = pkg
    mm = importlib.import_module("simple_evals_ref.mmlu_eval")
    st = importlib.import_module("simple_evals_ref.types")
    os.environ["debug"] = "1"  # map_with_progress without threads
    class Sampler(st.SamplerBase):  # type: ignore[name-defined,misc]
        """Answers every prompt with one crafted response and keeps the prompts it was sent."""

        def __init__(self, response: str) -> None:
            self.response, self.sent = response, []

        def _pack_message(self, content: str, role: str) -> dict[str, str]:
            return {"content": content, "role": role}

        def __call__(self, messages: list[dict[str, str]]) -> Any:
            self.sent.append(messages[-1]["content"])
            return st.SamplerResponse(response_text=self.response, actual_queried_message_list=messages,
                                      response_metadata={})

    out, prompts = [], []
    for c in cases:
        sampler = Sampler(c["response"])
        ev = mm.MMLUEval.__new__(mm.MMLUEval)
        ev.examples = [{"Question": c["question"], "A": c["choices"][0], "B": c["choices"][1], "C": c["choices"][2],
                        "D": c["choices"][3], "Answer": c["answer"], "Subject": c["subject"]}]
        with contextlib.redirect_stderr(io.StringIO()):
            res = ev(sampler)
        out.append({"correct": bool(res.score == 1.0)})
        prompts.append(sampler.sent[0])
    return out, prompts


def math_verify_reference(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import logging
    from importlib.metadata import version

    from math_verify import ExprExtractionConfig, LatexExtractionConfig
    from math_verify.metric import math_metric

    got = version("math-verify")
    if got != PINNED_MATH_VERIFY:
        print(f"warning: math-verify {got} installed, {PINNED_MATH_VERIFY} pinned", file=sys.stderr)
    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    metric = math_metric(gold_extraction_target=(LatexExtractionConfig(),),
                         pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig(boxed_match_priority=0)),
                         aggregation_function=max, precision=5)
    out = []
    for c in cases:
        gold = c["solution"] if c["bench"] == "math" else "\\boxed{" + c["gold"] + "}"
        score, _ = metric([gold], [c["response"]])
        out.append({"correct": bool(score == 1.0)})
    return out


def open_r1_template(path: Path) -> str:
    src = subprocess.run(["git", "--git-dir", str(path), "show", f"{OPEN_R1_COMMIT}:src/open_r1/evaluate.py"],
                         capture_output=True, text=True, check=True).stdout if not (path / "src").is_dir() else \
        subprocess.run(["git", "-C", str(path), "show", f"{OPEN_R1_COMMIT}:src/open_r1/evaluate.py"],
                       capture_output=True, text=True, check=True).stdout
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MATH_QUERY_TEMPLATE":
            call = node.value
            assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            assert call.func.attr == "strip" and isinstance(call.func.value, ast.Constant)
            return str(call.func.value.value).strip()
    raise SystemExit("no MATH_QUERY_TEMPLATE in open-r1's evaluate.py")


# --------------------------------------------------------------------------- our official verdicts

def korbench_ours(cases: list[dict[str, Any]], scoring: str = "official") -> list[dict[str, Any]]:
    from reasoneval.benchmarks.korbench.rescore import Rescorer
    from reasoneval.benchmarks.korbench.score_corrected import policy

    with tempfile.TemporaryDirectory() as tmp:
        where: dict[str, int] = {}
        files: dict[str, list[dict[str, Any]]] = {}
        for i, c in enumerate(cases):
            mode = "mixed" if "question_list" in c else "zero-shot"
            name = f"crafted_{c['category']}_{mode}.jsonl"
            rec = {k: v for k, v in c.items() if k not in ("bench", "category") and v is not None}
            files.setdefault(name, []).append(rec)
            where[f"{Path(tmp) / name}:{len(files[name])}"] = i
        for name, recs in files.items():
            (Path(tmp) / name).write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
        res = Rescorer(policy(scoring)).run([tmp])
        assert not res.errors, res.errors[:3]
        out: list[dict[str, Any]] = [{} for _ in cases]
        for s in res.items:
            got: dict[str, Any] = {"correct": s.correct}
            if s.real_life is not None:
                got["real_life"] = s.real_life
            if s.pass_rate is not None:
                got["pass_rate"] = s.pass_rate
            out[where[s.row.where]] = got
    return out


def release_row(c: dict[str, Any]) -> dict[str, Any]:
    keep = {"mmlu": ("question", "choices", "answer", "subject"), "gsm8k": ("question", "answer"),
            "math": ("problem", "solution", "answer", "subject", "level", "unique_id")}[c["bench"]]
    row = {k: c[k] for k in keep}
    row["response"] = c["response"]
    if c.get("finish_reason"):
        row["finish_reason"] = c["finish_reason"]
    return row


def split_ours(name: str, cases: list[dict[str, Any]], scoring: str = "official") -> list[dict[str, Any]]:
    from reasoneval.core import registry
    from reasoneval.runner.rescore_outside import score_outside

    bench = registry.create(name)
    bench.configure({"scoring": scoring})
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "rows.jsonl"
        f.write_text("".join(json.dumps(release_row(c)) + "\n" for c in cases), encoding="utf-8")
        got = score_outside(bench, bench.outside_rows([str(f)], {}), {})
    assert not got.errors, got.errors[:3]
    return [{"correct": vs[-1].correct} for vs in got.verdicts]


def our_prompt(c: dict[str, Any]) -> str:
    from reasoneval.benchmarks.mmlu.prompts import build_prompt
    from reasoneval.scoring.math_answer import boxed_cot_text

    if c["bench"] == "mmlu":
        content = build_prompt(c["question"], c["choices"]).messages[0].content
        assert isinstance(content, str)
        return content
    return boxed_cot_text(c["question"] if c["bench"] == "gsm8k" else c["problem"])


# --------------------------------------------------------------------------- comparison

def compare(name: str, cases: list[dict[str, Any]], ref: list[dict[str, Any]], ours: list[dict[str, Any]],
            show: int, corrected: list[dict[str, Any]] | None = None) -> int:
    diffs = [(c, r, o) for c, r, o in zip(cases, ref, ours, strict=True) if r != o]
    print(f"{name}: {len(cases) - len(diffs)} equal / {len(cases)} total (official)")
    if corrected is not None:
        same = sum(r["correct"] == o["correct"] for r, o in zip(ref, corrected, strict=True))
        print(f"{name}: corrected scoring: {same} equal / {len(cases)} total, {len(cases) - same} differ by design "
              "(rescore --diff names each cause)")
    for c, r, o in diffs[:show]:
        print(f"  differs: reference={r} ours={o} response={c['response'][:120]!r} finish={c.get('finish_reason')}")
    return len(diffs)


def write(out_dir: Path | None, name: str, about: str, cases: list[dict[str, Any]], ref: list[dict[str, Any]]) -> None:
    if out_dir is None:
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = {"about": f"Crafted answers (scripts/crafted_answers.py) with the verdicts OBTAINED BY RUNNING THE "
                    f"REFERENCE CODE ({about}) through scripts/reference_sidebyside.py; not computed by reasoneval.",
           "cases": [{**c, "reference": r} for c, r in zip(cases, ref, strict=True)]}
    (out_dir / f"{name}.json").write_text(json.dumps(doc, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--korbench", type=Path)
    ap.add_argument("--simple-evals", type=Path)
    ap.add_argument("--open-r1", type=Path)
    ap.add_argument("--math-verify", action="store_true", help="run the installed (pinned) math-verify")
    ap.add_argument("--write", type=Path, help="store cases + reference verdicts as DIR/<bench>.json")
    ap.add_argument("--show", type=int, default=10)
    a = ap.parse_args(argv)
    for opt in ("korbench", "simple_evals", "open_r1"):
        path = getattr(a, opt)
        if path is not None and not path.exists():
            print(f"--{opt.replace('_', '-')} {path}: no such checkout, skipped")
            setattr(a, opt, None)
    bad = 0
    if a.korbench:
        from reasoneval.benchmarks.korbench.data import default_data

        cases = crafted_answers.korbench_cases(default_data())
        with work_tree(a.korbench.resolve(), ["eval", "utils", "config", "data"]) as root:
            ref = korbench_reference(root, cases)
        bad += compare("korbench", cases, ref, korbench_ours(cases), a.show, korbench_ours(cases, "corrected"))
        write(a.write, "korbench", "KOR-Bench/KOR-Bench eval/eval_utils.py evaluate_responses", cases, ref)
    else:
        print("korbench: skipped (no --korbench checkout)")
    if a.simple_evals:
        cases = crafted_answers.mmlu_cases()
        with work_tree(a.simple_evals.resolve(), ["common.py", "mmlu_eval.py", "types.py"]) as root:
            ref, prompts = simple_evals_reference(root, cases)
        bad += compare("mmlu", cases, ref, split_ours("mmlu", cases), a.show, split_ours("mmlu", cases, "corrected"))
        same = sum(p == our_prompt(c) for p, c in zip(prompts, cases, strict=True))
        print(f"mmlu prompts: {same} byte-identical / {len(cases)} total")
        bad += len(cases) - same
        write(a.write, "mmlu", "openai/simple-evals mmlu_eval.MMLUEval with common.py's multilingual pattern",
              cases, ref)
    else:
        print("mmlu: skipped (no --simple-evals checkout)")
    if a.math_verify:
        for name, cases in (("gsm8k", crafted_answers.gsm8k_cases()), ("math", crafted_answers.math_cases())):
            ref = math_verify_reference(cases)
            bad += compare(name, cases, ref, split_ours(name, cases), a.show, split_ours(name, cases, "corrected"))
            write(a.write, name, f"math-verify {PINNED_MATH_VERIFY} math_metric as open-r1's math_500 metric "
                                 "calls it, precision=5", cases, ref)
    else:
        print("gsm8k, math: skipped (no --math-verify)")
    if a.open_r1:
        template = open_r1_template(a.open_r1.resolve())
        cases = crafted_answers.gsm8k_cases()[:1] + crafted_answers.math_cases()[:1]
        same = sum(template.format(Question=c.get("question") or c["problem"]) == our_prompt(c) for c in cases)
        print(f"gsm8k/math prompts: {same} byte-identical / {len(cases)} total (open-r1 {OPEN_R1_COMMIT})")
        bad += len(cases) - same
    else:
        print("gsm8k/math prompts: skipped (no --open-r1 checkout)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
