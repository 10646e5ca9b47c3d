"""A real training run: a few GRPO steps with TRL's GRPOTrainer on an exported FineReason mix, rewarded by
``reasoneval.rewards.finereason_reward``. The model (a one-layer GPT-2) and its tokenizer (a BPE trained on
the mix) are built here, on the CPU, with nothing downloaded. Skips only when TRL is not installed
(``pip install 'reasoneval[train]'``).

So that the random model earns some reward, its vocabulary has the two state-checking answers as whole tokens
and generation may emit only those (``suppress_tokens`` = everything else): each completion ends in
``Answer: (A)`` or ``Answer: (B)``, which the engines' label makes right or wrong, so the groups have
reward variance and the policy gets a gradient."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from rewardrows import export_rows

pytest.importorskip("trl")

CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")
SPECIAL = ["<|pad|>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]
ANSWERS = ["Answer: (A)", "Answer: (B)"]


def tiny_tokenizer(texts: list[str]) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=600, special_tokens=SPECIAL,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<|pad|>", eos_token="<|end|>")
    fast.chat_template = CHAT_TEMPLATE
    return fast


def test_grpo_steps_log_our_rewards(tmp_path: Path) -> None:
    import torch
    from datasets import Dataset
    from transformers import GPT2Config, GPT2LMHeadModel
    from trl import GRPOConfig, GRPOTrainer

    from reasoneval.rewards import finereason_reward

    rows = export_rows(tmp_path, "--total", "8", "--math-ratio", "0.5", "--puzzles", "game24,graphcoloring",
                       "--sc-ratio", "1.0", "--seed", "3")
    tok = tiny_tokenizer([m["content"] for r in rows for m in r["messages"]])
    tok.add_tokens(ANSWERS)
    allowed = set(tok.convert_tokens_to_ids(ANSWERS))
    longest = max(len(tok(tok.apply_chat_template(r["prompt"], add_generation_prompt=True, tokenize=False))["input_ids"])
                  for r in rows)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_positions=longest + 64, n_embd=32, n_layer=1,
                                       n_head=2, bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id,
                                       pad_token_id=tok.pad_token_id))

    calls: list[tuple[dict[str, Any], list[float]]] = []

    @functools.wraps(finereason_reward)
    def reward(prompts: Any, completions: Any, **columns: Any) -> list[float]:
        out = finereason_reward(prompts, completions, **columns)
        calls.append((columns, out))
        return out

    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=12, max_steps=2, learning_rate=1e-3, logging_steps=1,
                      report_to="none", use_cpu=True, save_strategy="no", seed=0, bf16=False,
                      dataloader_num_workers=0,
                      generation_kwargs={"suppress_tokens": [i for i in range(len(tok)) if i not in allowed]})
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=args, train_dataset=Dataset.from_list(rows),
                          processing_class=tok)
    trainer.train()

    assert len(calls) >= 2
    for columns, out in calls:
        assert {"source", "task", "puzzle", "state", "gold", "answer"} <= set(columns)
        assert len(out) == len(columns["task"]) and set(out) <= {0.0, 1.0}
    logged = [h for h in trainer.state.log_history if "rewards/finereason_reward/mean" in h]
    assert len(logged) == 2
    for h, (_, out) in zip(logged, calls, strict=False):
        assert h["rewards/finereason_reward/mean"] == pytest.approx(sum(out) / len(out))
    assert any(h["rewards/finereason_reward/mean"] > 0 for h in logged)  # right labels were rewarded ...
    assert any(h["grad_norm"] > 0 for h in logged)  # ... and moved the policy
    kinds = {k for h in trainer.state.log_history for k in h if k.startswith("finereason/")}
    assert "finereason/state_checking" in kinds
    assert kinds <= {"finereason/math", "finereason/state_checking", "finereason/state_transition"}
