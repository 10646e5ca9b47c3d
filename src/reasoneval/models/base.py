"""One async protocol for every model backend."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..core.values import Completion, GenParams, Prompt


class ModelError(RuntimeError):
    """A backend could not be created or used (bad spec, missing extra, unreachable server)."""


@runtime_checkable
class ModelBackend(Protocol):
    spec: str
    #: how many requests the runner may keep in flight against this backend
    max_concurrency: int
    #: True when the backend prefers the whole request list at once (vLLM, HF batch)
    batched: bool
    #: True when it accepts image content parts
    supports_images: bool

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion: ...

    async def aclose(self) -> None: ...


class BatchBackend(ModelBackend, Protocol):
    async def generate_batch(self, requests: list[tuple[Prompt, GenParams]]) -> list[Completion]: ...


def prompt_has_images(prompt: Prompt) -> bool:
    return any(
        isinstance(m.content, list) and any(p.get("type") == "image_url" for p in m.content)
        for m in prompt.messages
    )


def sampling_kwargs(params: GenParams) -> dict[str, Any]:
    """The sampling settings an in-process engine takes (llama-cpp-python's completion calls, vLLM's
    ``SamplingParams``): greedy when no temperature is set; top_p, stop and seed only when given."""
    kw: dict[str, Any] = {"max_tokens": params.max_tokens,
                          "temperature": 0.0 if params.temperature is None else params.temperature}
    if params.top_p is not None:
        kw["top_p"] = params.top_p
    if params.stop:
        kw["stop"] = list(params.stop)
    if params.seed is not None:
        kw["seed"] = params.seed
    return kw
