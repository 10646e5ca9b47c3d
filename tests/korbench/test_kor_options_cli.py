"""Typed options end to end: -O scoring=... in the run id and report, --data with generated cipher items."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.options import KorOptions
from reasoneval.core.errors import OptionError
from reasoneval.testing.procs import FakeServerProc


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_option_errors_name_known_keys_and_allowed_values() -> None:
    with pytest.raises(OptionError, match=r"unknown korbench option 'scorin'; known: data, scoring"):
        KorOptions.parse(["scorin=corrected"], benchmark="korbench")
    with pytest.raises(OptionError, match=r"bad value 'strict'; allowed: official, corrected"):
        KorOptions.parse(["scoring=strict"])
    with pytest.raises(OptionError, match="expected key=value"):
        KorOptions.parse(["scoring"])
    o = KorOptions.parse(["scoring=corrected"], "items.jsonl")
    assert o == KorOptions(data="items.jsonl", scoring="corrected")
    assert o.identity() == {"scoring": "corrected"}  # data is represented by the data version, not its path
    assert KorOptions().identity() == {}


def test_cli_rejects_bad_options_in_one_line(tmp_path: Path) -> None:
    p = _cli("run", "korbench:operation", "-O", "scoring=nope", cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "error: korbench option 'scoring': bad value 'nope'; allowed: official, corrected"]
    p = _cli("run", "korbench:operation", "-O", "colour=red", cwd=tmp_path)
    assert p.returncode == 2 and "known: data, scoring" in p.stderr


@pytest.fixture
def cipher_items(tmp_path: Path) -> Path:
    p = _cli("generate", "korbench-cipher", "--rule", "7", "--n", "5", "--seed", "1", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    f = tmp_path / "f.jsonl"
    f.write_text(p.stdout, encoding="utf-8")
    return f


def _scripted_server(tmp_path: Path, rows: list[dict], right: set[int]) -> FakeServerProc:
    """A fake model that answers items in ``right`` with their gold (after a <think> with a wrong answer)."""
    ans = tmp_path / "answers.jsonl"
    with ans.open("w", encoding="utf-8") as fh:
        for i, r in enumerate(rows):
            reply = r["answer"] if i in right else "[[NOPE]]"
            fh.write(json.dumps({"contains": r["question"],
                                 "response": f"<think>first guess [[WRONG]]</think>So the answer is {reply}"}) + "\n")
    return FakeServerProc("--answers", str(ans))


@pytest.mark.timeout(600)
def test_generated_cipher_items_run_end_to_end_and_both_policies_stay_stored(tmp_path: Path,
                                                                           cipher_items: Path) -> None:
    rows = [json.loads(x) for x in cipher_items.read_text().splitlines()]
    srv = _scripted_server(tmp_path, rows, right={0, 1, 2})
    db = str(tmp_path / "s.db")
    try:
        common = ["--data", str(cipher_items), "--model", f"openai-compat/m@{srv.url}", "--store", db,
                  "--no-progress", "--json"]
        off = _cli("run", "korbench:cipher", *common, cwd=tmp_path)
        assert off.returncode == 0, off.stderr
        cor = _cli("run", "korbench:cipher", *common, "-O", "scoring=corrected", cwd=tmp_path)
        assert cor.returncode == 0, cor.stderr
    finally:
        srv.stop()
    ro, rc = json.loads(off.stdout), json.loads(cor.stdout)
    id_off, id_cor = ro["runs"][0]["run"]["run_id"], rc["runs"][0]["run"]["run_id"]
    assert id_off != id_cor
    assert ro["runs"][0]["run"]["spec"]["options"]["scoring"] == "official"
    assert rc["runs"][0]["run"]["spec"]["options"]["scoring"] == "corrected"
    assert ro["runs"][0]["run"]["spec"]["data_version"].startswith("file:")
    # scored against the items' own golds: official reads the raw text as the reference evaluator does, so the
    # <think> guess [[WRONG]] is its first match (none right); corrected reads the answer after it (3 of 5)
    for rep, policy, want in ((ro, "official", 0.0), (rc, "corrected", 60.0)):
        table = next(t for t in rep["tables"] if t["title"].startswith("korbench"))
        assert f"Scoring: {policy}." in table["notes"]
        cipher = table["columns"].index("Cipher")
        assert float(table["rows"][0][cipher]) == want
    # both runs stay stored, and the joint report tells them apart
    both = _cli("report", id_off, id_cor, "--store", db, "--json", cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    (main,) = [t for t in json.loads(both.stdout)["tables"] if t["title"].startswith("korbench")]
    assert [r[:2] for r in main["rows"]] == [["m", "official"], ["m", "corrected"]]  # one row per run
    # the prompt carries the item's own rule text; export rows carry prompt and gold
    out = tmp_path / "out.jsonl"
    assert _cli("export", id_off, str(out), "--store", db, cwd=tmp_path).returncode == 0
    exported = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(exported) == 5 and {r["gold"] for r in exported} == {r["answer"] for r in rows}
    own = next(r for r in rows if "rule_content" in r)
    ex = next(e for e in exported if e["gold"] == own["answer"])
    assert own["rule_content"] in ex["prompt"]["messages"][-1]["content"]


def test_data_version_follows_file_content(tmp_path: Path, cipher_items: Path) -> None:
    from reasoneval.core import registry

    b1 = registry.create("korbench", KorOptions(data=str(cipher_items)))
    v1 = b1.data_version()
    copy = tmp_path / "renamed.jsonl"
    copy.write_text(cipher_items.read_text())
    assert registry.create("korbench", KorOptions(data=str(copy))).data_version() == v1
    lines = cipher_items.read_text().splitlines()
    copy.write_text("\n".join(lines[:-1]) + "\n")
    assert registry.create("korbench", KorOptions(data=str(copy))).data_version() != v1
    assert len(b1.load("cipher", "zero-shot")) == 5 and b1.load("operation", "zero-shot") == []
