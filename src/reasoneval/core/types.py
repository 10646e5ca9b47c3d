"""Core value types that flow through the pipeline.

dataset -> Item -> Prompt -> (model) -> Completion -> (extract/score) -> Verdict -> report
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
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
        for u, a in history or []:
            msgs.append(Message("user", u))
            msgs.append(Message("assistant", a))
        msgs.append(Message("user", user))
        return Prompt(messages=tuple(msgs))

    @staticmethod
    def raw(text: str) -> Prompt:
        return Prompt(text=text)

    def to_json(self) -> dict[str, Any]:
        if self.text is not None:
            return {"text": self.text}
        return {"messages": [{"role": m.role, "content": m.content} for m in self.messages]}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Prompt:
        if "text" in d and d["text"] is not None:
            return Prompt(text=d["text"])
        return Prompt(messages=tuple(Message(m["role"], m["content"]) for m in d.get("messages", [])))

    def last_user_text(self) -> str:
        if self.text is not None:
            return self.text
        for m in reversed(self.messages):
            if m.role == "user":
                return m.content if isinstance(m.content, str) else " ".join(
                    p.get("text", "") for p in m.content if p.get("type") == "text")
        return ""


@dataclass(frozen=True)
class GenParams:
    max_tokens: int = 2000
    temperature: float | None = None  # None = backend default
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["stop"] = list(self.stop)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> GenParams:
        d = dict(d)
        d["stop"] = tuple(d.get("stop") or ())
        return GenParams(**d)


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class Completion:
    text: str = ""
    finish_reason: str | None = None  # "stop" | "length" | ...
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    error: str | None = None  # set when the backend failed; never scored as a wrong answer

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
