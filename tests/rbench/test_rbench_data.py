from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from reasoneval.benchmarks.rbench.benchmark import RBench
from reasoneval.benchmarks.rbench.prompts import render_text
from reasoneval.core import registry
from reasoneval.core.errors import DataError

FIX = Path(__file__).parents[1] / "fixtures" / "rbench"
PAPER_BOX = (
    "Answer the following single-choice question. The last line of your response should be of the following "
    "format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of the Options (e.g. one of ABCDEF). Think "
    "step by step before answering. Question: {Question Input} A. {OptionA} B. {OptionB} C. {OptionC} "
    "D. {OptionD} E. {OptionE} F. {OptionF} Answer:")


def bench(path: Path | str) -> RBench:
    b = RBench()
    b.configure({"data": str(path)})
    return b


def test_hf_parquet_layout_loads_every_config() -> None:
    b = bench(FIX / "hf")
    counts = {s: len(b.load(s, "cot")) for s in b.subsets()}
    assert counts == {"t_en": 3, "t_zh": 3, "m_en": 2, "m_zh": 2}
    a1 = b.load("t_en", "cot")[0]  # paper Appendix A.1
    assert a1.id == "0" and a1.gold == "D"
    assert a1.data["_rbench"]["options"]["D"] == "900"
    assert a1.data["_rbench"]["options"]["C"] == "All other answers are incorrect"
    assert b.load("t_zh", "cot")[0].data["_rbench"]["options"]["C"] == "其他答案都不正确"
    assert b.data_version() not in ("unconfigured", "empty")


def test_own_jsonl_layout_with_departments_and_image_files() -> None:
    b = bench(FIX / "own")
    items = b.load("t_en", "cot")
    assert [(i.id, i.gold, i.data["_rbench"]["department"]) for i in items][0] == ("q0", "D", "Biology")
    m = b.load("m_en", "cot")
    assert m[1].data["_rbench"]["options"] == {"A": "3", "B": "4", "C": "5", "D": "6"}  # empty E/F dropped
    with pytest.raises(DataError, match="no data files for config rbench-m_zh"):
        b.load("m_zh", "cot")


def test_multimodal_prompt_is_openai_image_content_parts() -> None:
    b = bench(FIX / "hf")
    item = b.load("m_en", "cot")[0]
    p = b.prompt(item, "cot")
    (msg,) = p.messages
    assert msg.role == "user" and isinstance(msg.content, list)
    img, text = msg.content
    assert img["type"] == "image_url"
    url = img["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]).startswith(b"\x89PNG")
    assert text["type"] == "text" and "brick clamp" in text["text"]
    json.dumps(p.to_json())  # storable
    own = bench(FIX / "own").load("m_en", "cot")[0]
    assert bench(FIX / "own").prompt(own, "cot").messages[0].content[0]["image_url"]["url"].startswith("data:image/png")


def test_text_prompt_matches_paper_template() -> None:
    opts = {k: f"{{Option{k}}}" for k in "ABCDEF"}
    text = render_text("{Question Input}", opts, "en", "cot")
    assert " ".join(text.split()) == PAPER_BOX
    no_cot = render_text("Q", opts, "en", "no-cot")
    assert "Think step by step" not in no_cot and no_cot.startswith("Answer the following single-choice question.")
    zh = render_text("问", opts, "zh", "cot")
    assert "答案是$LETTER" in zh and zh.splitlines()[1] == "问题: 问" and zh.endswith("答案:")
    assert "逐步思考" not in render_text("问", opts, "zh", "no-cot")


def test_missing_data_tells_where_to_put_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # no local path and an empty HF cache, offline: the Hub release cannot be used either (tests/hub downloads)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("REASONEVAL_RBENCH_PATH", str(FIX / "hf"))  # no longer read: the path is --data
    with pytest.raises(DataError) as e:
        RBench().load("t_en", "cot")
    assert "reasoneval run rbench --data PATH" in str(e.value) and "reasoneval data pull rbench" in str(e.value)
    assert len(registry.create("rbench", {"data": str(FIX / "hf")}).load("t_en", "cot")) == 3
    with pytest.raises(DataError, match="--data .*missing-dir: no such file or folder"):
        registry.create("rbench", {"data": str(tmp_path / "missing-dir")}).load("t_en", "cot")


def _write(tmp: Path, name: str, rows: list[dict]) -> Path:
    p = tmp / name
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return p


GOOD = {"id": "1", "question": "Q?", "options": {"A": "x", "B": "y"}, "answer": "A"}


@pytest.mark.parametrize("bad, field", [
    ({k: v for k, v in GOOD.items() if k != "answer"}, "'answer'"),
    ({**GOOD, "answer": "G"}, "'answer'"),
    ({**GOOD, "question": 3}, "'question'"),
    ({**GOOD, "options": {"A": "only"}}, "options"),
    ({k: v for k, v in GOOD.items() if k != "id"}, "'index'"),
])
def test_bad_rows_name_file_row_and_field(tmp_path: Path, bad: dict, field: str) -> None:
    p = _write(tmp_path, "rbench-t_en.jsonl", [GOOD, bad])
    with pytest.raises(DataError) as e:
        bench(tmp_path).load("t_en", "cot")
    msg = str(e.value)
    assert str(p) in msg and "row 2" in msg and field in msg


def test_multimodal_rows_need_an_image(tmp_path: Path) -> None:
    _write(tmp_path, "rbench-m_en.jsonl", [GOOD])
    with pytest.raises(DataError, match=re.escape("row 1: field 'image'")):
        bench(tmp_path).load("m_en", "cot")
    _write(tmp_path, "rbench-m_zh.jsonl", [{**GOOD, "images": ["missing.png"]}])
    with pytest.raises(DataError, match="missing.png"):
        bench(tmp_path).load("m_zh", "cot")


def test_single_file_rows_declare_their_config(tmp_path: Path) -> None:
    p = _write(tmp_path, "mine.jsonl", [{**GOOD, "subset": "t_en"}, {**GOOD, "id": "2", "subset": "rbench-t_zh"}])
    b = bench(p)
    assert [i.id for i in b.load("t_en", "cot")] == ["1"]
    assert [i.id for i in b.load("t_zh", "cot")] == ["2"]
    q = _write(tmp_path, "plain.jsonl", [GOOD])
    with pytest.raises(DataError, match="'subset'"):
        bench(q).load("t_en", "cot")


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    _write(tmp_path, "t_en.jsonl", [GOOD, GOOD])
    with pytest.raises(DataError, match="duplicate id '1'"):
        bench(tmp_path).load("t_en", "cot")
