"""The KOR-Bench rule-focused attention view (App. F.3 / H) on the shipped SmolLM2 GGUF, read by transformers.

One model load and one real forward pass (KOR-Bench operation/1, ~280 tokens) for the module; the aggregation
itself is also checked exactly against a stub model whose attention is uniform over the causal prefix.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gguf")

from reasoneval.benchmarks.korbench import attention as att  # noqa: E402
from reasoneval.benchmarks.korbench import attention_view  # noqa: E402
from reasoneval.core import registry  # noqa: E402
from reasoneval.models.base import ModelError  # noqa: E402

HOSTILE = "<img src=x onerror=alert(1)> [[24]]"
SUBSET, IDX = "operation", "1"


@pytest.fixture(scope="module")
def loaded() -> tuple[str, Any, Any]:
    try:
        return att.load_model(None)
    except ModelError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def bench() -> Any:
    return registry.create("korbench", registry.get("korbench").Options())


@pytest.fixture(scope="module")
def view(loaded: tuple[str, Any, Any], bench: Any) -> att.AttentionView:
    label, model, tok = loaded
    return att.korbench_view(bench, SUBSET, IDX, model, tok, HOSTILE, label=label, answer_source="--answer",
                             top_k=4)


def _item(bench: Any) -> Any:
    return next(it for it in bench.load(SUBSET, "zero-shot") if it.id == IDX)


def test_spans_decode_to_the_rule_question_and_answer(view: att.AttentionView, loaded: Any, bench: Any) -> None:
    tok = loaded[2]
    d = _item(bench).data
    ids = view.input_ids
    for name, want in (("rule", d["rule_content"]), ("question", d["question"]), ("answer", HOSTILE)):
        s, e = view.spans[name]
        assert tok.decode(ids[s:e]).strip() == want.strip(), name
        assert set(view.labels[s:e]) == {name}
    # the template (system turn, role markers, "### Operation Rule:" wording) is everything else, before the rule
    assert view.labels[: view.spans["rule"][0]] == ["template"] * view.spans["rule"][0]
    assert "### Operation Rule:" in view.text[: view.offsets[view.spans["rule"][0]][0]]
    assert view.spans["rule"][1] <= view.spans["question"][0] < view.spans["answer"][0]
    assert view.spans["answer"][1] == len(ids)
    # rule lines partition the rule's tokens (line breaks go with the line they end); the needle line is marked
    segs = view.segments
    assert [g.text for g in segs] == [ln for ln in d["rule_content"].split("\n") if ln.strip()]
    assert segs[0].start == view.spans["rule"][0] and segs[-1].end == view.spans["rule"][1]
    assert all(a.end == b.start for a, b in zip(segs, segs[1:], strict=False))
    for g in segs:
        assert tok.decode(ids[g.start:g.end]).strip() == g.text.strip()
    assert [g.text for g in segs if g.needle] == list(d["needle"])


def test_prompt_is_the_benchmark_zero_shot_prompt_through_the_chat_template(view: att.AttentionView,
                                                                            loaded: Any, bench: Any) -> None:
    tok = loaded[2]
    prompt = bench.prompt(_item(bench), "zero-shot")
    rendered = tok.apply_chat_template([{"role": "user", "content": prompt.last_user_text()}], tokenize=False,
                                       add_generation_prompt=True)
    assert view.text == rendered + HOSTILE
    assert view.input_ids[: view.spans["answer"][0]] == tok(rendered)["input_ids"]


def test_heat_map_shape_masses_and_top_heads(view: att.AttentionView, loaded: Any) -> None:
    model = loaded[1]
    n_layers, n_heads = model.config.num_hidden_layers, model.config.num_attention_heads
    assert view.shape == (n_layers, n_heads) == (30, 9)
    assert view.retrieval.shape == (n_layers, n_heads)
    assert view.row_sum_error < 1e-4  # every attention row (all layers, heads, queries) sums to 1
    assert ((view.mass >= 0) & (view.mass <= 1 + 1e-6)).all()
    assert ((view.retrieval >= 0) & (view.retrieval <= 1)).all()
    assert view.mass.max() > 0.05  # answer tokens do look at the rule somewhere
    assert abs(view.rule_attention.sum(-1) - view.mass).max() < 1e-5
    assert len(view.top) == 4
    tops = [view.mass[lh] for lh in view.top]
    assert tops == sorted(tops, reverse=True) and tops[0] == view.mass.max()
    assert sum(view.segment_mass(*view.top[0])) == pytest.approx(tops[0], abs=1e-5)


def test_html_escapes_a_hostile_answer_and_png_is_written(view: att.AttentionView, tmp_path: Path) -> None:
    page = attention_view.build_html(view)
    assert "<img src=x" not in page and "onerror=alert(1)>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert len(re.findall(r"<img ", page)) == 1  # only the heat map, a data: URL
    assert 'src="data:image/png;base64,' in page
    assert "Content-Security-Policy" in page and "script" not in page.lower()
    layer, head = view.top[0]
    assert f"layer {layer} head {head}" in page
    assert 'class="a9' in page  # the most attended rule token of a top head has the darkest shade
    out = tmp_path / "view.html"
    attention_view.write(view, out)
    assert out.read_text(encoding="utf-8").count("&lt;img src=x") == 1
    png = tmp_path / "view.png"
    attention_view.write(view, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


class _Uniform:
    """Stub model: every head attends uniformly to the causal prefix."""

    def __init__(self, layers: int = 2, heads: int = 3) -> None:
        self.layers, self.heads = layers, heads

    def __call__(self, input_ids: Any, **_: Any) -> Any:
        n = input_ids.shape[1]
        a = torch.tril(torch.ones(n, n)) / torch.arange(1, n + 1).unsqueeze(1)
        return type("Out", (), {"attentions": tuple(a.expand(1, self.heads, n, n) for _ in range(self.layers))})


def test_aggregation_is_exact_on_uniform_attention(loaded: Any, bench: Any) -> None:
    tok = loaded[2]
    v = att.korbench_view(bench, SUBSET, IDX, _Uniform(), tok, "[[24]]", top_k=2)
    (r0, r1), (a0, a1) = v.spans["rule"], v.spans["answer"]
    want = sum((r1 - r0) / (q + 1) for q in range(a0, a1)) / (a1 - a0)
    assert v.shape == (2, 3)
    assert abs(v.mass - want).max() < 1e-6
    assert (v.retrieval == 0).all()  # uniform rows: the top key is the first token, in the template
    assert v.row_sum_error < 1e-5


def test_cli_writes_png_and_html_from_the_gold(loaded: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from reasoneval.cli import app

    monkeypatch.setattr(att, "load_model", lambda spec: ("hf/stub", _Uniform(), loaded[2]))
    r = CliRunner().invoke(app, ["attention", f"korbench:{SUBSET}", "--item", IDX, "--out", str(tmp_path / "v.png"),
                                 "--top", "2"])
    assert r.exit_code == 0, r.output
    assert "answer: gold" in r.output and "#2 layer" in r.output
    assert (tmp_path / "v.png").read_bytes()[:4] == b"\x89PNG"
    r = CliRunner().invoke(app, ["attention", "korbench:Multi-Q", "--item", "1"])
    assert r.exit_code == 2 and "korbench:<subset>" in r.output


def test_cli_run_uses_the_stored_completion_and_prompt(loaded: Any, bench: Any, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from reasoneval.cli import app
    from reasoneval.core.values import Completion, Prompt
    from reasoneval.store.sqlite import RunStore

    item = _item(bench)
    sent = bench.prompt(item, "zero-shot")
    sent = Prompt.chat(sent.last_user_text(), system="Be brief.")
    store = tmp_path / "s.db"
    st = RunStore(store)
    st.upsert_run("run_kor_1", "korbench", "operation", "zero-shot", "llamacpp/default", {})
    st.put_completion("run_kor_1", item.key, 0, 0, "answer", SUBSET, sent, "k", Completion(text=HOSTILE))
    st.upsert_run("run_kor_3", "korbench", "operation", "three-shot", "llamacpp/default", {})
    st.close()
    monkeypatch.setattr(att, "load_model", lambda spec: ("hf/stub", _Uniform(), loaded[2]))
    seen: list[att.AttentionView] = []
    real_write = attention_view.write
    monkeypatch.setattr(attention_view, "write", lambda v, p: (seen.append(v), real_write(v, p)))
    out = tmp_path / "v.html"
    r = CliRunner().invoke(app, ["attention", f"korbench:{SUBSET}", "--item", IDX, "--run", "run_kor_1",
                                 "--store", str(store), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "answer: run run_kor_1" in r.output
    assert "Be brief." in seen[0].text and seen[0].span_text("answer") == HOSTILE  # the prompt the run sent
    page = out.read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "<img src=x" not in page
    r = CliRunner().invoke(app, ["attention", f"korbench:{SUBSET}", "--item", IDX, "--run", "run_kor_3",
                                 "--store", str(store)])
    assert r.exit_code == 2 and "zero-shot" in r.output
