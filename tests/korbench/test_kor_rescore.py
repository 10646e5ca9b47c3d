"""`reasoneval rescore korbench PATH...`: file naming, JSONL output, tables, bad rows, official-vs-corrected diff."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import IO, Any

import pytest

from reasoneval.benchmarks.korbench.benchmark import KorBench
from reasoneval.benchmarks.korbench.rawfiles import RawFileError, parse_name
from reasoneval.benchmarks.korbench.rescore import Rescorer, diff
from reasoneval.benchmarks.korbench.score_corrected import CORRECTED
from reasoneval.cli.rescore_output import rescore_outside
from reasoneval.core.errors import OptionError
from reasoneval.scoring.latexcmp import LatexCanonicalizer


@pytest.mark.parametrize(
    ("name", "model", "category", "mode"),
    [
        ("gpt-4o_cipher_zero-shot.jsonl", "gpt-4o", "cipher", "zero-shot"),
        ("my_model_v2_logic_three-shot.jsonl", "my_model_v2", "logic", "three-shot"),
        ("gpt-4o_puzzle_trick.jsonl", "gpt-4o", "puzzle", "trick"),
        ("gpt-4o_cipher_subquestions.jsonl", "gpt-4o", "cipher", "subquestions"),
        ("m_Multi-RQ_Hard_mixed.jsonl", "m", "Multi-RQ_Hard", "mixed"),
        ("m_mixed_Multi-Q.jsonl", "m", "Multi-Q", "mixed"),
        ("m_operation_self-correction-with-needle.jsonl", "m", "operation", "self-correction-with-needle"),
    ],
)
def test_parse_name(name: str, model: str, category: str, mode: str) -> None:
    f = parse_name(name)
    assert (f.model, f.category, f.mode) == (model, category, mode)


@pytest.mark.parametrize("name", ["gpt-4o_cipher.jsonl", "x_nocat_zero-shot.jsonl", "x_logic_trick.jsonl",
                                  "x_logic_mixed.jsonl", "a.txt"])
def test_bad_names(name: str) -> None:
    with pytest.raises(RawFileError):
        parse_name(name)



def run_cli(paths: list[str], jsonl: bool, options: dict[str, Any], out: IO[str], err: IO[str]) -> int:
    """``reasoneval rescore korbench PATHS [--jsonl] [-O scoring=...] [--diff]``, as the CLI runs it."""
    bench = KorBench()
    try:
        bench.configure({k: v for k, v in options.items() if k in bench.Options.known()})
    except OptionError as e:
        print(f"error: {e}", file=err)
        return 2
    return rescore_outside(bench, list(paths), jsonl, {**bench.options.to_json(), **options}, out, err)

@pytest.fixture
def small_dir(korbench_outputs: Path, tmp_path: Path) -> Path:
    for name in ("gpt-4o_cipher_zero-shot.jsonl", "gpt-4o_counterfactual_zero-shot.jsonl"):
        shutil.copy(korbench_outputs / "main" / name, tmp_path / name)
    return tmp_path


def test_jsonl_output(small_dir: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_cli([str(small_dir)], True, {}, out, err) == 0
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(rows) == 500
    assert all(list(r) == ["model", "category", "mode", "idx", "correct", "real_life", "cut_off"] for r in rows)
    cf = [r for r in rows if r["category"] == "counterfactual"]
    assert sum(r["correct"] for r in cf) == 230 and sum(r["real_life"] for r in cf) == 12  # 92.00 (4.80)
    assert all(r["real_life"] is None for r in rows if r["category"] == "cipher")


def test_bad_rows_reported_and_rest_scored(small_dir: Path) -> None:
    p = small_dir / "gpt-4o_cipher_zero-shot.jsonl"
    lines = p.read_text(encoding="utf-8").split("\n")
    lines[3] = "{broken"
    rec = json.loads(lines[5])
    del rec["answer"]
    lines[5] = json.dumps(rec)
    p.write_text("\n".join(lines), encoding="utf-8")
    (small_dir / "notes.jsonl").write_text("{}\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run_cli([str(small_dir)], False, {}, out, err) == 1
    e = err.getvalue()
    assert f"{p}:4: invalid JSON" in e and f"{p}:6: missing field 'answer'" in e and "notes.jsonl" in e
    text = out.getvalue()
    assert "KOR-Bench (Table 2 layout)" in text and "92.00 (4.80)" in text


def test_corrected_option_and_diff(korbench_outputs: Path, latex: LatexCanonicalizer) -> None:
    paths = [str(korbench_outputs / "main" / n) for n in
             ("gpt-4o_operation_zero-shot.jsonl", "gpt-4o_logic_zero-shot.jsonl", "Qwen2.5-7B_operation_three-shot.jsonl")]
    off = Rescorer(lc=latex).run(paths)
    cor = Rescorer(CORRECTED, lc=latex).run(paths)
    dis = diff(off, cor, latex)
    n_diff = sum(a.correct != b.correct for a, b in zip(off.items, cor.items, strict=True))
    assert len(dis) == n_diff > 0
    reasons = {d.reason for d in dis}
    assert "last [[...]] match instead of the first" in reasons
    assert all(d.reason for d in dis)
    assert all("\t" in d.line() for d in dis)


def test_cli_diff_and_scoring_option(small_dir: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_cli([str(small_dir)], False, {"scoring": "corrected", "diff": True}, out, err) == 0
    text = out.getvalue()
    assert "[corrected scoring]" in text and "official vs corrected:" in text
    assert run_cli([str(small_dir)], False, {"scoring": "bogus"}, io.StringIO(), err) == 2


def test_no_files(tmp_path: Path) -> None:
    err = io.StringIO()
    assert run_cli([str(tmp_path / "missing")], False, {}, io.StringIO(), err) == 1
    assert "no such file" in err.getvalue()


def _mixed_file(path: Path, set_name: str, n: int, wrong_every: int) -> None:
    from reasoneval.benchmarks.korbench.data import default_data

    data = default_data()
    lines = []
    for k, m in enumerate(data.mixed(set_name)[:n]):
        answers = [data.question(c, i).answer for c, i in m.questions]
        if wrong_every and k % wrong_every == 0:
            answers[-1] = "[[definitely wrong]]"
        body = {f"question{j + 1}": a for j, a in enumerate(answers)}
        lines.append(json.dumps({"idx": m.idx, "rule_list": [f"{c}_{i}" for c, i in m.rules],
                                 "question_list": [f"{c}_{i}" for c, i in m.questions],
                                 "response": "Answers:\n" + json.dumps(body, indent=2)}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_mixed_files_table3(tmp_path: Path, latex: LatexCanonicalizer) -> None:
    from reasoneval.benchmarks.korbench.rescore import tables

    _mixed_file(tmp_path / "toy_Multi-Q_mixed.jsonl", "Multi-Q", 20, 2)
    _mixed_file(tmp_path / "toy_Multi-R_mixed.jsonl", "Multi-R", 10, 0)
    res = Rescorer(lc=latex).run([str(tmp_path)])
    assert res.errors == []
    (t3,) = tables(res)
    assert t3.columns == ["model", "Overall", "Multi-Q", "Multi-R", "Multi-RQ"]
    q = [s for s in res.items if s.file.category == "Multi-Q"]
    pass_q = 100 * sum(s.pass_rate or 0 for s in q) / len(q)
    assert t3.rows[0][2] == f"50.00 ({pass_q:.2f})"
    assert t3.rows[0][3] == "100.00" and t3.rows[0][4] == "-"
    assert t3.rows[0][1] == "n/a (no Multi-RQ items)"  # Overall pools all three sets, or does not exist


def test_diff_names_think_removal_and_truncation() -> None:
    """``rescore --diff``'s cause for the two readings official leaves to the reference: the raw text (a
    ``[[...]]`` in the reasoning is its first match) and a cut-off output (read as it is, flagged)."""
    from reasoneval.benchmarks.korbench.benchmark import KorBench
    from reasoneval.core.benchmark import OutsideRow
    from reasoneval.core.response import Response
    from reasoneval.core.values import Completion

    bench = KorBench("official")
    (item,) = [it for it in bench.load("operation", "zero-shot") if it.id == "1"]
    assert item.gold == "[[24]]"

    def both(text: str, finish: str | None = None) -> tuple[bool, bool, str]:
        r = Response.of(text, finish)
        off = bench.score_response(item, r, "zero-shot")
        cor = KorBench("corrected").score_response(item, r, "zero-shot")
        assert off.detail["cut_off"] is r.truncated and "cut_off" not in cor.detail
        row = OutsideRow(item, "zero-shot", Completion(text, finish))
        return off.correct, cor.correct, bench.diff_reason(row, r.final)

    ok_off, ok_cor, why = both("<think>maybe [[25]]</think>\n[[24]]")
    assert (ok_off, ok_cor) == (False, True) and "<think> sections removed" in why  # (so does "last match")
    ok_off, ok_cor, why = both("<think>working... the answer is [[24]]")
    assert (ok_off, ok_cor) == (True, False)
    assert "<think> sections removed" in why and "cut-off output" in why
    ok_off, _, why = both("So [[24]]", "length")  # cut at the token limit: official keeps the verdict
    assert ok_off and why == "cut-off output (token limit / unclosed <think>) has no answer"
