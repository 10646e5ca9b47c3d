"""``reasoneval rm`` deletes runs (completions, verdicts, items rows; not the cache); ``reasoneval show`` puts one
item of several runs side by side with the differences marked."""

from __future__ import annotations

import html.parser
from pathlib import Path

from report_fixtures import fill_store
from typer.testing import CliRunner

from reasoneval.cli import app
from reasoneval.core.values import Completion, Prompt, Usage
from reasoneval.report.compare import word_diff
from reasoneval.store.sqlite import INSERT_CACHE, RunStore


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "runs.db"
    st, _ = fill_store(path)
    st.db.execute(INSERT_CACHE, ("cache-key-1", "cached", "stop", 1, 2, 0.1, 0.0, None, None, None))
    st.db.execute("CREATE TABLE items (run_id TEXT, item_key TEXT)")
    st.db.executemany("INSERT INTO items VALUES (?, ?)", [("run_zero_1", "a"), ("run_zero_1", "b"), ("run_sc_2", "c")])
    st.close()
    return path


def _counts(path: Path) -> dict[str, int]:
    st = RunStore(path, readonly=True)
    out = {t: int(st.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
           for t in ("runs", "completions", "verdicts", "cache", "items")}
    out["zero"] = int(st.db.execute("SELECT COUNT(*) FROM completions WHERE run_id='run_zero_1'").fetchone()[0])
    st.close()
    return out


def test_rm_deletes_run_rows_and_keeps_the_cache(tmp_path: Path) -> None:
    path = _store(tmp_path)
    before = _counts(path)
    assert before["zero"] == 20 and before["runs"] == 2
    res = CliRunner().invoke(app, ["rm", "run_zero", "--store", str(path), "--yes"])
    assert res.exit_code == 0, res.output
    after = _counts(path)
    assert after["runs"] == 1 and after["zero"] == 0
    assert after["completions"] == before["completions"] - 20
    assert after["verdicts"] == before["verdicts"] - 20
    assert after["items"] == 1  # only run_sc_2's row is left
    assert after["cache"] == before["cache"] >= 1
    assert "deleted 1 run(s): 20 completions, 20 verdicts, 2 items rows" in res.output


def test_rm_without_yes_deletes_nothing_and_says_how(tmp_path: Path) -> None:
    path = _store(tmp_path)
    before = _counts(path)
    res = CliRunner().invoke(app, ["rm", "run_sc_2", "--store", str(path)])
    assert res.exit_code == 2
    assert "would delete 1 run(s)" in res.output and "add --yes" in res.output and "run_sc_2" in res.output
    assert _counts(path) == before


def test_rm_unknown_or_ambiguous_run_is_one_line(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = CliRunner().invoke(app, ["rm", "nope", "--store", str(path), "--yes"])
    assert res.exit_code == 2 and res.output.strip().startswith("error: no run matching 'nope'")
    res = CliRunner().invoke(app, ["rm", "run_", "--store", str(path), "--yes"])
    assert res.exit_code == 2 and "matches 2 runs" in res.output
    assert _counts(path)["runs"] == 2


def test_rm_refuses_a_run_that_is_running(tmp_path: Path) -> None:
    path = _store(tmp_path)
    st = RunStore(path)
    with st.run_lock("run_sc_2"):
        res = CliRunner().invoke(app, ["rm", "run_sc_2", "--store", str(path), "--yes"])
    st.close()
    assert res.exit_code != 0 and "already running" in str(res.exception or res.output)
    assert _counts(path)["runs"] == 2


def test_word_diff_marks_only_changed_words() -> None:
    got = word_diff("the answer is [[7]] because 3+4", "the answer is [[8]] because 3+5")
    assert [p for ch, p in got if ch] == ["[[8]]", "3+5"]
    assert "".join(p for _, p in got) == "the answer is [[8]] because 3+5"
    assert word_diff("same text", "same text") == [(False, "same text")]


def test_show_side_by_side_marks_differences(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = CliRunner().invoke(app, ["show", "alpha/3", "run_zero_1", "run_sc_2", "--store", str(path)])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "item alpha/3: 2 answer(s); reference: toy-model [run_zero_1]" in out  # display names
    # run_zero_1 answered the hostile text (incorrect); run_sc_2's last round got 10 (correct): marked
    assert "== ≠ other-model [run_sc_2] (self-correction): correct · extracted 10" in out
    assert "[+Round 3: [[10]]+]" in out
    assert "\x1b" not in out  # not a terminal: no colour codes


def test_show_strips_control_codes_and_html_escapes(tmp_path: Path) -> None:
    path = _store(tmp_path)
    st = RunStore(path)
    for run in ("run_zero_1", "run_sc_2"):
        st.put_completion(run, "evil/1", 0, 0, "answer", "alpha", Prompt.chat("q"), f"e{run}",
                          Completion(f"\x1b]0;pwned\x07 <script>alert({run})</script>", "stop", Usage(1, 1), 0.1))
    st.close()
    res = CliRunner().invoke(app, ["show", "evil/1", "run_zero_1", "run_sc_2", "--store", str(path)])
    assert res.exit_code == 0 and "\x1b" not in res.output and "\x07" not in res.output
    page = tmp_path / "cmp.html"
    res = CliRunner().invoke(app, ["show", "evil/1", "run_zero_1", "run_sc_2", "--store", str(path),
                                   "--html", str(page)])
    assert res.exit_code == 0, res.output
    text = page.read_text()
    assert "<script" not in text and "&lt;script&gt;alert(run_sc_2)" in text
    tags: list[str] = []

    class P(html.parser.HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            tags.append(tag)

    P().feed(text)
    assert tags.count("ins") >= 1 and "script" not in tags


def test_show_missing_item_is_one_line(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = CliRunner().invoke(app, ["show", "beta/1", "run_zero_1", "run_sc_2", "--store", str(path)])
    assert res.exit_code == 2 and res.output.strip() == "error: run run_sc_2 has no item 'beta/1'"
