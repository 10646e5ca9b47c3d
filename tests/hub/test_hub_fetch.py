"""Download, cache hit, offline reuse, corruption, revision pinning and errors against the fake Hub."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hubdata import G365, RBENCH, forget, g365_files, rbench_files
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core import registry
from reasoneval.core.values import GenParams
from reasoneval.hub import HubError, pull, resolve_release, set_offline
from reasoneval.hub.cache import sha256_file
from reasoneval.hub.config_files import config_files
from reasoneval.runner.spec import RunSpec


def test_download_then_cache_hit(hub_env):
    rel = pull("rbench", "rbench-t_en")
    assert rel.commit == hub_env.repos[RBENCH].refs["main"]
    assert [p for p, _ in rel.files] == ["rbench-t_en/test-00000-of-00001.parquet"]
    local = rel.paths[0]
    assert f"datasets--R-Bench--R-Bench/snapshots/{rel.commit}/" in local.as_posix()
    assert local.read_bytes() == rbench_files()["rbench-t_en/test-00000-of-00001.parquet"]
    assert rel.files[0][1] == sha256_file(local)
    assert hub_env.requests["get"] >= 1
    before = hub_env.requests["get"] + hub_env.requests["head"]
    forget()
    again = pull("rbench", "rbench-t_en")
    assert again.paths == rel.paths
    assert hub_env.requests["get"] + hub_env.requests["head"] == before  # no file request: cache hit
    assert hub_env.requests["info"] >= 1  # the revision is still resolved online


def test_only_the_config_is_downloaded(hub_env):
    pull("rbench", "rbench-m_en")
    files = [p.split("/resolve/", 1)[1] for p in hub_env.paths if p.startswith("GET /datasets/")]
    assert all(f.split("/", 1)[1] in ("README.md", "rbench-m_en/test-00000-of-00001.parquet") for f in files), files


def test_offline_reuse_without_any_request(hub_env, monkeypatch):
    rel = pull("rbench", "rbench-t_zh")
    hub_env.stop()
    forget()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    n = len(hub_env.paths)
    again = resolve_release("rbench", "rbench-t_zh")
    assert (again.commit, again.paths, again.files) == (rel.commit, rel.paths, rel.files)
    assert len(hub_env.paths) == n
    with pytest.raises(HubError, match=r"offline: R-Bench/R-Bench@main .*config rbench-m_zh is not in the cache"):
        pull("rbench", "rbench-m_zh")


def test_unreachable_hub_falls_back_to_the_cache(hub_env, capsys):
    rel = pull("general365")
    hub_env.stop()
    forget()
    again = pull("general365")
    assert again.commit == rel.commit
    assert "unreachable" in capsys.readouterr().err


def test_unreachable_hub_without_cache_says_what_to_do(hub_env):
    hub_env.stop()
    with pytest.raises(HubError) as e:
        pull("rbench", "rbench-t_en")
    msg = str(e.value)
    assert "\n" not in msg and "cannot download R-Bench/R-Bench@main" in msg
    assert "reasoneval data pull rbench" in msg and "reasoneval run rbench --data PATH" in msg


def test_revision_pinning(hub_env):
    old = hub_env.repos[RBENCH].refs["main"]
    new = hub_env.commit(RBENCH, rbench_files(tag=" v2", n=4))  # main moves on
    latest = pull("rbench", "rbench-t_en")
    assert latest.commit == new and latest.revision == "main"
    forget()
    pinned = pull("rbench", "rbench-t_en", revision=old)
    assert pinned.commit == old and pinned.paths[0].read_bytes() == rbench_files()["rbench-t_en/test-00000-of-00001.parquet"]
    forget()
    assert resolve_release("rbench", "rbench-t_en", revision=old).commit == old
    # a pinned commit that is cached needs no request at all
    hub_env.stop()
    forget()
    assert pull("rbench", "rbench-t_en", revision=old).commit == old


def test_corrupted_file_is_detected(hub_env):
    rel = pull("rbench", "rbench-t_en")
    blob = Path(os.path.realpath(rel.paths[0]))
    blob.chmod(0o644)
    blob.write_bytes(blob.read_bytes()[:-5] + b"XXXXX")
    res = CliRunner().invoke(app, ["data", "verify", "rbench"])
    assert res.exit_code == 1, res.output
    assert "CORRUPT R-Bench/R-Bench@" in res.output and "rbench-t_en/test-00000-of-00001.parquet" in res.output
    forget()
    with pytest.raises(HubError, match="corrupted in the cache"):
        pull("rbench", "rbench-t_en")
    forget()
    fixed = pull("rbench", "rbench-t_en", force=True)
    assert fixed.paths[0].read_bytes() == rbench_files()["rbench-t_en/test-00000-of-00001.parquet"]
    res = CliRunner().invoke(app, ["data", "verify"])
    assert res.exit_code == 0 and "0 bad" in res.output


def test_gated_repo_gives_one_clear_line(hub_env):
    hub_env.gated.add(RBENCH)
    res = CliRunner().invoke(app, ["data", "pull", "rbench:t_en"])
    assert res.exit_code == 2
    err = res.stderr if hasattr(res, "stderr") else res.output
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "gated" in lines[0] and "HF_TOKEN" in lines[0], err


def test_missing_repo_and_revision(hub_env):
    with pytest.raises(HubError, match="revision 'nope' of R-Bench/R-Bench does not exist"):
        pull("rbench", "rbench-t_en", revision="nope")
    del hub_env.repos[G365]
    with pytest.raises(HubError, match="meituan-longcat/General365_Public was not found"):
        pull("general365")


def test_data_pull_and_list_cli(hub_env):
    r = CliRunner().invoke(app, ["data", "pull", "rbench:t_en,m_en"])
    assert r.exit_code == 0, r.output
    sha = hub_env.repos[RBENCH].refs["main"]
    assert f"R-Bench/R-Bench rbench-t_en: {sha} (main), 1 file(s)" in r.output
    assert "rbench-m_en" in r.output and "rbench-t_zh" not in r.output
    r = CliRunner().invoke(app, ["data", "list"])
    assert r.exit_code == 0
    assert f"pinned main -> {sha}" in r.output and f"* {sha} rbench-m_en: 1 file(s)" in r.output


def test_config_files_from_card_and_from_names():
    paths = ["README.md", ".gitattributes", "data/test-00000-of-00001.parquet", "extra/notes.json",
             "rbench-t_en/test-00000-of-00001.parquet", "rbench-t_zh/test-00000-of-00001.parquet",
             "rbench-t_en.jsonl", "data/rbench-m_en-00000-of-00002.parquet"]
    card = "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test-*\n---\n"
    assert config_files(paths, "default", card) == ["data/test-00000-of-00001.parquet"]
    assert config_files(paths, "rbench-t_en") == ["rbench-t_en.jsonl", "rbench-t_en/test-00000-of-00001.parquet"]
    assert config_files(paths, "rbench-m_en") == ["data/rbench-m_en-00000-of-00002.parquet"]
    assert config_files(paths, "rbench-m_zh") == []


def test_run_offline_switch_uses_the_cache_only(hub_env):
    """``reasoneval run --offline`` (hub.set_offline): no request at all, though the Hub is up."""
    rel = pull("rbench", "rbench-t_zh")
    forget()
    n = len(hub_env.paths)
    set_offline(True)
    try:
        again = resolve_release("rbench", "rbench-t_zh")
        assert (again.commit, again.paths) == (rel.commit, rel.paths)
        with pytest.raises(HubError, match=r"offline: R-Bench/R-Bench@main .*config rbench-m_zh is not in the cache"):
            pull("rbench", "rbench-m_zh")
    finally:
        set_offline(False)
    assert len(hub_env.paths) == n


def test_revision_is_a_run_option_in_the_run_id(hub_env, monkeypatch):
    old = hub_env.repos[RBENCH].refs["main"]
    new = hub_env.commit(RBENCH, rbench_files(tag=" v2", n=4))
    monkeypatch.setenv("REASONEVAL_RBENCH_REVISION", new)  # no longer read: configuration is an option
    pinned = registry.create("rbench", {"revision": old})
    latest = registry.create("rbench", {})
    assert len(pinned.load("t_en", "cot")) == 7 and len(latest.load("t_en", "cot")) == 4
    assert pinned.data_version().startswith(f"hf:R-Bench/R-Bench@{old} (revision {old}); ")
    assert latest.data_version().startswith(f"hf:R-Bench/R-Bench@{new} (revision main); ")
    assert pinned.options.identity() == {"revision": old} and latest.options.identity() == {}
    ids = {RunSpec("rbench", "t_en", "cot", "m", GenParams(), options=b.options, data_version=b.data_version()).run_id()
           for b in (pinned, latest)}
    assert len(ids) == 2
    g_old = hub_env.repos[G365].refs["main"]
    hub_env.commit(G365, {**g365_files(), "README.md": g365_files()["README.md"] + b"\n"})
    g = registry.create("general365", {"revision": g_old})
    assert len(g.load("test", "paper")) == 6
    assert g.data_version().startswith(f"hf:{G365}@{g_old} (revision {g_old}); ")
