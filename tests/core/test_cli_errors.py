"""Clear one-line errors for unknown benchmark/model, unreachable servers, unknown runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reasoneval.testing.procs import free_port


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def _one_line_error(p: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = [x for x in p.stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_unknown_benchmark(tmp_path: Path) -> None:
    _one_line_error(_cli("run", "nosuchbench", cwd=tmp_path), "unknown benchmark 'nosuchbench'", "toy")


def test_unknown_subset_and_mode(tmp_path: Path) -> None:
    _one_line_error(_cli("run", "toy:zzz", cwd=tmp_path), "unknown subset 'zzz'")
    _one_line_error(_cli("run", "toy", "--mode", "nope", cwd=tmp_path), "unknown mode 'nope'")


def test_unknown_model(tmp_path: Path) -> None:
    _one_line_error(_cli("run", "toy", "--model", "foo/bar", cwd=tmp_path), "unknown model kind 'foo'")


def test_unreachable_server(tmp_path: Path) -> None:
    port = free_port()
    p = _cli("run", "toy", "--model", f"openai-compat/m@http://127.0.0.1:{port}/v1", cwd=tmp_path)
    _one_line_error(p, "cannot reach", f"127.0.0.1:{port}")


def test_unknown_run(tmp_path: Path) -> None:
    from reasoneval.store.sqlite import RunStore

    RunStore(tmp_path / "x.db").close()
    _one_line_error(_cli("report", "deadbeef", "--store", str(tmp_path / "x.db"), cwd=tmp_path),
                    "no run matching 'deadbeef'")


def test_score_and_export_roundtrip(tmp_path: Path, fake_server) -> None:
    db = str(tmp_path / "s.db")
    r = _cli("run", "toy:a", "--model", f"openai-compat/m@{fake_server.url}", "--store", db, "--no-progress",
             "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import json

    rep = json.loads(r.stdout)
    run_id = rep["runs"][0]["run"]["run_id"]
    before = fake_server.stats()["requests"]
    s = _cli("score", run_id[:6], "--store", db, "--json", cwd=tmp_path)
    assert s.returncode == 0, s.stderr
    assert json.loads(s.stdout)["tables"] == rep["tables"]  # re-scoring reproduces the verdicts
    assert fake_server.stats()["requests"] == before  # and called no model
    e = _cli("export", run_id, str(tmp_path / "out.jsonl"), "--store", db, cwd=tmp_path)
    assert e.returncode == 0, e.stderr
    rows = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == 30 and all(r["verdict"]["outcome"] in ("correct", "incorrect") for r in rows)
    md = _cli("report", run_id, "--store", db, "--md", str(tmp_path / "t.md"), "--csv", str(tmp_path / "t.csv"),
              cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    assert "| subset |" in (tmp_path / "t.md").read_text()
    assert (tmp_path / "t.csv").read_text().startswith("model,subset,n,accuracy")
