"""Many stored runs of the shipped benchmarks, quickly: what the report's scale tests and
``bench/report_screenshot.py`` draw (a test helper: it names benchmarks, so it lives beside the tests).

:func:`fill_models` writes, for each of ``n`` models, the runs every report plot draws from, straight through
:class:`~reasoneval.store.sqlite.RunStore` (no model is called): KOR-Bench zero-shot (five categories,
counterfactual verdicts with ``real_life``), trick (puzzle), self-correction (three rounds), cipher sub-steps
(typed verdicts), and FineReason state checking (depth, empty cells, solvable/unsolvable gold). Model strings
carry an endpoint (``openai-compat/<name>@http://127.0.0.1:<port>/v1``), as served models do; past 4 models
one model is also served on a second port and one run is made with ``scoring=corrected``, so labels must tell
those apart. Outcomes are seeded pseudo-random around a per-model skill: the same ``n`` gives the same store.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.store.sqlite import RunStore

FAMILIES = ("Qwen2.5", "Llama-3.1", "Mistral", "gemma-2", "DeepSeek-R1-Distill-Qwen", "Phi-3.5", "Yi-1.5",
            "internlm2.5", "glm-4", "OLMo-2", "falcon3", "granite-3.1")
SIZES = ("0.5B", "1.5B", "3B", "7B", "14B")
KOR_CATEGORIES = ("operation", "logic", "cipher", "puzzle", "counterfactual")
SUBSTEP_TYPES = ("lookup", "shift", "encrypt", "decrypt")


def model_names(n: int) -> list[str]:
    """``n`` distinct model names (family x size), longest families first so labels get long."""
    return [f"{FAMILIES[i % len(FAMILIES)]}-{SIZES[(i // len(FAMILIES)) % len(SIZES)]}-Instruct"
            + (f"-v{i // (len(FAMILIES) * len(SIZES))}" if i >= len(FAMILIES) * len(SIZES) else "")
            for i in range(n)]


def _spec(bench: str, mode: str, model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"benchmark": bench, "subset": None, "mode": mode, "model": model,
            "params": {"max_tokens": 1024, "temperature": None, "top_p": None, "stop": [], "seed": None},
            "samples": 1, "seed": 0, "limit": None, "judge": None, "options": options or {"scoring": "official"},
            "package_version": "test", "data_version": f"{bench}-generated", "prompt_version": "p1"}


class _Writer:
    def __init__(self, st: RunStore, rng: random.Random) -> None:
        self.st, self.rng = st, rng
        self.runs: list[str] = []

    def run(self, run_id: str, bench: str, mode: str, model: str, options: dict[str, Any] | None = None) -> str:
        self.st.upsert_run(run_id, bench, "*", mode, model, _spec(bench, mode, model, options))
        self.st.set_status(run_id, "done")
        self.runs.append(run_id)
        return run_id

    def answer(self, run_id: str, key: str, subset: str, turn: int, ok: bool, detail: dict[str, Any],
               extracted: str | None = None) -> None:
        c = Completion(f"The answer is [[{extracted or key}]].", "stop", Usage(120, self.rng.randint(40, 900)), 0.2)
        self.st.put_completion(run_id, key, 0, turn, "answer", subset, Prompt.chat(f"question {key}"),
                               f"{run_id}:{key}:{turn}", c)
        self.st.put_verdict(run_id, key, 0, turn, "default",
                            Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, extracted or "x", "generated",
                                    detail))


def fill_models(path: Path, n: int, items: int = 6, seed: int = 0) -> list[str]:
    """Write the runs of ``n`` models into the store at ``path``; returns their run ids."""
    rng = random.Random(seed)
    st = RunStore(path)
    w = _Writer(st, rng)
    names = model_names(n)
    for m, name in enumerate(names):
        skill = 0.15 + 0.7 * (m + 0.5) / n
        model = f"openai-compat/{name}@http://127.0.0.1:{18900 + m}/v1"
        tag = f"m{m:03d}"

        def hit(p: float) -> bool:
            return rng.random() < max(0.02, min(0.98, p))

        rid = w.run(f"{tag}_zero", "korbench", "zero-shot", model)
        for cat in KOR_CATEGORIES:
            for i in range(items):
                ok = hit(skill + (0.2 if cat == "operation" else -0.2 if cat == "puzzle" else 0.0))
                detail: dict[str, Any] = {"gold": str(i)}
                if cat == "counterfactual":
                    detail["real_life"] = not ok and hit(0.5)
                w.answer(rid, f"{cat}/{i}", cat, 0, ok, detail)
        if m == 1:  # the same served model behind another port: one display name, told apart by endpoint
            rid = w.run(f"{tag}_port2", "korbench", "zero-shot", model.replace(str(18900 + m), "28931"))
            for cat in KOR_CATEGORIES:
                for i in range(items):
                    w.answer(rid, f"{cat}/{i}", cat, 0, hit(skill), {"gold": str(i)})
        if m == 2:  # another scoring option: told apart by "(corrected)"
            rid = w.run(f"{tag}_corr", "korbench", "zero-shot", model, {"scoring": "corrected"})
            for cat in KOR_CATEGORIES:
                for i in range(items):
                    w.answer(rid, f"{cat}/{i}", cat, 0, hit(skill + 0.05), {"gold": str(i)})
        rid = w.run(f"{tag}_trick", "korbench", "trick", model)
        for i in range(items):
            w.answer(rid, f"puzzle/{i}", "puzzle", 0, hit(skill - 0.1), {"gold": str(i)})
        rid = w.run(f"{tag}_sc", "korbench", "self-correction", model)
        for i in range(items):
            right_at = next((t for t in range(3) if hit(skill + 0.1 * t)), 9)
            for t in range(min(right_at, 2) + 1):
                w.answer(rid, f"operation/{i}", "operation", t, t >= right_at, {"gold": str(i), "round": t + 1})
        rid = w.run(f"{tag}_subq", "korbench", "subquestions", model)
        for i in range(2 * items):
            typ = SUBSTEP_TYPES[i % len(SUBSTEP_TYPES)]
            w.answer(rid, f"cipher/{i}", "cipher", 0, hit(skill - 0.1 * (i % 3)), {"type": typ, "gold": str(i)})
        rid = w.run(f"{tag}_fr", "finereason", "state-checking", model)
        for puzzle, count in (("sudoku", 2 * items), ("graphcoloring", items)):
            for i in range(count):
                gold = "unsolvable" if i % 2 else "solvable"
                depth = 1 + i % 4
                empty = 5 + (i * 7) % 60
                ok = hit(skill + 0.3 - empty / 100)
                said = gold if ok else ("solvable" if gold == "unsolvable" else "unsolvable")
                w.answer(rid, f"{puzzle}/{i}", puzzle, 0, ok, {"gold": gold, "depth": depth, "empty_cells": empty},
                         said)
    st.flush()
    st.close()
    return w.runs
