"""A local fake OpenAI-compatible server for tests and benchmarks, with fault injection.

    python -m reasoneval.testing.fake_openai --port 8011 --delay 0.2 [--faults 429,500,timeout,malformed]

It answers ``/v1/chat/completions`` and ``/v1/completions`` after ``--delay`` seconds with a
deterministic text that ends in ``[[<last word of the prompt>]]``. With ``--faults``, each request
*the first time its prompt is seen* gets the listed failures in turn (then succeeds), so every item
eventually completes when the client retries, and a test can count exactly what happened.
``--fail-every K`` applies the faults only to every K-th distinct prompt.
``--capacity K`` serves at most K requests at once (the rest wait their turn), like a real replica
of fixed capacity; 0 (the default) means unlimited.
``--answers FILE`` (JSON lines ``{"contains": "...", "response": "..."}``) scripts the replies: a prompt
that contains a line's ``contains`` text gets that line's ``response`` (first match wins), e.g. a gold
answer wrapped in a ``<think>`` section, as a reasoning model would write it.

``--fault-rate R`` switches to a mix: a fraction R of the distinct prompts (chosen by hash, so a test can
predict which: :func:`planned_fault`) gets one fault kind from ``--faults`` (also chosen by hash).
Transient kinds (:data:`TRANSIENT`) hit the first attempt only; the others hit every attempt.

Fault kinds: ``429`` (with ``Retry-After``), ``500``, ``timeout``/``hang`` (sleep ``--timeout-sleep``, then
504), ``malformed`` (cut JSON), ``empty`` (200 without choices), any other status number (``400``...),
``echo401`` (401 whose body reflects the Authorization header), ``redirect`` (307 to another host),
``surrogate`` (an answer holding a lone surrogate, as valid ASCII JSON), ``empty200`` (an empty answer,
finish_reason stop), ``bomb`` (an answer made of hundreds of "or"-separated power towers), ``hangforever`` (no
answer at all: the request is held until the client goes away).

Shape faults (:data:`SHAPE_FAULTS`, issue 36; every attempt; streamed when asked, else plain): ``nchoices`` (two
choices: a stream interleaves index 0 and index 1 deltas, index 1 first; a plain body lists index 1 first;
index 1 says :data:`OTHER_CHOICE`), ``multiline`` (each event's JSON split over several ``data:`` lines, with
``id:``, ``retry:``, ``event:`` and comment lines), ``crlf`` (events ended by CR LF and by bare CR, written in
pieces that split a CR LF), ``bom`` (the stream starts with a UTF-8 byte order mark, and its first event holds
the first half of the answer), ``brokenevent`` (a stream whose middle event is cut JSON; plain: fine),
``refusal`` (``content: null`` and a ``refusal`` text), ``toolcalls`` (only ``tool_calls``, finish reason
``tool_calls``; streamed as argument pieces), ``contentfilter`` (the answer, then finish reason
``content_filter``).

Slow answers (:data:`SLOW_FAULTS`, issue 36; every attempt; ``--slow-s`` seconds, default 60): ``trickle``
(a stream whose reasoning words trickle from second 0, one every ``--trickle-gap`` seconds, then the answer;
plain: the whole answer after ``--slow-s``), ``slowplain`` (a plain body after ``--slow-s``, even to a
streamed request), ``silentfast`` (nothing at all, not even the headers, for 3/4 of ``--slow-s``, then the
answer at once).

Response faults (:data:`RESPONSE_FAULTS`; streamed when the request asks for ``stream``, else plain JSON):
``nochoices`` (a 200 without ``choices``), ``anthropicsse`` (an Anthropic-shaped message or event stream on
the OpenAI path), ``nofinish`` (a stream that ends cleanly without finish_reason or ``[DONE]``; plain: a body
cut in half), ``usage1e999`` / ``usagestr`` (usage numbers ``1e999`` / strings, the answer itself fine), ``nousage`` (a
fine answer without any usage),
``ctlbody`` (HTTP 400 whose body holds terminal control codes), ``ctlredirect`` (a 307 whose ``Location``
holds them), ``gzipbomb`` (a gzip body that expands to ``--bomb-mb`` MiB), ``endless`` (an answer that never
ends: an endless event stream, or an endless chunked body), ``key401`` (HTTP 401 whose body holds the
request's key at byte 280).

Reasoning-model behaviour: ``--reasoning-field reasoning_content|reasoning`` returns the reasoning apart from
the answer in that message field (a scripted ``<think>...</think>`` answer is split there; otherwise a fixed
reasoning sentence is made up); ``--reasoning-tokens`` reports ``usage.completion_tokens_details.
reasoning_tokens`` (words of the reasoning); ``--stream`` honours ``"stream": true`` with server-sent events
(reasoning deltas, then ``--think-delay`` seconds, then the answer deltas, then a usage chunk);
``--reject-stream`` answers a streamed request with HTTP 400 naming ``stream``. ``GET /requests`` returns
the last 100 request bodies, ``GET /seen`` the requests received per prompt (sha256 of its text). Any other
route is HTTP 404 ``{"detail": "Not Found"}``, as vLLM answers a base URL given without ``/v1``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import zlib
from collections import Counter
from typing import Any

from aiohttp import web


def answer_for(text: str) -> str:
    words = text.split()
    last = words[-1].strip("?.!,:") if words else ""
    h = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"Thinking about it ({h}). The answer is [[{last}]]."


TRANSIENT = frozenset({"429", "500", "timeout", "hang", "malformed", "empty", "hangforever"})
RESPONSE_FAULTS = frozenset({"nochoices", "anthropicsse", "nofinish", "usage1e999", "usagestr", "nousage",
                             "ctlbody", "ctlredirect", "gzipbomb", "endless", "key401"})
#: answers a client must read to the letter (issue 36): several choices, event-stream syntax, message kinds
SHAPE_FAULTS = frozenset({"nchoices", "multiline", "crlf", "bom", "brokenevent", "refusal", "toolcalls",
                          "contentfilter"})
#: legitimately slow answers (issue 36), every attempt: ``--slow-s`` seconds each
SLOW_FAULTS = frozenset({"trickle", "slowplain", "silentfast"})
#: what ``nchoices`` puts in choice 1 (a client that reads it, or mixes it into choice 0, scores it wrong)
OTHER_CHOICE = "Choice one says [[nothing]]."
REFUSAL_TEXT = "I'm sorry, but I can't help with that request."
TOOL_CALL = {"name": "calculator", "arguments": '{"expression": "2 + 2"}'}
#: what ``ctlbody`` / ``ctlredirect`` put in front of a terminal: set the window title (OSC), clear the screen
CONTROL_CODES = "\x1b]0;PWNED\x07\x1b[2J\x1b[31m"
SURROGATE_ANSWER = "The answer is [[\ud800]]"
BOMB_ANSWER = "[[" + " or ".join(f"{n}^{{{n}^{{{n}}}}}" for n in range(2, 400)) + "]]"


def planned_fault(text: str, faults: list[str], rate: float) -> str | None:
    """The fault kind a prompt gets under ``--fault-rate`` (None: served normally)."""
    h = int(hashlib.sha256(("fault:" + text).encode()).hexdigest()[:12], 16)
    if not faults or (h % 10_000) >= rate * 10_000:
        return None
    return faults[(h // 10_000) % len(faults)]


def prompt_text(body: dict[str, Any]) -> str:
    if "messages" in body:
        parts = []
        for m in body["messages"]:
            c = m.get("content")
            parts.append(c if isinstance(c, str) else json.dumps(c))
        return "\n".join(parts)
    return str(body.get("prompt", ""))


# ---- hang-forever (issue 23): no status, no byte, until the client abandons the request
async def hang_until_gone(request: web.Request) -> web.StreamResponse:
    while request.transport is not None and not request.transport.is_closing():
        await asyncio.sleep(0.2)
    return web.Response(status=499)  # never read: the client is gone


class FakeServer:
    #: ``--served-id``: the model ``GET /v1/models`` lists (empty: no such route, as before)
    served_id = ""

    def __init__(self, delay: float, faults: list[str], fail_every: int, timeout_sleep: float,
                 retry_after: str, capacity: int = 0, answers: list[tuple[str, str]] | None = None,
                 fault_rate: float = 0.0, reasoning_field: str = "", reasoning_tokens: bool = False,
                 stream: bool = False, reject_stream: bool = False, think_delay: float = 0.0,
                 bomb_mb: int = 1024, slow_s: float = 60.0, trickle_gap: float = 0.5) -> None:
        self.delay = delay
        self.slow_s = slow_s
        self.trickle_gap = trickle_gap
        self.bomb_mb = bomb_mb
        self._bomb: bytes | None = None
        self.reasoning_field = reasoning_field
        self.reasoning_tokens = reasoning_tokens
        self.stream = stream
        self.reject_stream = reject_stream
        self.think_delay = think_delay
        self.requests: list[dict[str, Any]] = []
        self.fault_rate = fault_rate
        self.answers = answers or []
        self.capacity = capacity
        self._slots: asyncio.Semaphore | None = None
        self._active = 0
        self.faults = faults
        self.fail_every = max(1, fail_every)
        self.timeout_sleep = timeout_sleep
        self.retry_after = retry_after
        self.seen: Counter[str] = Counter()
        self.order: dict[str, int] = {}
        self.stats: Counter[str] = Counter()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.capacity <= 0:
            return await self._handle(request)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.capacity)
        async with self._slots:
            self._active += 1
            self.stats["max_concurrent"] = max(self.stats["max_concurrent"], self._active)
            try:
                return await self._handle(request)
            finally:
                self._active -= 1

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests = [*self.requests[-99:], body]
        if body.get("stream") and self.reject_stream:
            self.stats["stream_rejected"] += 1
            return web.json_response({"error": {"message": "stream is not supported"}}, status=400)
        text = prompt_text(body)
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in self.order:
            self.order[key] = len(self.order)
        attempt = self.seen[key]
        self.seen[key] += 1
        self.stats["requests"] += 1
        fault: str | None = None
        if self.fault_rate > 0:
            fault = planned_fault(text, self.faults, self.fault_rate)
            if fault in TRANSIENT and attempt > 0:
                fault = None
        elif self.faults and self.order[key] % self.fail_every == 0 and attempt < len(self.faults):
            fault = self.faults[attempt]
        content: str | None = None
        if fault is not None:
            self.stats[fault] += 1
            if attempt == 0:
                self.stats[f"{fault}_prompts"] += 1  # distinct prompts that got this fault
            if fault == "429":
                return web.json_response({"error": "rate limited"}, status=429,
                                         headers={"Retry-After": self.retry_after})
            if fault == "500":
                return web.json_response({"error": "boom"}, status=500)
            if fault == "hangforever":
                return await hang_until_gone(request)
            if fault in ("timeout", "hang"):
                await asyncio.sleep(self.timeout_sleep)
                return web.json_response({"error": "too late"}, status=504)
            if fault == "malformed":
                return web.Response(text='{"choices": [ {"mess', content_type="application/json")
            if fault == "empty":
                return web.json_response({"choices": []})
            if fault == "echo401":
                return web.json_response({"error": "invalid key", "authorization": request.headers.get(
                    "Authorization", "")}, status=401)
            if fault == "redirect":
                return web.Response(status=307, headers={"Location": "http://elsewhere.invalid/v1/chat/completions"})
            if fault == "surrogate":
                content = SURROGATE_ANSWER
            elif fault == "empty200":
                content = ""
            elif fault == "bomb":
                content = BOMB_ANSWER
            elif fault in RESPONSE_FAULTS:
                return await self._response_fault(request, body, fault, text)
            elif fault in SHAPE_FAULTS or fault in SLOW_FAULTS:
                return await self._shape_fault(request, body, fault, text)
            elif fault.isdigit():  # any other HTTP status, e.g. 400 or 401
                return web.json_response({"error": f"status {fault}"}, status=int(fault))
        if self.delay:
            await asyncio.sleep(self.delay)
        self.stats["ok"] += 1
        if content is None:
            content = next((r for c, r in self.answers if c in text), None) or answer_for(text)
        reasoning = ""
        if self.reasoning_field:
            head, closed, tail = content.partition("</think>")
            reasoning, content = ((head.replace("<think>", "", 1).strip(), tail.strip()) if closed else
                                  (f"Let me reason step by step about {len(text.split())} words.", content))
        usage: dict[str, Any] = {"prompt_tokens": len(text.split()),
                                 "completion_tokens": len(content.split()) + len(reasoning.split())}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]  # as OpenAI reports it
        if self.reasoning_tokens:
            usage["completion_tokens_details"] = {"reasoning_tokens": len(reasoning.split())}
        chat = request.path.endswith("/chat/completions")
        if body.get("stream") and self.stream:
            return await self._stream(request, body, chat, content, reasoning, usage)
        if chat:
            message = {"role": "assistant", "content": content}
            if reasoning:
                message[self.reasoning_field] = reasoning
            choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
        else:
            choice = {"index": 0, "text": content, "finish_reason": "stop"}
        return web.json_response({"id": "fake", "object": "chat.completion", "model": body.get("model"),
                                  "choices": [choice], "usage": usage})

    async def _stream(self, request: web.Request, body: dict[str, Any], chat: bool, content: str,
                      reasoning: str, usage: dict[str, Any]) -> web.StreamResponse:
        self.stats["streamed"] += 1
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)

        async def send(obj: dict[str, Any]) -> None:
            await resp.write(b"data: " + json.dumps(obj).encode() + b"\n\n")

        def chunk(piece: str, field: str, finish: str | None = None) -> dict[str, Any]:
            c: dict[str, Any] = ({"index": 0, "delta": {field: piece}, "finish_reason": finish} if chat
                                 else {"index": 0, "text": piece, "finish_reason": finish})
            return {"id": "fake", "object": "chat.completion.chunk", "choices": [c]}

        thoughts = reasoning.split(" ") if reasoning else []
        for i, word in enumerate(thoughts):
            await send(chunk(word + ("" if i == len(thoughts) - 1 else " "), self.reasoning_field))
        if self.think_delay:
            await asyncio.sleep(self.think_delay)
        words = content.split(" ")
        for i, word in enumerate(words):
            await send(chunk(word + ("" if i == len(words) - 1 else " "), "content",
                             "stop" if i == len(words) - 1 else None))
        if (body.get("stream_options") or {}).get("include_usage"):
            await send({"id": "fake", "object": "chat.completion.chunk", "choices": [], "usage": usage})
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    # ---- response faults (issue 23): bodies a validator must refuse, sizes a reader must bound -------------

    async def _response_fault(self, request: web.Request, body: dict[str, Any], fault: str,
                              text: str) -> web.StreamResponse:
        stream = bool(body.get("stream"))
        answer = answer_for(text)
        if fault == "ctlbody":
            return web.Response(status=400, text=f"bad request {CONTROL_CODES} try again",
                                content_type="text/plain")
        if fault == "ctlredirect":  # written by hand: aiohttp refuses to send control codes in a header
            assert request.transport is not None
            request.transport.write(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://elsewhere.invalid/"
                                    f"{CONTROL_CODES}v1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                    .encode())
            request.transport.close()
            raise web.HTTPServiceUnavailable()  # never sent: the connection is closed
        if fault == "key401":
            key = request.headers.get("Authorization", "").removeprefix("Bearer ")
            head = "invalid credentials: the key you sent was not accepted. "
            return web.Response(status=401, text=head.ljust(280, ".") + key + " (check your account)",
                                content_type="text/plain")
        if fault == "gzipbomb":
            if self._bomb is None:
                c = zlib.compressobj(9, zlib.DEFLATED, 31)
                zeros = b" " * (1 << 20)
                self._bomb = b"".join([c.compress(b'{"choices": [{"message": {"content": "'),
                                       *(c.compress(zeros) for _ in range(self.bomb_mb)), c.flush()])
            return web.Response(body=self._bomb, headers={"Content-Encoding": "gzip",
                                                          "Content-Type": "application/json"})
        if fault == "endless":
            return await self._endless(request, stream)
        if fault in ("usage1e999", "usagestr", "nousage"):
            bad = '1e999' if fault == "usage1e999" else '"12"'
            usage = "null" if fault == "nousage" else (f'{{"prompt_tokens": {bad}, "completion_tokens": {bad}, '
                                                       f'"completion_tokens_details": {{"reasoning_tokens": {bad}}}}}')
            if not stream:
                return web.Response(text=f'{{"choices": [{{"index": 0, "message": {{"role": "assistant", "content": '
                                         f'{json.dumps(answer)}}}, "finish_reason": "stop"}}], "usage": {usage}}}',
                                    content_type="application/json")
            chunk = json.dumps({"choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": "stop"}]})
            return await self._sse(request, [chunk, f'{{"choices": [], "usage": {usage}}}', "[DONE]"])
        if fault == "nochoices":
            if not stream:
                return web.json_response({"id": "fake", "object": "chat.completion", "model": body.get("model")})
            return await self._sse(request, [json.dumps({"id": "fake", "object": "chat.completion.chunk"}),
                                             json.dumps({"id": "fake", "usage": {"prompt_tokens": 3}}), "[DONE]"])
        if fault == "anthropicsse":
            msg = {"id": "msg", "type": "message", "role": "assistant", "model": body.get("model"),
                   "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 3, "output_tokens": 9}}
            if not stream:
                return web.json_response(msg)
            return await self._sse(request, [json.dumps(e) for e in (
                {"type": "message_start", "message": {**msg, "content": [], "stop_reason": None}},
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": answer}},
                {"type": "content_block_stop", "index": 0},
                {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
                {"type": "message_stop"})])
        assert fault == "nofinish", fault
        if not stream:  # a plain body cut in half
            whole = json.dumps({"choices": [{"index": 0, "message": {"content": answer}, "finish_reason": "stop"}]})
            return web.Response(text=whole[:len(whole) // 2], content_type="application/json")
        words = answer.split(" ")
        return await self._sse(request, [json.dumps({"choices": [{"index": 0, "delta": {"content": w + " "},
                                                                  "finish_reason": None}]}) for w in words])

    # ---- shape and slow faults (issue 36): answers a client must read to the letter, answers that take long --

    async def _shape_fault(self, request: web.Request, body: dict[str, Any], fault: str,
                           text: str) -> web.StreamResponse:
        stream = bool(body.get("stream")) and self.stream
        chat = request.path.endswith("/chat/completions")
        answer = next((r for c, r in self.answers if c in text), None) or answer_for(text)
        usage = {"prompt_tokens": len(text.split()), "completion_tokens": len(answer.split())}
        if fault == "silentfast":
            await asyncio.sleep(0.75 * self.slow_s)
            fault = "fine"
        if fault == "slowplain" or (fault == "trickle" and not stream):
            await asyncio.sleep(self.slow_s)
            stream, fault = False, "fine"
        if fault == "trickle":
            return await self._quiet(self._trickle(request, body, chat, answer, usage))
        return await self._quiet(self._shaped(request, body, fault, stream, chat, answer, usage))

    @staticmethod
    async def _quiet(aw: Any) -> web.StreamResponse:
        """A streamed reply whose client went away (cancelled a copy) ends quietly."""
        try:
            return await aw  # type: ignore[no-any-return]
        except ConnectionError:
            return web.Response(status=499)  # never sent: the client is gone

    async def _shaped(self, request: web.Request, body: dict[str, Any], fault: str, stream: bool, chat: bool,
                      answer: str, usage: dict[str, Any]) -> web.StreamResponse:

        def choice(payload: dict[str, Any], finish: str | None, index: int = 0) -> dict[str, Any]:
            if chat:
                return {"index": index, ("delta" if stream else "message"): payload, "finish_reason": finish}
            return {"index": index, "text": payload.get("content") or "", "finish_reason": finish}

        if not stream:
            msg: dict[str, Any] = {"role": "assistant", "content": answer}
            finish = "stop"
            choices = [choice(msg, finish)]
            if fault == "nchoices":
                choices = [choice({"role": "assistant", "content": OTHER_CHOICE}, "stop", 1), choices[0]]
            elif fault == "refusal":
                msg.update(content=None, refusal=REFUSAL_TEXT)
            elif fault == "toolcalls":
                msg.update(content=None, tool_calls=[{"id": "call_1", "type": "function", "function": TOOL_CALL}])
                choices[0]["finish_reason"] = "tool_calls"
            elif fault == "contentfilter":
                choices[0]["finish_reason"] = "content_filter"
            return web.json_response({"id": "fake", "object": "chat.completion", "model": body.get("model"),
                                      "choices": choices, "usage": usage})
        words = answer.split(" ")
        pieces = [w + ("" if i == len(words) - 1 else " ") for i, w in enumerate(words)]
        events: list[dict[str, Any]] = []
        for i, w in enumerate(pieces):
            last = i == len(pieces) - 1
            if fault == "nchoices":  # index 1 first, then index 0, interleaved
                other = OTHER_CHOICE.split(" ")
                if i < len(other):
                    events.append({"choices": [choice({"content": other[i] + " "}, None, 1)]})
            events.append({"choices": [choice({"content": w}, ("content_filter" if fault == "contentfilter"
                                                              else "stop") if last else None)]})
        if fault == "refusal":
            events = [{"choices": [choice({"role": "assistant", "content": None, "refusal": None}, None)]}]
            r = REFUSAL_TEXT.split(" ")
            events += [{"choices": [choice({"refusal": w + ("" if i == len(r) - 1 else " ")},
                                           "stop" if i == len(r) - 1 else None)]} for i, w in enumerate(r)]
        elif fault == "toolcalls":
            args = TOOL_CALL["arguments"]
            events = [{"choices": [choice({"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": TOOL_CALL["name"],
                                                                              "arguments": ""}}]}, None)]}]
            events += [{"choices": [choice({"tool_calls": [{"index": 0, "function": {"arguments": args[k:k + 5]}}]},
                                           None)]} for k in range(0, len(args), 5)]
            events.append({"choices": [choice({}, "tool_calls")]})
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({"choices": [], "usage": usage})
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        if fault == "bom":
            half = answer[:len(answer) // 2]
            events = [{"choices": [choice({"content": half}, None)]},
                      {"choices": [choice({"content": answer[len(half):]}, "stop")]}, *events[len(pieces):]]
            await resp.write(b"\xef\xbb\xbf")
        for k, ev in enumerate(events):
            data = json.dumps(ev)
            if fault == "multiline":  # the JSON over several data: lines (between its tokens), fields of every kind
                cut = json.dumps(ev, indent=1).split("\n")
                out = f": keep-alive {k}\nid: {k}\nevent: message\nretry: 3000\n" + "".join(
                    f"data: {c}\n" for c in cut) + "\n"
                await resp.write(out.encode())
            elif fault == "crlf":  # CR LF, then bare CR, every write splitting a CR LF
                end = "\r\n" if k % 2 == 0 else "\r"
                out = f"data: {data}{end}{end}"
                await resp.write(out[:-1].encode())
                await asyncio.sleep(0.001)
                await resp.write(out[-1:].encode())
            elif fault == "brokenevent" and k == len(events) // 2:
                await resp.write(f"data: {data[:len(data) // 2]}\n\n".encode())
            else:
                await resp.write(f"data: {data}\n\n".encode())
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    async def _trickle(self, request: web.Request, body: dict[str, Any], chat: bool, answer: str,
                       usage: dict[str, Any]) -> web.StreamResponse:
        """Reasoning words from second 0, one every ``trickle_gap`` s for ``slow_s`` s, then the answer."""
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        self.stats["trickle_started"] += 1

        async def send(piece: str, finish: str | None = None) -> None:
            c = ({"index": 0, "delta": {"content": piece}, "finish_reason": finish} if chat
                 else {"index": 0, "text": piece, "finish_reason": finish})
            await resp.write(b"data: " + json.dumps({"choices": [c]}).encode() + b"\n\n")

        loop = asyncio.get_running_loop()
        end = loop.time() + self.slow_s
        await send("<think>")
        while loop.time() < end:
            await asyncio.sleep(min(self.trickle_gap, max(0.0, end - loop.time())))
            await send(" hmm")
        await send("</think>" + answer, "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            await resp.write(b"data: " + json.dumps({"choices": [], "usage": usage}).encode() + b"\n\n")
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        self.stats["trickle_finished"] += 1
        return resp

    async def _sse(self, request: web.Request, payloads: list[str]) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for p in payloads:
            await resp.write(f"data: {p}\n\n".encode())
        await resp.write_eof()
        return resp

    async def _endless(self, request: web.Request, stream: bool) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream" if stream else "application/json"})
        await resp.prepare(request)
        piece = "all work and no play " * 50
        event = ("data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": piece},
                                                      "finish_reason": None}]}) + "\n\n").encode()
        if not stream:
            await resp.write(b'{"choices": [{"message": {"content": "')
            event = piece.encode()
        with contextlib.suppress(ConnectionError, RuntimeError):  # until the client hangs up
            while True:
                await resp.write(event * 16)
        return resp

    async def requests_handler(self, request: web.Request) -> web.Response:
        return web.json_response(self.requests)

    async def seen_handler(self, request: web.Request) -> web.Response:
        """Requests received per prompt (sha256 of the prompt text -> count)."""
        return web.json_response(dict(self.seen))

    async def stats_handler(self, request: web.Request) -> web.Response:
        return web.json_response({**self.stats, "distinct_prompts": len(self.order)})

    async def models_handler(self, request: web.Request) -> web.Response:
        if not self.served_id:
            raise web.HTTPNotFound()
        return web.json_response({"object": "list", "data": [{"id": self.served_id, "object": "model"}]})

    @staticmethod
    @web.middleware
    async def _not_found(request: web.Request, handler: Any) -> web.StreamResponse:
        """A route the server does not have (``/chat/completions`` without ``/v1``) answers as FastAPI servers
        (vLLM, SGLang) do: HTTP 404 with a JSON ``detail``."""
        try:
            return await handler(request)
        except web.HTTPNotFound:
            return web.Response(status=404, text=json.dumps({"detail": "Not Found"}), content_type="application/json")

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._not_found])
        app.router.add_get("/v1/models", self.models_handler)
        app.router.add_post("/v1/chat/completions", self.handle)
        app.router.add_post("/v1/completions", self.handle)
        app.router.add_get("/stats", self.stats_handler)
        app.router.add_get("/seen", self.seen_handler)
        app.router.add_get("/requests", self.requests_handler)
        return app


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8011)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--faults", default="")
    ap.add_argument("--fail-every", type=int, default=1)
    ap.add_argument("--timeout-sleep", type=float, default=3.0)
    ap.add_argument("--retry-after", default="1")
    ap.add_argument("--capacity", type=int, default=0, help="requests served at once (0: unlimited)")
    ap.add_argument("--fault-rate", type=float, default=0.0, help="mix: this fraction of prompts gets a fault")
    ap.add_argument("--answers", default="", help="JSON lines of {contains, response}: scripted replies")
    ap.add_argument("--reasoning-field", default="", choices=["", "reasoning_content", "reasoning"],
                    help="return the reasoning apart from the answer in this message field")
    ap.add_argument("--reasoning-tokens", action="store_true", help="report usage reasoning tokens")
    ap.add_argument("--stream", action="store_true", help="honour stream: true (server-sent events)")
    ap.add_argument("--reject-stream", action="store_true", help="HTTP 400 to streamed requests")
    ap.add_argument("--think-delay", type=float, default=0.0, help="seconds between reasoning and answer")
    ap.add_argument("--bomb-mb", type=int, default=1024, help="MiB the gzipbomb fault expands to")
    ap.add_argument("--served-id", default="", help="the model id GET /v1/models lists (default: no such route)")
    ap.add_argument("--slow-s", type=float, default=60.0, help="seconds a slow fault (trickle, slowplain, "
                    "silentfast) takes")
    ap.add_argument("--trickle-gap", type=float, default=0.5, help="seconds between a trickle's pieces")
    a = ap.parse_args()
    answers: list[tuple[str, str]] = []
    if a.answers:
        with open(a.answers, encoding="utf-8") as fh:
            answers = [(str(r["contains"]), str(r["response"])) for r in map(json.loads, fh) if r]
    srv = FakeServer(a.delay, [f for f in a.faults.split(",") if f], a.fail_every, a.timeout_sleep,
                     a.retry_after, capacity=a.capacity, answers=answers, fault_rate=a.fault_rate,
                     reasoning_field=a.reasoning_field, reasoning_tokens=a.reasoning_tokens, stream=a.stream,
                     reject_stream=a.reject_stream, think_delay=a.think_delay, bomb_mb=a.bomb_mb,
                     slow_s=a.slow_s, trickle_gap=a.trickle_gap)
    srv.served_id = a.served_id
    web.run_app(srv.app(), host=a.host, port=a.port, print=None, access_log=None, backlog=4096)


if __name__ == "__main__":
    main()
