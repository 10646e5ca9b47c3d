"""Issue 36, defects 1, 2 and 8 (refusals, tool calls, content filter), against the fault server, streamed and
plain: one choice per request (index 0), event streams parsed to the WHATWG rules, a partial answer never stored
as complete, and replies that are not plain answers stored as what they are.

``--faults X,X,X --fail-every 5`` gives 10 of the toy benchmark's 50 prompts the fault on all three attempts of
``retries=2``; every other prompt is answered normally.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import toybench  # noqa: F401
from test_response_faults import STREAM, _errors_only, _run, _split

from reasoneval.core.values import Outcome
from reasoneval.models.choices import FILTERED
from reasoneval.models.limits import ResponseLimits, SSEReader
from reasoneval.models.validate import ResponseRejected
from reasoneval.report.collect import view
from reasoneval.store.sqlite import RunStore
from reasoneval.testing.fake_openai import OTHER_CHOICE, REFUSAL_TEXT, TOOL_CALL, answer_for


def _asked(row: Any) -> str:
    return str(row.turns[0].prompt.last_user_text())


def _rows(store: RunStore, res: Any) -> list[Any]:
    return view(store, res.run_id).rows


# ---- defect 1: several choices are never merged --------------------------------------------------------------


@pytest.mark.parametrize("stream", STREAM)
def test_only_choice_0_is_read_when_a_server_sends_two(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "nchoices,nchoices,nchoices", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, answered = _split(store, res)  # every answer's extracted word is its prompt's last word
    assert not failed and srv.stats()["nchoices"] == 10
    for r in answered:
        text = r.final.completion.text
        assert text == answer_for(_asked(r)), text  # choice 0 whole, nothing of choice 1 mixed in
        assert "nothing" not in text and OTHER_CHOICE.split()[0] not in text


def test_asking_for_n_answers_per_request_is_refused(tmp_path: Path) -> None:
    from reasoneval.core.values import GenParams, Prompt
    from reasoneval.models.base import ModelError
    from reasoneval.models.openai_compat import OpenAICompatBackend

    b = OpenAICompatBackend("openai-compat/m@http://127.0.0.1:1/v1", "m", ["http://127.0.0.1:1/v1"], None)
    with pytest.raises(ModelError, match='"n": 2 asks the server for several answers'):
        b._body(Prompt.chat("hi"), GenParams(extra_body='{"n": 2}'))
    assert b._body(Prompt.chat("hi"), GenParams(extra_body='{"n": 1}'))[1]["n"] == 1  # one answer: fine
    cmd = [sys.executable, "-m", "reasoneval", "run", "toy", "--model", "openai-compat/m@http://127.0.0.1:1/v1",
           "--store", str(tmp_path / "s.db"), "--extra-body", '{"n": 3}']
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "--samples" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert not (tmp_path / "s.db").exists()  # refused before anything was made


# ---- defect 2: event streams read to the letter ---------------------------------------------------------------


@pytest.mark.parametrize("stream", STREAM)
@pytest.mark.parametrize("fault", ["multiline", "crlf", "bom"])
def test_event_stream_syntax_is_read_whole(tmp_path: Path, make_server, stream: bool, fault: str) -> None:
    srv = make_server("--stream", "--faults", f"{fault},{fault},{fault}", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, answered = _split(store, res)
    assert not failed and len(answered) == 50 and srv.stats()[fault] == 10
    for r in answered:  # the whole answer, never its second half (bom) nor a malformed error (multiline)
        assert r.final.completion.text == answer_for(_asked(r))
        assert r.final.completion.finish_reason == "stop"


def test_a_broken_event_is_retried_never_scored(tmp_path: Path, make_server) -> None:
    srv = make_server("--stream", "--faults", "brokenevent,brokenevent,brokenevent", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, True)
    failed, answered = _split(store, res)
    assert len(failed) == 10 and len(answered) == 40 and srv.stats()["brokenevent"] == 30  # 3 attempts each
    _errors_only(failed, "malformed response")


class _Content:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def iter_any(self) -> Any:
        for c in self.chunks:
            yield c


class _Resp:
    content_length = None
    headers: dict[str, str] = {}

    def __init__(self, chunks: list[bytes]) -> None:
        self.content = _Content(chunks)


def _events(chunks: list[bytes]) -> tuple[list[dict[str, Any]], SSEReader]:
    import asyncio

    reader = SSEReader(_Resp(chunks), ResponseLimits())  # type: ignore[arg-type]

    async def go() -> list[dict[str, Any]]:
        return [ev async for ev in reader]

    return asyncio.run(go()), reader


def test_sse_parser_follows_the_whatwg_rules() -> None:
    # a BOM split across chunks, CR / CR LF / LF line ends (a CR LF split across chunks), comments, id, retry,
    # several data lines joined with a line feed, one space after the colon dropped, a field without a colon
    whole = (b"\xef\xbb\xbfdata: {\"a\":\r\ndata:  1}\r\n\r\n: ping\rid: 7\rretry: 1500\revent: message\rdata\r"
             b"data:{\"b\": \"x\\ny\"}\r\r" b"data: {\"c\": 3}\n\n" b"data: [DONE]\n\n" b"data: {\"after\": 1}\n\n")
    for cuts in ([], [1, 2], [14, 15], [20, 21, 22], list(range(1, len(whole)))):
        chunks, last = [], 0
        for c in [*cuts, len(whole)]:
            chunks.append(whole[last:c])
            last = c
        evs, reader = _events(chunks)
        assert evs == [{"a": 1}, {"b": "x\ny"}, {"c": 3}], (cuts, evs)
        assert reader.done and reader.last_id == "7" and reader.retry_ms == 1500


def test_an_event_cut_off_by_the_end_of_the_stream_is_not_read() -> None:
    evs, reader = _events([b'data: {"a": 1}\n\ndata: {"b": 2}\n'])  # no blank line: the event never ended
    assert evs == [{"a": 1}] and not reader.done
    evs, _ = _events([b'data: {"a": 1}\n\ndata: {"b"'])
    assert evs == [{"a": 1}]


def test_an_error_event_is_an_error_and_non_objects_are_malformed() -> None:
    evs, _ = _events([b'event: error\ndata: {"message": "overloaded"}\n\n'])
    assert evs == [{"error": {"message": "overloaded"}}]
    with pytest.raises(ResponseRejected, match="not a JSON object"):
        _events([b"data: [1, 2]\n\n"])
    with pytest.raises(ValueError):
        _events([b'data: {"a": \n\n'])  # a broken event: the attempt fails (retried as malformed)


# ---- defect 8: refusals, tool calls and filtered answers ------------------------------------------------------


@pytest.mark.parametrize("stream", STREAM)
def test_a_refusal_is_stored_as_a_refusal(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "refusal", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    rows = _rows(store, res)
    refused = [r for r in rows if r.final.completion.finish_reason == "refusal"]
    assert len(refused) == 10 == srv.stats()["refusal"] and res.errors == 0
    for r in refused:  # the refusal's words are kept and scored as what the model said (nothing to extract)
        assert r.final.completion.text == REFUSAL_TEXT
        assert r.final.verdict.outcome is Outcome.UNANSWERABLE


@pytest.mark.parametrize("stream", STREAM)
def test_a_reply_of_tool_calls_only_is_stored_as_those_calls(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "toolcalls", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    rows = _rows(store, res)
    calls = [r for r in rows if r.final.completion.finish_reason == "tool_calls"]
    assert len(calls) == 10 == srv.stats()["toolcalls"] and res.errors == 0
    for r in calls:
        text = r.final.completion.text
        assert text.startswith("<tool_call>") and text.endswith("</tool_call>"), text
        assert json.loads(text[len("<tool_call>"):-len("</tool_call>")]) == TOOL_CALL  # streamed pieces joined
        assert r.final.verdict.outcome is Outcome.UNANSWERABLE


@pytest.mark.parametrize("stream", STREAM)
def test_a_filtered_answer_is_an_error_asked_once(tmp_path: Path, make_server, stream: bool) -> None:
    srv = make_server("--stream", "--faults", "contentfilter,contentfilter,contentfilter", "--fail-every", "5")
    store = RunStore(tmp_path / "s.db")
    res, _ = _run(store, srv.url, stream)
    failed, answered = _split(store, res)
    assert len(failed) == 10 and res.errors == 10 and len(answered) == 40
    _errors_only(failed, FILTERED)  # never scored, though its text holds the right answer
    for r in failed:
        assert r.final.completion.finish_reason == "content_filter"
    assert srv.stats()["contentfilter"] == 10  # not retried: a filter decides the same way again
