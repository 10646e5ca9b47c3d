"""Rule-focused attention (KOR-Bench App. F.3 / H) on the Hugging Face transformers backend.

One forward pass (eager attention, ``output_attentions=True``) over an item's zero-shot prompt, rendered by the
tokenizer's chat template exactly as the ``hf`` backend renders it, followed by an answer. Token offsets map every
position to a span: ``template`` (system turn, role markers, the template's own wording), ``rule`` (and within
it each rule line, the item's ``needle`` sentences marked), ``question`` and ``answer``.

For every (layer, head):

* ``mass``: mean over the answer tokens of the attention they put on the rule span (rows sum to 1, so in [0, 1]);
* ``retrieval``: the retrieval score of Wu et al. (2024) restricted to the rule: the share of answer tokens the
  head copy-pastes from the rule (its most attended key, from the position that predicts the token, lies in the
  rule and holds the same token id).

The paper names the Retrieval Head method but publishes no head selection, aggregation or colour scale (spec
§4.9: UNSPECIFIED); the "retrieval heads" shown here are the top-k heads by rule-attention mass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.values import Item, Prompt
from ...models.base import ModelError

SPANS = ("rule", "question", "answer")  # every other token is "template"


@dataclass(frozen=True)
class Segment:
    """One rule line: its text, its token range [start, end) (up to the next line: the lines partition the rule's
    tokens) and whether it holds a needle sentence."""

    text: str
    start: int
    end: int
    needle: bool


@dataclass
class AttentionView:
    item_key: str
    model: str
    answer_source: str
    text: str  # the rendered prompt followed by the answer
    input_ids: list[int]
    offsets: list[tuple[int, int]]  # character offsets of every token in ``text``
    labels: list[str]  # the span of every token: template | rule | question | answer
    spans: dict[str, tuple[int, int]]  # token range [start, end) of rule, question and answer
    segments: list[Segment]
    mass: Any  # numpy (layers, heads): rule-attention mass of the answer tokens
    retrieval: Any  # numpy (layers, heads): copy-paste retrieval score on the rule
    rule_attention: Any  # numpy (layers, heads, rule tokens): mean attention of the answer tokens to each
    row_sum_error: float  # max |sum of an attention row - 1| over every layer, head and query
    top: list[tuple[int, int]] = field(default_factory=list)  # (layer, head), best first
    answer_truncated: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.mass.shape[0]), int(self.mass.shape[1])

    def span_text(self, name: str) -> str:
        s, e = self.spans[name]
        return self.text[self.offsets[s][0]:self.offsets[e - 1][1]] if e > s else ""

    def segment_mass(self, layer: int, head: int) -> list[float]:
        """Attention mass of the answer tokens on each rule line, for one head."""
        r0 = self.spans["rule"][0]
        row = self.rule_attention[layer, head]
        return [float(row[g.start - r0:g.end - r0].sum()) for g in self.segments]


# ---------------------------------------------------------------- model loading

def load_model(spec: str | None) -> tuple[str, Any, Any]:
    """(label, model, tokenizer) with eager attention. ``None``/``hf/default``: the shipped SmolLM2 GGUF;
    ``hf/<folder>``: a local transformers model; ``hf/<file.gguf>``: any local GGUF."""
    from ...models.llamacpp import default_gguf

    if spec in (None, "", "default", "hf/default"):
        path = default_gguf()
    elif spec.startswith("hf/"):
        path = Path(spec[3:]).expanduser()
    else:
        raise ModelError(f"{spec}: the attention view runs on the hf backend: --model hf/<folder or file.gguf>")
    if not path.exists():
        raise ModelError(f"{spec}: no such local model {str(path)!r}")
    try:
        import torch  # noqa: F401
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as e:
        raise ModelError("the attention view needs torch and transformers: pip install 'reasoneval[hf]'") from e
    label = f"hf/{path}"
    if path.suffix == ".gguf":
        model, tok = load_gguf(path)
        return label, model, tok
    try:
        tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True, attn_implementation="eager")
    except (OSError, ValueError) as e:
        raise ModelError(f"{spec}: cannot load a local causal LM from {str(path)!r}: {e}") from e
    return label, model.eval(), tok


def load_gguf(path: Path) -> tuple[Any, Any]:
    """A GGUF file as a transformers model (weights dequantised to float32) and tokenizer. Built from the
    GGUF config and tensors directly: ``from_pretrained(gguf_file=...)`` also wants ``accelerate``, which
    reasoneval does not install."""
    try:
        import gguf  # noqa: F401
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
        from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint
    except ImportError as e:
        raise ModelError("reading a GGUF in transformers needs gguf: pip install 'reasoneval[hf]'") from e
    folder, name = str(path.parent), path.name
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    cfg = AutoConfig.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager")
    tensors = load_gguf_checkpoint(str(path), return_tensors=True, model_to_load=model)["tensors"]
    missing = model.load_state_dict(tensors, strict=False).missing_keys
    model.tie_weights()
    lost = [k for k in missing if not (k == "lm_head.weight" and getattr(cfg, "tie_word_embeddings", False))]
    if lost:
        raise ModelError(f"{path}: the GGUF has no weights for {', '.join(lost[:5])}")
    return model.eval(), tok


# ---------------------------------------------------------------- the computation

def render(tok: Any, prompt: Prompt) -> str:
    """The prompt as the hf backend sends it (chat template, generation prompt)."""
    from ...models.hf import HFBackend

    return HFBackend("hf/attention", "", model=object(), tokenizer=tok).render(prompt)


def _char_spans(text: str, user: str, rule: str, question: str, answer_at: int) -> dict[str, tuple[int, int]]:
    u0 = text.find(user)
    r0 = user.find(rule) if rule else -1
    q0 = user.find(question, max(r0, 0) + len(rule))
    if u0 < 0 or r0 < 0 or q0 < 0:
        raise ValueError("the rendered prompt does not contain the rule and the question verbatim")
    return {"rule": (u0 + r0, u0 + r0 + len(rule)), "question": (u0 + q0, u0 + q0 + len(question)),
            "answer": (answer_at, len(text))}


def _labels(offsets: list[tuple[int, int]], chars: dict[str, tuple[int, int]]) -> list[str]:
    out = []
    for s, e in offsets:
        out.append(next((n for n, (cs, ce) in chars.items() if s < ce and e > cs), "template"))
    return out


def _segments(rule: str, rule_at: int, offsets: list[tuple[int, int]], span: tuple[int, int],
              needle: list[str]) -> list[Segment]:
    marks = [(rule.find(n), rule.find(n) + len(n)) for n in needle if n and rule.find(n) >= 0]
    out = []
    for m in re.finditer(r"[^\n]+", rule):
        if not m.group().strip():
            continue
        c0, c1 = rule_at + m.start(), rule_at + m.end()
        toks = [i for i in range(*span) if offsets[i][0] < c1 and offsets[i][1] > c0]
        if toks:
            hit = any(a < m.end() and b > m.start() for a, b in marks)
            out.append(Segment(m.group(), toks[0], toks[-1] + 1, hit))
    # a line's tokens run to the next line's first token (its line break included): the lines partition the rule
    ends = [g.start for g in out[1:]] + [span[1]]
    return [Segment(g.text, span[0] if k == 0 else g.start, e, g.needle) for k, (g, e) in enumerate(zip(out, ends,
                                                                                                      strict=True))]


def compute(model: Any, tok: Any, prompt: Prompt, rule: str, question: str, answer: str, *, needle: list[str],
            item_key: str = "", label: str = "", answer_source: str = "", top_k: int = 5,
            max_answer_tokens: int = 256) -> AttentionView:
    import numpy as np
    import torch

    text0 = render(tok, prompt)
    enc = tok(text0, return_offsets_mapping=True)  # as the hf backend encodes the prompt
    ans = tok(answer, add_special_tokens=False, return_offsets_mapping=True)  # as generated: after the prompt
    a_ids, a_off = list(ans["input_ids"]), [tuple(o) for o in ans["offset_mapping"]]
    truncated = len(a_ids) > max_answer_tokens
    if truncated:
        a_ids, a_off = a_ids[:max_answer_tokens], a_off[:max_answer_tokens]
        answer = answer[:a_off[-1][1]]
    if not a_ids:
        raise ValueError("the answer is empty: nothing attends to the rule")
    text = text0 + answer
    ids = list(enc["input_ids"]) + a_ids
    offsets = [(int(s), int(e)) for s, e in enc["offset_mapping"]] + [(len(text0) + s, len(text0) + e)
                                                                     for s, e in a_off]
    user = prompt.last_user_text()
    chars = _char_spans(text, user, rule, question, len(text0))
    labels = _labels(offsets, chars)
    labels[len(enc["input_ids"]):] = ["answer"] * len(a_ids)
    spans = {n: (labels.index(n), len(labels) - labels[::-1].index(n)) for n in SPANS}
    (r0, r1), (a0, a1) = spans["rule"], spans["answer"]
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
    target = torch.tensor(ids[a0:a1])
    key_ids = torch.tensor(ids)
    mass, retr, rule_att, err = [], [], [], 0.0
    for a in out.attentions:
        a = a[0].float()  # (heads, T, T)
        err = max(err, float((a.sum(-1) - 1).abs().max()))
        ra = a[:, a0:a1, r0:r1].mean(1)  # (heads, rule tokens)
        rule_att.append(ra)
        mass.append(ra.sum(-1))
        top = a[:, a0 - 1:a1 - 1, :].argmax(-1)  # the key each head attends most when predicting a token
        copied = (top >= r0) & (top < r1) & (key_ids[top] == target)
        retr.append(copied.float().mean(-1))
    m = torch.stack(mass).numpy().astype(np.float64)
    order = np.argsort(-m, axis=None, kind="stable")[:top_k]
    return AttentionView(item_key, label, answer_source, text, ids, offsets, labels, spans,
                         _segments(rule, chars["rule"][0], offsets, spans["rule"], needle), m,
                         torch.stack(retr).numpy().astype(np.float64), torch.stack(rule_att).numpy(), err,
                         [(int(i // m.shape[1]), int(i % m.shape[1])) for i in order], truncated)


def korbench_view(bench: Any, subset: str, idx: str, model: Any, tok: Any, answer: str | None = None, *,
                  prompt: Prompt | None = None, label: str = "", answer_source: str = "",
                  top_k: int = 5) -> AttentionView:
    """The view of KOR-Bench item ``subset/idx``: its zero-shot prompt (or ``prompt``, e.g. the one a stored run
    sent) and ``answer`` (None: the gold ``[[...]]``)."""
    items = {it.id: it for it in bench.load(subset, "zero-shot")}
    if idx not in items:
        raise KeyError(f"korbench:{subset} has no item {idx!r}")
    item: Item = items[idx]
    d = item.data
    if answer is None:
        answer, answer_source = str(item.gold), "gold"
    return compute(model, tok, prompt or bench.prompt(item, "zero-shot"), d["rule_content"], d["question"], answer,
                   needle=list(d.get("needle") or []), item_key=item.key, label=label,
                   answer_source=answer_source, top_k=top_k)
