"""CheckpointEval (a transformers TrainerCallback) in a 2-step TRL run of a tiny random model on CPU: the saved
checkpoint is evaluated through `hf/<checkpoint dir>`, the figures reach the trainer's logs (log_history) and
the run is in the store. Skipped when torch / transformers / TRL are not installed (the `train` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
trl = pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

CORE = Path(__file__).resolve().parent.parent / "core"  # the tests' toy benchmark (a plugin)
WORDS = ["apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "island", "jungle"]


@pytest.fixture(autouse=True)
def toy_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(CORE))
    monkeypatch.setenv("REASONEVAL_PLUGINS", "toybench")
    from reasoneval.core import registry

    if "toy" not in registry.names():
        import toybench  # noqa: F401 - registers "toy"


def tiny_model(folder: Path) -> tuple[Any, Any]:
    """A random 2-layer Llama with a word-level tokenizer made here (no download)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {t: i for i, t in enumerate(["<pad>", "<s>", "</s>", "<unk>", *WORDS, "Item", "repeat", "[[", "]]",
                                         "a", "b", "user", "assistant", ":"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                                pad_token="<pad>", unk_token="<unk>")
    fast.chat_template = ("{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}"
                          "{% if add_generation_prompt %}assistant : {% endif %}")
    cfg = transformers.LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                   num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=128,
                                   pad_token_id=0, bos_token_id=1, eos_token_id=2)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg)
    fast.save_pretrained(folder)
    return model, fast


def test_trl_two_steps_logs_checkpoint_figures(tmp_path: Path) -> None:
    import reasoneval
    from reasoneval.trainer_callback import CheckpointEval

    model, tok = tiny_model(tmp_path / "tok")
    data = datasets.Dataset.from_list([{"text": f"Item a{i} : repeat {WORDS[i % 10]} [[ {WORDS[i % 10]} ]]"}
                                       for i in range(8)])
    store = tmp_path / "runs.db"
    cb = CheckpointEval("toy:b", limit=2, store=store, max_seconds=120, eval_kwargs={"max_tokens": 4})
    args = trl.SFTConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4,
                         save_strategy="steps", save_steps=2, logging_steps=1, report_to=[], use_cpu=True,
                         disable_tqdm=True, max_length=32, learning_rate=1e-3, dataset_num_proc=None)
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tok, callbacks=[cb])
    cb.attach(trainer)
    assert trainer.callback_handler.callbacks[0] is cb
    trainer.train()

    assert not cb.errors, cb.errors
    (step, results), = cb.history
    assert step == 2 and list(results) == ["toy:b"]
    res = results["toy:b"]
    ckpt = (tmp_path / "out" / "checkpoint-2").resolve()
    assert res.model == f"hf/{ckpt}" and res.answers == 2
    logged = [e for e in trainer.state.log_history if "eval/toy_b/accuracy" in e]
    assert len(logged) == 1
    entry = logged[0]
    assert entry["eval/step"] == 2.0 and entry["eval/toy_b/accuracy"] == res.accuracy
    assert entry["eval/toy_b/b/accuracy"] == res.subsets["b"].accuracy and entry["eval/toy_b/errors"] == 0.0
    assert reasoneval.load_run(res.run_id, store=store).answers == 2  # stored like any run


def test_every_n_steps_and_a_time_bound(tmp_path: Path) -> None:
    """Every step without a save: the weights are saved for the evaluation; a bound too short for the run cancels
    it, logs timed_out and the training goes on."""
    from reasoneval.trainer_callback import CheckpointEval

    model, tok = tiny_model(tmp_path / "tok")
    data = datasets.Dataset.from_list([{"text": f"Item a{i} : repeat {WORDS[i % 10]}"} for i in range(8)])
    cb = CheckpointEval(["toy:a"], every_n_steps=1, on_save=False, limit=3, store=tmp_path / "runs.db",
                        max_seconds=0.001, eval_kwargs={"max_tokens": 4})
    args = trl.SFTConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4,
                         save_strategy="no", logging_steps=1, report_to=[], use_cpu=True, disable_tqdm=True,
                         max_length=32, dataset_num_proc=None)
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tok)
    cb.attach(trainer)
    trainer.train()
    assert [s for s, _ in cb.history] == [1, 2]
    assert (tmp_path / "out" / "reasoneval-step-1" / "config.json").is_file()
    timed = [e for e in trainer.state.log_history if e.get("eval/timed_out") == 1.0]
    assert [e["eval/step"] for e in timed] == [1.0, 2.0]
    assert trainer.state.global_step == 2


def test_settings_are_checked() -> None:
    from reasoneval.trainer_callback import CheckpointEval

    with pytest.raises(ValueError, match="never evaluate"):
        CheckpointEval("toy", on_save=False)
    with pytest.raises(ValueError, match="every_n_steps"):
        CheckpointEval("toy", every_n_steps=0)
    with pytest.raises(ValueError, match=r"put \{step\} in the model string"):
        CheckpointEval("toy", model="openai-compat/m@http://127.0.0.1:9/v1", eval_kwargs={"seed": 1})
    CheckpointEval("toy", model="openai-compat/ckpt-{step}@http://127.0.0.1:9/v1", eval_kwargs={"seed": 1})



def test_grpo_trainer_with_reasoneval_reward(tmp_path: Path) -> None:
    """GRPOTrainer too, with reasoneval's own reward (its sandbox workers) in the same process."""
    from reasoneval.rewards import math_reward
    from reasoneval.trainer_callback import CheckpointEval

    model, tok = tiny_model(tmp_path / "tok")
    data = datasets.Dataset.from_list([{"prompt": [{"role": "user", "content": f"Item a{i} repeat {WORDS[i % 10]}"}],
                                        "gold": str(i)} for i in range(8)])
    cb = CheckpointEval("toy:b", limit=2, store=tmp_path / "runs.db", eval_kwargs={"max_tokens": 4})
    args = trl.GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=2,
                          num_generations=2, max_completion_length=4, save_strategy="steps", save_steps=2,
                          logging_steps=1, report_to=[], use_cpu=True, disable_tqdm=True)
    trainer = trl.GRPOTrainer(model=model, reward_funcs=math_reward, args=args, train_dataset=data,
                              processing_class=tok)
    cb.attach(trainer)
    trainer.train()
    assert not cb.errors and [s for s, _ in cb.history] == [2]
    assert [e["rewards/math_reward/mean"] for e in trainer.state.log_history if "rewards/math_reward/mean" in e]
    (entry,) = [e for e in trainer.state.log_history if "eval/toy_b/accuracy" in e]
    assert entry["eval/step"] == 2.0 and entry["eval/toy_b/accuracy"] == cb.history[0][1]["toy:b"].accuracy


def test_a_served_model_in_the_background(tmp_path: Path) -> None:
    """model= a served model (the fake OpenAI server), evaluated on a thread every step: training never waits for
    it; what finished is logged (a trigger while one runs is skipped and counted), all by the end of training."""
    from reasoneval.testing.procs import FakeServerProc
    from reasoneval.trainer_callback import CheckpointEval

    server = FakeServerProc("--delay", "0.05")
    try:
        model, tok = tiny_model(tmp_path / "tok")
        data = datasets.Dataset.from_list([{"text": f"Item a{i} : repeat {WORDS[i % 10]}"} for i in range(8)])
        cb = CheckpointEval("toy:a", every_n_steps=1, on_save=False, limit=4, store=tmp_path / "runs.db",
                            background=True, model=f"openai-compat/fake@{server.url}")
        args = trl.SFTConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4,
                             save_strategy="no", logging_steps=1, report_to=[], use_cpu=True, disable_tqdm=True,
                             max_length=32, dataset_num_proc=None)
        trainer = trl.SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tok)
        cb.attach(trainer)
        trainer.train()
    finally:
        server.stop()
    assert not cb.errors, cb.errors
    assert not (tmp_path / "out" / "reasoneval-step-1").exists()  # a served model: no weights saved
    logged = [e for e in trainer.state.log_history if "eval/toy_a/accuracy" in e]
    skipped = sum(e.get("eval/skipped", 0) for e in trainer.state.log_history)
    assert len(cb.history) + skipped == 2 and len(logged) == len(cb.history) >= 1
    res = cb.history[0][1]["toy:a"]
    assert res.model == f"openai-compat/fake@{server.url}" and res.answers == 4 and res.errors == 0
    assert logged[0]["eval/toy_a/accuracy"] == res.accuracy
    # the same served model string at every step: the step is the seed, so no step resumes another's run
    assert [r["toy:a"].record["spec"]["seed"] for _, r in cb.history] == [s for s, _ in cb.history]
    assert res.this_call is not None and res.this_call["generated"] == 4
