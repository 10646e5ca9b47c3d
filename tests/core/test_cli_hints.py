"""What a newcomer's first mistakes get: a base URL without ``/v1`` stops at the first 404 with the URL meant, a
subset written after a space is named with its colon, a bad ``--reasoning-effort`` is refused before anything
starts, and the exit status says when some items failed (``test_cli_feedback.py``)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cliutil import one_line_error

from reasoneval.core.values import REASONING_EFFORTS
from reasoneval.models.anthropic import EFFORT_SHARE
from reasoneval.models.http_backend import missing_v1
from reasoneval.runner.errors import error_kind
from reasoneval.runner.launch import SpecError, plan_run


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reasoneval.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


# ---- a base URL without /v1 ---------------------------------------------------------------------------------


def test_a_base_url_without_v1_stops_at_the_first_404_and_names_the_url_meant(tmp_path: Path, make_server) -> None:
    srv = make_server("--delay", "0")
    base = srv.url.removesuffix("/v1")  # http://127.0.0.1:PORT: every route of the server is under /v1
    t0 = time.monotonic()
    p = _cli("run", "toy", "--model", f"openai-compat/m@{base}", "--store", "s.db", "--no-progress",
             "--concurrency", "2", cwd=tmp_path)
    took = time.monotonic() - t0
    assert p.returncode == 2, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: HTTP 404 from {base}/chat/completions: "), last
    assert '{"detail": "Not Found"}' in last  # the server's whole answer, not cut at its first colon
    assert f"did you mean {base}/v1?" in last and "Traceback" not in p.stderr
    assert " x HTTP 404" not in p.stderr  # not 50 items failing one by one
    db = sqlite3.connect(tmp_path / "s.db")
    assert db.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 0  # no item recorded as failed
    assert db.execute("SELECT status FROM runs").fetchall() == [("interrupted",)]
    assert took < 60
    ok = _cli("run", "toy", "--model", f"openai-compat/m@{base}/v1", "--store", "s.db", "--no-progress",
              cwd=tmp_path)  # the URL the hint names answers
    assert ok.returncode == 0, ok.stderr


def test_a_404_under_v1_stays_an_item_error_with_its_kind_uncut(tmp_path: Path, make_server) -> None:
    srv = make_server("--delay", "0", "--faults", "404", "--fail-every", "2")  # {"error": "status 404"}
    p = _cli("run", "toy:a", "--limit", "6", "--model", f"openai-compat/m@{srv.url}", "--no-progress",
             cwd=tmp_path)
    assert p.returncode == 3, p.stderr
    assert "  3 x HTTP 404 from <server>\n" in p.stderr and "did you mean" not in p.stderr


@pytest.mark.parametrize("url, path, meant", [
    ("http://127.0.0.1:8000", "/chat/completions", "http://127.0.0.1:8000/v1"),
    ("http://host:8000/", "/completions", "http://host:8000/v1"),
    ("https://api.example.com/v1", "/chat/completions", None),  # a 404 there is the server's own (a model name)
    ("https://generativelanguage.googleapis.com/v1beta/openai", "/chat/completions", None),
    ("https://api.anthropic.com", "/v1/messages", None),
])
def test_missing_v1_names_the_url_meant_only_without_any_v1(url: str, path: str, meant: str | None) -> None:
    hint = missing_v1(url, path)
    assert (hint is None) == (meant is None)
    if meant is not None:
        assert hint is not None and hint.startswith(f"did you mean {meant}?")


@pytest.mark.parametrize("message, kind", [
    ('HTTP 404 from http://127.0.0.1:8000: {"detail": "Not Found"}', "HTTP 404 from <server>"),
    ('gave up after 7 attempts: HTTP 500 from https://h.example/v1: {"error": {"message": "x"}}',
     "HTTP 500 from <server>"),
    ("cannot reach http://127.0.0.1:9/v1: ClientConnectorError", "cannot reach <server>: ClientConnectorError"),
    ("malformed response from http://h:1/v1: ValueError: bad", "malformed response from <server>"),
])
def test_error_kinds_keep_the_colon_after_the_url(message: str, kind: str) -> None:
    assert error_kind(message) == kind


# ---- a subset after a space, a mode as a word ---------------------------------------------------------------


@pytest.mark.parametrize("args, needle", [
    (["toy", "a"], "did you mean toy:a?"),
    (["toy", "a", "b"], "did you mean toy:a,b?"),
    (["toy:a", "b"], "did you mean toy:a,b?"),
    (["toy", "retry"], "did you mean --mode retry?"),
    (["toy", "zzz"], "unexpected argument 'zzz'"),
])
def test_words_after_the_target_are_one_line_naming_what_was_meant(tmp_path: Path, args: list[str],
                                                                   needle: str) -> None:
    one_line_error(_cli("run", *args, "--limit", "2", cwd=tmp_path), needle)
    assert not (tmp_path / "reasoneval.db").exists()


# ---- --reasoning-effort --------------------------------------------------------------------------------------


def test_a_bad_reasoning_effort_is_refused_before_any_model_is_asked(tmp_path: Path) -> None:
    # port 1: nothing listens there, so an error naming the effort shows nothing was loaded or reached first
    p = _cli("run", "toy", "--reasoning-effort", "hihg", "--model", "openai-compat/m@http://127.0.0.1:1/v1",
             cwd=tmp_path)
    one_line_error(p, "--reasoning-effort 'hihg'", ", ".join(REASONING_EFFORTS), "--extra-body")
    assert not (tmp_path / "reasoneval.db").exists()


def test_the_api_refuses_the_same_effort_and_every_effort_has_an_anthropic_budget() -> None:
    with pytest.raises(SpecError, match="--reasoning-effort 'max'"):
        plan_run("toy", "openai-compat/m@http://127.0.0.1:1/v1", reasoning_effort="max")
    _, spec = plan_run("toy", "openai-compat/m@http://127.0.0.1:1/v1", reasoning_effort="low")
    assert spec.params.reasoning_effort == "low"
    assert tuple(EFFORT_SHARE) == REASONING_EFFORTS


# ---- exit status in --help ----------------------------------------------------------------------------------


def test_run_help_states_the_exit_statuses_and_shows_the_option_groups(tmp_path: Path) -> None:
    out = " ".join(_cli("run", "--help", cwd=tmp_path).stdout.replace("│", " ").split())
    assert "Exit status: 0 every item answered; 3 the run finished but some items failed" in out
    for panel in ("Items", "Generation", "HTTP limits", "Ray", "Resume and redo", "Output"):
        assert f"─ {panel} ─" in out, panel
