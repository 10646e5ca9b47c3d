"""MetaMathQA from the Hub for `finereason export` (pinned, cached, offline), against the fake Hub; local files."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reasoneval.benchmarks.finereason.cli import app as fr_app
from reasoneval.benchmarks.finereason.export import load_math
from reasoneval.core.errors import DataError
from reasoneval.hub import fetch
from reasoneval.hub.releases import RELEASES, release
from reasoneval.testing.fake_hub import FakeHub

REPO = "meta-math/MetaMathQA"


def metamath(tag: str, n: int = 12) -> bytes:
    rows = [{"query": f"{tag} question {i}: what is {i} times 3?", "response": f"{i} * 3 = {3 * i}.\n"
             f"The answer is: {3 * i}", "type": "GSM_AnsAug", "original_question": f"q{i}"} for i in range(n)]
    return json.dumps(rows).encode()


def _forget() -> None:
    fetch._MEMO.clear()
    fetch._COMMITS.clear()


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    hub = FakeHub()
    hub.commit(REPO, {"MetaMathQA-395K.json": metamath("v1"), "README.md": b"---\nlicense: mit\n---\n# fake\n"})
    hub.repos[REPO].lfs = lambda p: p.endswith(".json")  # the real file is stored in LFS
    # the fake Hub's commits are its own: the packaged pin (a real Hub sha) is replaced by its main
    monkeypatch.setitem(RELEASES, "metamathqa", dataclasses.replace(release("metamathqa"), revision="main"))
    monkeypatch.setenv("HF_ENDPOINT", hub.start())
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    _forget()
    yield hub
    hub.stop()
    _forget()


def export(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    res = CliRunner().invoke(fr_app, ["export", *args])
    rows = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    return res.exit_code, rows, res.stderr


def test_metamathqa_from_the_hub_pinned_cached_offline(hub: FakeHub) -> None:
    v1 = hub.repos[REPO].refs["main"]
    code, rows, err = export("hub:metamathqa", "--total", "6", "--math-ratio", "1.0", "--seed", "2")
    assert code == 0, err
    assert len(rows) == 6 and all(r["source"] == "math" and r["prompt"][0]["content"]
                                  .startswith("v1 question") for r in rows)
    assert all(r["gold"] == str(3 * int(r["prompt"][0]["content"].split()[2].rstrip(":"))) for r in rows)
    assert hub.requests["get"] >= 1
    before = dict(hub.requests)

    _forget()  # a new process: offline, from the cache alone, no request at all
    code, again, err = export("hub:metamathqa", "--total", "6", "--math-ratio", "1.0", "--seed", "2", "--offline")
    assert code == 0, err
    assert again == rows and dict(hub.requests) == before

    hub.commit(REPO, {"MetaMathQA-395K.json": metamath("v2"), "README.md": b"# fake\n"})
    _forget()
    code, new, _ = export("hub:metamathqa", "--total", "3", "--math-ratio", "1.0")
    assert code == 0 and new[0]["prompt"][0]["content"].startswith("v2")
    code, old, _ = export(f"hub:metamathqa@{v1}", "--total", "3", "--math-ratio", "1.0")
    assert code == 0 and old[0]["prompt"][0]["content"].startswith("v1")


def test_hub_math_errors_are_one_line(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = export("hub:gsm-nope", "--total", "3", "--math-ratio", "1.0")
    assert code == 2 and err.strip().splitlines() == [
        "error: unknown Hub math set 'gsm-nope'; known: metamathqa (or give a local file)"]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty"))
    _forget()
    code, _, err = export("hub:metamathqa", "--total", "3", "--math-ratio", "1.0", "--offline")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "offline" in err and REPO in err
    assert "a local copy of MetaMathQA-395K.json" in err and "reasoneval run" not in err
    code, _, err = export(str(tmp_path / "missing.jsonl"), "--total", "3", "--math-ratio", "1.0")
    assert code == 2 and "missing.jsonl: no such math file" in err


def test_local_metamathqa_json_and_bad_rows(tmp_path: Path) -> None:
    f = tmp_path / "MetaMathQA-395K.json"
    f.write_bytes(metamath("local", 4))
    assert load_math(f)[3] == {"question": "local question 3: what is 3 times 3?",
                               "answer": "3 * 3 = 9.\nThe answer is: 9"}
    code, rows, err = export(str(f), "--total", "4", "--math-ratio", "1.0")
    assert code == 0, err
    assert sorted(r["gold"] for r in rows) == ["0", "3", "6", "9"]
    lines = tmp_path / "lines.json"  # JSON lines under a .json name, as FineReason's own releases are
    lines.write_text("".join(json.dumps(r) + "\n" for r in json.loads(metamath("jl", 3))))
    assert [m["question"] for m in load_math(lines)] == [f"jl question {i}: what is {i} times 3?" for i in range(3)]
    lines.write_text(lines.read_text() + "{oops\n")
    with pytest.raises(DataError, match=r"lines.json:4: invalid JSON"):
        load_math(lines)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"query": "q", "response": "a"}, {"query": "q2"}]))
    with pytest.raises(DataError, match=r"bad.json: row 2: no question/answer fields"):
        load_math(bad)
    nogold = tmp_path / "nogold.jsonl"
    nogold.write_text(json.dumps({"question": "Explain why.", "answer": "Because\nof reasons."}) + "\n")
    code, _, err = export(str(nogold), "--total", "1", "--math-ratio", "1.0")
    assert code == 0 and "warning: 1 math sample(s) have no final answer" in err


def test_data_pull_metamathqa_then_export_offline(hub: FakeHub) -> None:
    from reasoneval.cli.data import app as hub_app

    res = CliRunner().invoke(hub_app, ["pull", "metamathqa"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"{REPO} default: {hub.repos[REPO].refs['main']} (main), 1 file(s)")
    assert not RELEASES["metamathqa"].pull_all  # a bare `data pull` fetches the benchmarks, not training sets
    assert CliRunner().invoke(hub_app, ["verify", "metamathqa"]).stdout.strip() == "1 file(s) checked, 0 bad"
    _forget()
    hub.stop()
    code, rows, err = export("hub:metamathqa", "--total", "2", "--math-ratio", "1.0", "--offline")
    assert code == 0 and len(rows) == 2, err


def test_sweep_records_the_hub_commit_of_its_math(hub: FakeHub, tmp_path: Path) -> None:
    recipe = tmp_path / "r.yaml"
    recipe.write_text("math: hub:metamathqa\npuzzles: [game24]\ndefaults: {total: 4}\n"
                      "sweeps:\n  only_math: {vary: {math_ratio: [1.0]}}\n")
    res = CliRunner().invoke(fr_app, ["sweep", str(recipe), str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    man = json.loads((tmp_path / "out" / "only_math" / "rm1.manifest.json").read_text())
    sha = hub.repos[REPO].refs["main"]
    assert man["math"]["source"] == f"hf:{REPO}@{sha}" and man["math"]["revision"] == "main"
    assert man["math"]["files"][0]["path"] == "MetaMathQA-395K.json" and len(man["math"]["files"][0]["sha256"]) == 64
    assert man["counts"]["by_source"] == {"math": 4}


def test_metamathqa_is_pinned_to_a_commit() -> None:
    assert re.fullmatch(r"[0-9a-f]{40}", release("metamathqa").revision)
