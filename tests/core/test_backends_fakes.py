"""vLLM and HF backends with fake engines (no GPU here); spec parsing and error messages."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from reasoneval.core.values import GenParams, Message, Prompt
from reasoneval.models.base import ModelError
from reasoneval.models.registry import load_model
from reasoneval.models.vllm_offline import VLLMBackend
from reasoneval.runner.batcher import Batcher


class FakeSampling:
    def __init__(self, **kw):
        self.kw = kw


class FakeLLM:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def _out(self, text: str, sp: FakeSampling):
        toks = text.split()[: sp.kw["max_tokens"]]
        finish = "length" if len(text.split()) > sp.kw["max_tokens"] else "stop"
        return SimpleNamespace(prompt_token_ids=[1, 2, 3],
                               outputs=[SimpleNamespace(text=" ".join(toks), token_ids=toks,
                                                        finish_reason=finish)])

    def chat(self, convs, sps, use_tqdm=False):
        self.calls.append(("chat", len(convs)))
        return [self._out("echo " + c[-1]["content"], sp) for c, sp in zip(convs, sps, strict=True)]

    def generate(self, texts, sps, use_tqdm=False):
        self.calls.append(("generate", len(texts)))
        return [self._out("raw " + t, sp) for t, sp in zip(texts, sps, strict=True)]


def test_vllm_backend_batches_everything_at_once() -> None:
    llm = FakeLLM()
    be = VLLMBackend("vllm/fake", "fake", engine=llm, sampling_cls=FakeSampling)
    batcher = Batcher(be, window_s=0.01)

    async def go():
        reqs = [batcher.generate(Prompt.chat(f"q{i}"), GenParams(max_tokens=8)) for i in range(50)]
        reqs += [batcher.generate(Prompt.raw(f"r{i}"), GenParams(max_tokens=1)) for i in range(10)]
        return await asyncio.gather(*reqs)

    outs = asyncio.run(go())
    assert llm.calls == [("chat", 50), ("generate", 10)]  # one engine call per prompt kind
    assert outs[0].text == "echo q0" and outs[0].finish_reason == "stop"
    assert outs[50].text == "raw" and outs[50].finish_reason == "length"
    assert outs[0].usage.prompt_tokens == 3


def test_vllm_images_are_rejected_per_item() -> None:
    be = VLLMBackend("vllm/fake", "fake", engine=FakeLLM(), sampling_cls=FakeSampling)
    img = Prompt(messages=(Message("user", [{"type": "image_url", "image_url": {"url": "data:x"}}]),))
    outs = asyncio.run(be.generate_batch([(img, GenParams()), (Prompt.chat("hi"), GenParams())]))
    assert outs[0].error and "image" in outs[0].error and outs[1].text == "echo hi"


def test_engine_failure_becomes_errors_not_loss() -> None:
    class Boom(FakeLLM):
        def chat(self, *a, **k):
            raise RuntimeError("CUDA out of memory")

    batcher = Batcher(VLLMBackend("vllm/x", "x", engine=Boom(), sampling_cls=FakeSampling), window_s=0.01)

    async def go():
        return await asyncio.gather(*(batcher.generate(Prompt.chat(str(i)), GenParams()) for i in range(3)))

    outs = asyncio.run(go())
    assert all(o.error and "out of memory" in o.error for o in outs)


def test_hf_backend_with_fake_model() -> None:
    torch = pytest.importorskip("torch")
    from reasoneval.models.hf import HFBackend

    class Tok:
        eos_token_id = 0

        def __call__(self, text, return_tensors="pt"):
            return {"input_ids": torch.tensor([[5, 6, 7]])}

        def apply_chat_template(self, msgs, tokenize=False, add_generation_prompt=True):
            return "<chat>" + msgs[-1]["content"]

        def decode(self, ids, skip_special_tokens=True):
            return " ".join(str(int(i)) for i in ids)

    class Model:
        def generate(self, input_ids, max_new_tokens, do_sample):
            return torch.cat([input_ids, torch.tensor([[9, 9]])], dim=1)

    be = HFBackend("hf/fake", "fake", model=Model(), tokenizer=Tok())
    out = asyncio.run(be.generate(Prompt.chat("x"), GenParams(max_tokens=5)))
    assert out.text == "9 9" and out.finish_reason == "stop" and out.usage.completion_tokens == 2


@pytest.mark.parametrize("spec,msg", [
    ("gpt-4o", "expected one of"),
    ("bogus/x", "unknown model kind"),
    ("openai-compat/name", "expected openai-compat/<model-name>@"),
    ("openai-compat/n@ftp://x", r"not an http\(s\) URL"),
    ("llamacpp/does-not-exist.gguf", "no such GGUF"),
    ("vllm/m?foo=1", "unknown vllm option"),
])
def test_bad_model_specs_say_why(spec: str, msg: str, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if spec.startswith("vllm"):
        from reasoneval.models.vllm_offline import from_spec

        with pytest.raises(ModelError, match=msg):
            from_spec(spec)
        return
    if spec.startswith("llamacpp"):
        pytest.importorskip("llama_cpp")
    with pytest.raises(ModelError, match=msg):
        load_model(spec)


def test_openai_needs_key_from_environment(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        load_model("openai/gpt-4o")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    be = load_model("openai/gpt-4o")
    assert be.api_key == "sk-test"  # type: ignore[attr-defined]


def test_text_only_backend_refuses_image_items_up_front(tmp_path) -> None:
    from pathlib import Path

    from reasoneval.core import registry
    from reasoneval.runner.engine import Runner
    from reasoneval.runner.spec import RunSpec
    from reasoneval.store.sqlite import RunStore

    fixtures = Path(__file__).parent.parent / "fixtures" / "rbench" / "hf"
    bench = registry.create("rbench", {"data": str(fixtures)})

    class TextOnly:
        spec = "text/only"
        max_concurrency = 4
        batched = False
        supports_images = False

        async def generate(self, prompt, params):  # pragma: no cover - never reached
            raise AssertionError("must not be called")

        async def aclose(self) -> None:
            return None

    spec = RunSpec("rbench", "m_en", "cot", "text/only", GenParams(max_tokens=8))
    runner = Runner(bench, spec, RunStore(tmp_path / "s.db"), TextOnly(), progress=False)  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="text-only backend.*images"):
        asyncio.run(runner.run())
