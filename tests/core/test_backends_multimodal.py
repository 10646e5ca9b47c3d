"""R-Bench-M image items on the local backends (HF transformers, vLLM offline), with fake engines."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from reasoneval.benchmarks.rbench.benchmark import RBench
from reasoneval.benchmarks.rbench.prompts import build_prompt
from reasoneval.core.values import GenParams, Prompt
from reasoneval.models.multimodal import data_url_bytes, hf_messages
from reasoneval.models.vllm_offline import VLLMBackend, from_spec
from reasoneval.runner.engine import Runner
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore

Image = pytest.importorskip("PIL.Image")
FIX = Path(__file__).parent.parent / "fixtures" / "rbench" / "own"


def _png(w: int, h: int, color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), color).save(buf, format="PNG")
    return buf.getvalue()


def _mprompt(*images: bytes) -> Prompt:
    return build_prompt("What does the figure show?", {"A": "x", "B": "y"}, "en", "cot", list(images))


def test_hf_messages_decode_the_images_in_order() -> None:
    p = _mprompt(_png(3, 2, (255, 0, 0)), _png(5, 4, (0, 0, 255)))
    msgs, images = hf_messages(p)
    assert [im.size for im in images] == [(3, 2), (5, 4)] and images[0].getpixel((0, 0)) == (255, 0, 0)
    assert [part["type"] for part in msgs[0]["content"]] == ["image", "image", "text"]
    assert "What does the figure show?" in msgs[0]["content"][2]["text"]
    assert data_url_bytes(p.messages[0].content[0]["image_url"]["url"]).startswith(b"\x89PNG")


def test_hf_backend_feeds_images_to_the_processor() -> None:
    torch = pytest.importorskip("torch")
    from reasoneval.models.hf import HFBackend

    seen: dict[str, Any] = {}

    class Tok:
        eos_token_id = 0

        def decode(self, ids, skip_special_tokens=True):
            return "ANSWER: " + "AB"[int(ids[0]) % 2]

    class Processor:
        tokenizer = Tok()

        def apply_chat_template(self, msgs, tokenize=False, add_generation_prompt=True):
            seen["template"] = msgs
            return "<img>" * sum(p["type"] == "image" for p in msgs[0]["content"]) + "prompt"

        def __call__(self, text, images=None, return_tensors="pt"):
            seen["text"], seen["images"] = text, images
            return {"input_ids": torch.tensor([[1, 2, 3]]), "pixel_values": torch.zeros(len(images or []), 3)}

    class Model:
        def generate(self, input_ids, pixel_values, max_new_tokens, do_sample):
            seen["pixels"] = tuple(pixel_values.shape)
            return torch.cat([input_ids, torch.tensor([[7, 0]])], dim=1)

    be = HFBackend("hf/fake-vl", "fake", model=Model(), processor=Processor())
    assert be.supports_images
    out = asyncio.run(be.generate(_mprompt(_png(8, 8, (0, 255, 0))), GenParams(max_tokens=16)))
    assert out.error is None and out.text == "ANSWER: B" and out.finish_reason == "stop"
    assert seen["text"] == ["<img>prompt"] and [im.size for im in seen["images"]] == [(8, 8)]
    assert seen["pixels"] == (1, 3)


class FakeVLLM:
    """An ``LLM`` stand-in: a vision model (per its model config) that answers how many images it saw."""

    def __init__(self, multimodal: bool = True) -> None:
        self.llm_engine = SimpleNamespace(model_config=SimpleNamespace(is_multimodal_model=multimodal))
        self.convs: list[Any] = []

    def chat(self, convs, sps, use_tqdm=False):
        self.convs.extend(convs)
        outs = []
        for conv in convs:
            parts = conv[-1]["content"]
            n = sum(1 for p in parts if isinstance(p, dict) and p.get("type") == "image_url") \
                if isinstance(parts, list) else 0
            text = f"I see {n} image(s). ANSWER: B"
            outs.append(SimpleNamespace(prompt_token_ids=[1, 2], outputs=[
                SimpleNamespace(text=text, finish_reason="stop", token_ids=[3, 4, 5])]))
        return outs


class Sampling:
    def __init__(self, **kw: Any) -> None:
        self.kw = kw


def test_vllm_vision_model_gets_the_content_parts() -> None:
    llm = FakeVLLM()
    be = VLLMBackend("vllm/fake-vl", "fake", engine=llm, sampling_cls=Sampling)
    assert be.supports_images
    p = _mprompt(_png(2, 2, (1, 2, 3)))
    out = asyncio.run(be.generate(p, GenParams(max_tokens=8)))
    assert out.text == "I see 1 image(s). ANSWER: B"
    url = llm.convs[0][0]["content"][0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and data_url_bytes(url) == _png(2, 2, (1, 2, 3))


def test_vllm_text_model_and_image_limit_refuse_per_item() -> None:
    text_only = VLLMBackend("vllm/t", "t", engine=FakeVLLM(multimodal=False), sampling_cls=Sampling)
    assert not text_only.supports_images
    out = asyncio.run(text_only.generate(_mprompt(_png(2, 2, (0, 0, 0))), GenParams(max_tokens=8)))
    assert out.error is not None and "text-only" in out.error
    capped = VLLMBackend("vllm/v", "v", engine=FakeVLLM(), sampling_cls=Sampling, limit_mm_per_prompt={"image": 1})
    two = _mprompt(_png(2, 2, (0, 0, 0)), _png(2, 2, (9, 9, 9)))
    outs = asyncio.run(capped.generate_batch([(two, GenParams(max_tokens=8)),
                                              (Prompt.chat("plain"), GenParams(max_tokens=8))]))
    assert "exceed max_images=1" in (outs[0].error or "") and outs[1].text.startswith("I see 0")


def test_vllm_spec_max_images(monkeypatch: pytest.MonkeyPatch) -> None:
    got: dict[str, Any] = {}

    def fake_init(self, spec, path, engine=None, sampling_cls=None, images=None, **kw):
        got.update(kw)

    monkeypatch.setattr(VLLMBackend, "__init__", fake_init)
    from_spec("vllm/m?max_images=4&tp=2")
    assert got == {"limit_mm_per_prompt": {"image": 4}, "tensor_parallel_size": 2}


def test_rbench_m_runs_on_a_vllm_vision_backend(tmp_path: Path) -> None:
    bench = RBench()
    bench.configure({"data": str(FIX)})
    spec = RunSpec("rbench", "m_en", "cot", "vllm/fake-vl", GenParams(max_tokens=64),
                   options=bench.options.to_json(), data_version=bench.data_version())
    llm = FakeVLLM()
    backend = VLLMBackend("vllm/fake-vl", "fake", engine=llm, sampling_cls=Sampling)
    store = RunStore(tmp_path / "s.db")
    res = asyncio.run(Runner(bench, spec, store, backend, concurrency=4, progress=False).run())
    n = len(bench.load("m_en", "cot"))
    assert res.units == n and res.errors == 0 and len(llm.convs) == n
    verdicts = [c for c in store.completions(res.run_id)]
    assert verdicts and all(c.completion.text.startswith("I see 1 image(s)") for c in verdicts)
