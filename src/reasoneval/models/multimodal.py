"""Image prompts for local backends: the harness's OpenAI content parts (``image_url`` with ``data:`` URLs,
as R-Bench-M builds them) turned into what transformers processors and vLLM take."""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

from ..core.values import Prompt
from .base import ModelError


def data_url_bytes(url: str) -> bytes:
    """The bytes of a base64 ``data:`` URL (local backends never fetch remote images)."""
    head, sep, payload = url.partition(",")
    if not url.startswith("data:") or not sep or ";base64" not in head:
        raise ModelError(f"local backends take images as base64 data: URLs, got {url[:40]!r}")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ModelError(f"bad base64 image data: {e}") from e


def load_image(url: str) -> Any:
    """A PIL image from a data URL (transformers processors take PIL images)."""
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - Pillow comes with transformers' vision extras
        raise ModelError("image prompts on the hf backend need Pillow: pip install pillow") from e
    img = Image.open(io.BytesIO(data_url_bytes(url)))
    img.load()
    return img.convert("RGB")


def hf_messages(prompt: Prompt) -> tuple[list[dict[str, Any]], list[Any]]:
    """(chat messages in the transformers multimodal form, the images in order of appearance).

    Content parts become ``{"type": "image"}`` / ``{"type": "text", "text": ...}`` (what vision chat templates
    expand into image tokens); the processor takes the returned images in the same order."""
    msgs: list[dict[str, Any]] = []
    images: list[Any] = []
    for m in prompt.messages:
        if isinstance(m.content, str):
            msgs.append({"role": m.role, "content": [{"type": "text", "text": m.content}]})
            continue
        parts: list[dict[str, Any]] = []
        for p in m.content:
            if p.get("type") == "image_url":
                img = load_image(str((p.get("image_url") or {}).get("url", "")))
                images.append(img)
                parts.append({"type": "image"})
            elif p.get("type") == "text":
                parts.append({"type": "text", "text": str(p.get("text", ""))})
            else:
                raise ModelError(f"unsupported content part {p.get('type')!r} for a local backend")
        msgs.append({"role": m.role, "content": parts})
    return msgs, images


def image_count(prompt: Prompt) -> int:
    return sum(1 for m in prompt.messages if isinstance(m.content, list)
               for p in m.content if p.get("type") == "image_url")


def vllm_is_multimodal(engine: Any) -> bool:
    """Whether a vLLM ``LLM`` serves a vision-language model (its model config says so)."""
    for path in (("llm_engine", "model_config"), ("model_config",)):
        obj = engine
        for attr in path:
            obj = getattr(obj, attr, None)
        flag = getattr(obj, "is_multimodal_model", None)
        if isinstance(flag, bool):
            return flag
    return False
