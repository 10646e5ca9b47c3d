"""Core value types that flow through the pipeline.

dataset -> Item -> Prompt -> (model) -> Completion -> (extract/score) -> Verdict -> report
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str | list[dict[str, Any]]  # list form = OpenAI content parts (text / image_url)


@dataclass(frozen=True)
class Prompt:
    """Either a chat conversation (``messages``) or a raw completion string (``text``)."""

    messages: tuple[Message, ...] = ()
    text: str | None = None

    @property
    def is_chat(self) -> bool:
        return self.text is None

    @staticmethod
    def chat(user: str, history: list[tuple[str, str]] | None = None, system: str | None = None) -> Prompt:
        msgs: list[Message] = []
        if system:
            msgs.append(Message("system", system))
        for asked, answered in history or []:
            msgs.append(Message("user", asked))
            msgs.append(Message("assistant", answered))
        msgs.append(Message("user", user))
        return Prompt(messages=tuple(msgs))

    @staticmethod
    def raw(text: str) -> Prompt:
        return Prompt(text=text)

    def to_json(self) -> dict[str, Any]:
        if self.text is not None:
            return {"text": self.text}
        return {"messages": [{"role": msg.role, "content": msg.content} for msg in self.messages]}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Prompt:
        if "text" in d and d["text"] is not None:
            return Prompt(text=d["text"])
        return Prompt(messages=tuple(Message(msg["role"], msg["content"]) for msg in d.get("messages", [])))

    def with_system(self, system: str | None) -> Prompt:
        """This prompt with ``system`` first: a system message for chat (joined to one already there), a
        paragraph before a raw completion prompt."""
        if not system:
            return self
        if self.text is not None:
            return Prompt(text=f"{system}\n\n{self.text}")
        msgs = list(self.messages)
        if msgs and msgs[0].role == "system" and isinstance(msgs[0].content, str):
            msgs[0] = Message("system", f"{system}\n\n{msgs[0].content}")
        else:
            msgs.insert(0, Message("system", system))
        return replace(self, messages=tuple(msgs))

    def last_user_text(self) -> str:
        if self.text is not None:
            return self.text
        for msg in reversed(self.messages):
            if msg.role == "user":
                return msg.content if isinstance(msg.content, str) else " ".join(
                    part.get("text", "") for part in msg.content if part.get("type") == "text")
        return ""


#: GenParams fields added after the first stored runs: written by ``to_json`` only when they differ from their
#: default, so the run ids and cache keys of runs that do not use them never change
_LATER_FIELDS = ("reasoning_effort", "system", "extra_body")
#: the values of ``GenParams.reasoning_effort`` (``--reasoning-effort``), checked before a run starts
REASONING_EFFORTS = ("minimal", "low", "medium", "high")


@dataclass(frozen=True)
class GenParams:
    """Generation controls; all of them are part of the run id and the response-cache key."""

    max_tokens: int = 2000
    temperature: float | None = None  # None = backend default
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None
    #: ``minimal|low|medium|high`` (OpenAI ``reasoning_effort``; Anthropic thinking budget); None: not sent
    reasoning_effort: str | None = None
    #: system message put before the benchmark's prompt (the runner adds it; the stored prompt stays as built)
    system: str | None = None
    #: provider-specific request fields merged into the request body, as canonical JSON text of an object
    extra_body: str | None = None

    @property
    def extra(self) -> dict[str, Any]:
        return dict(json.loads(self.extra_body)) if self.extra_body else {}

    @staticmethod
    def canonical_extra(obj: dict[str, Any] | str | None) -> str | None:
        """``extra_body`` as stored: sorted compact JSON of an object, None when empty."""
        if obj is None or obj == "":
            return None
        extra = json.loads(obj) if isinstance(obj, str) else obj
        if not isinstance(extra, dict):
            raise ValueError("extra body must be a JSON object, e.g. '{\"top_k\": 20}'")
        return json.dumps(extra, sort_keys=True, ensure_ascii=False, separators=(",", ":")) if extra else None

    def canonical_json(self) -> str:
        """``canonical_json(self.to_json())``, computed once: the object is frozen, and every request of a run
        hashes the same parameters into its cache key."""
        got: str | None = self.__dict__.get("_canonical")
        if got is None:
            from .hashing import canonical_json

            got = canonical_json(self.to_json())
            object.__setattr__(self, "_canonical", got)
        return got

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["stop"] = list(self.stop)
        for name in _LATER_FIELDS:
            if out[name] is None:
                del out[name]
        if "extra_body" in out:
            out["extra_body"] = self.extra
        return out

    @staticmethod
    def from_json(d: dict[str, Any]) -> GenParams:
        fields = dict(d)
        fields["stop"] = tuple(fields.get("stop") or ())
        if "extra_body" in fields:
            fields["extra_body"] = GenParams.canonical_extra(fields["extra_body"])
        return GenParams(**fields)


@dataclass
class Usage:
    """Tokens as the model reports them; None: unknown (not reported, or not a valid count), never 0."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None  # all output tokens, reasoning included


@dataclass
class Completion:
    text: str = ""
    finish_reason: str | None = None  # "stop" | "length" | ...
    usage: Usage = field(default_factory=Usage)
    #: seconds the call took; None: unknown (an imported completion whose source did not record it)
    latency_s: float | None = None
    error: str | None = None  # set when the backend failed; never scored as a wrong answer
    #: the reasoning when the server returns it apart from the answer (``reasoning_content`` / ``reasoning``
    #: fields, Anthropic ``thinking`` blocks); ``text`` is then the answer alone. None: not returned separately
    #: (it may still be inline in ``text`` as ``<think>...</think>``)
    reasoning: str | None = None
    #: reasoning tokens as the server reports them (``usage.completion_tokens_details.reasoning_tokens``)
    reasoning_tokens: int | None = None
    #: seconds from sending the request to the first token of the *answer* (streamed responses only): the
    #: thinking time when the model reasons first (whether its reasoning is streamed or hidden). None: unknown
    ttft_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


class Outcome(StrEnum):
    CORRECT = "correct"
    INCORRECT = "incorrect"
    UNANSWERABLE = "unanswerable"  # no answer could be extracted (or truncated output)
    ERROR = "error"  # the model call failed; excluded from "wrong"


@dataclass
class Verdict:
    outcome: Outcome
    extracted: str | None = None
    method: str = ""  # a core.verdicts.Method (a StrEnum) or a benchmark's own finer method string
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def correct(self) -> bool:
        return self.outcome is Outcome.CORRECT

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome.value, "extracted": self.extracted, "method": str(self.method),
                "detail": self.detail}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Verdict:
        return Verdict(Outcome(d["outcome"]), d.get("extracted"), d.get("method", ""), d.get("detail") or {})


@dataclass
class Item:
    """One benchmark question. ``id`` is unique within (benchmark, subset)."""

    benchmark: str
    subset: str
    id: str
    data: dict[str, Any]  # the release record, untouched
    gold: Any = None

    @property
    def key(self) -> str:
        return f"{self.subset}/{self.id}"
