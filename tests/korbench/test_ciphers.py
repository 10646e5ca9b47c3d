"""Executable KOR-Bench cipher rules: published golds, generated items, rule texts."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from reasoneval.benchmarks.korbench.cipher_generate import generate_items, generate_with_params
from reasoneval.benchmarks.korbench.ciphers import (
    CATEGORY,
    RULES,
    Direction,
    published_rules,
    published_samples,
)
from reasoneval.benchmarks.korbench.ciphers.base import DATA_DIR, _read_jsonl

SAMPLES = published_samples()
THREE_SHOT = _read_jsonl(DATA_DIR / "three-shot.jsonl")
RULE_IDS = sorted(RULES)
SEEDS = range(100)


def _gold(record: dict[str, Any]) -> str:
    answer = str(record["answer"])
    assert answer.startswith("[[") and answer.endswith("]]"), answer
    return answer[2:-2]


def _solve(record: dict[str, Any]) -> str:
    cipher = RULES[int(record["rule_id"])]
    direction, text, params = cipher.parse_question(record["question"])
    assert CATEGORY[direction] == record["category"]
    return cipher.run(direction, text, **params)


# ------------------------------------------------------------------------------------ published data


def test_registry_covers_all_rules() -> None:
    assert RULE_IDS == list(range(1, 26))
    assert sorted(published_rules()) == RULE_IDS
    assert len(SAMPLES) == 250


def test_all_published_golds_reproduced() -> None:
    """250/250: every sample's gold answer; failures are listed with rule and idx."""
    failures = []
    for record in SAMPLES:
        try:
            got = _solve(record)
        except Exception as exc:  # report, do not stop at the first failure
            got = f"<{type(exc).__name__}: {exc}>"
        if got != _gold(record):
            failures.append(
                f"rule {record['rule_id']} idx {record['idx']}: gold {_gold(record)!r}, got {got!r}"
            )
    assert not failures, f"{len(failures)}/250 golds not reproduced:\n" + "\n".join(failures)


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: f"rule{r['rule_id']}-idx{r['idx']}")
def test_published_sample(record: dict[str, Any]) -> None:
    assert _solve(record) == _gold(record), f"rule {record['rule_id']} idx {record['idx']}"


@pytest.mark.parametrize("record", THREE_SHOT, ids=lambda r: f"rule{r['rule_id']}-shot{r['idx']}")
def test_three_shot_example(record: dict[str, Any]) -> None:
    assert _solve(record) == _gold(record)


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: f"rule{r['rule_id']}-idx{r['idx']}")
def test_question_format_roundtrip(record: dict[str, Any]) -> None:
    cipher = RULES[int(record["rule_id"])]
    direction, text, params = cipher.parse_question(record["question"])
    assert cipher.format_question(direction, text, params) == record["question"]


@pytest.mark.parametrize("rule", RULE_IDS)
def test_rule_text_default_is_published(rule: int) -> None:
    cipher = RULES[rule]
    published = published_rules()[rule]["rule_content"]
    assert cipher.rule_text() == published
    assert cipher.rule_text(cipher.default_params()) == published


@pytest.mark.parametrize("rule", RULE_IDS)
def test_needle_default_is_published(rule: int) -> None:
    cipher = RULES[rule]
    for record in SAMPLES:
        if int(record["rule_id"]) == rule:
            direction: Direction = "encrypt" if record["category"] == "Encryption" else "decrypt"
            assert cipher.needle(direction) == record["needle"]


# ------------------------------------------------------------------------------------ random parameters


@pytest.mark.parametrize("rule", RULE_IDS)
def test_random_params_roundtrip_and_text(rule: int) -> None:
    cipher = RULES[rule]
    published = cipher.rule_text()
    varied = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        params = cipher.random_params(rng)
        assert set(params) <= set(cipher.default_params())
        lo, hi = cipher.length_bounds(params)
        plaintext = cipher.random_plaintext(rng, rng.randint(lo, hi))
        assert all(ch in cipher.plaintext_alphabet for ch in plaintext)
        ciphertext = cipher.encrypt(plaintext, **params)
        decrypted = cipher.decrypt(ciphertext, **params)
        if rule == 11:  # Q-less plaintext padded to even length with X
            assert decrypted == plaintext + "X" * (len(plaintext) % 2)
        else:
            assert decrypted == plaintext, f"rule {rule} seed {seed}: {plaintext!r} -> {ciphertext!r}"
        text = cipher.rule_text(params)
        varied += text != published
    if cipher.rule_level_params():
        assert varied > 0, f"rule {rule}: random parameters never change the rule text"


# ------------------------------------------------------------------------------------ generator


@pytest.mark.parametrize("rule", RULE_IDS)
def test_generated_items_roundtrip(rule: int) -> None:
    cipher = RULES[rule]
    published = cipher.rule_text()
    lengths = set()
    for seed in SEEDS:
        pairs = generate_with_params(rule, 4, seed)
        assert [item for item, _ in pairs] == generate_items(rule, 4, seed)
        for i, (item, params) in enumerate(pairs):
            where = f"rule {rule} seed {seed} idx {item['idx']}"
            assert item["idx"] == str(i + 1)
            assert item["rule_id"] == str(rule)
            assert isinstance(item["needle"], list)
            assert item["category"] == ("Encryption" if i % 2 == 0 else "Decryption")
            direction, text, qparams = cipher.parse_question(item["question"])
            assert CATEGORY[direction] == item["category"]
            assert cipher.format_question(direction, text, qparams) == item["question"]
            assert qparams == {k: params[k] for k in cipher.question_param_names()}
            answer = _gold(item)
            if direction == "encrypt":
                lengths.add(len(text))
                assert cipher.encrypt(text, **params) == answer, where
                assert cipher.decrypt(answer, **params) == text, where
            else:
                lengths.add(len(answer))
                assert cipher.decrypt(text, **params) == answer, where
                assert cipher.encrypt(answer, **params) == text, where
            own_text = cipher.rule_text(params)
            if own_text == published:
                assert "rule_content" not in item, where
            else:
                assert item["rule_content"] == own_text, where
            for sentence in item["needle"]:
                assert sentence in item.get("rule_content", published), where
    assert len(lengths) >= 5, f"rule {rule}: plaintext lengths barely vary: {sorted(lengths)}"


def test_generated_items_match_published_schema() -> None:
    keys = set(SAMPLES[0])
    for rule in RULE_IDS:
        for item in generate_items(rule, 6, 123):
            assert keys <= set(item) <= keys | {"rule_content"}
            assert re.fullmatch(r"\[\[.+\]\]", item["answer"], re.DOTALL)


@pytest.mark.parametrize("rule", RULE_IDS)
def test_generator_deterministic(rule: int) -> None:
    first = generate_items(rule, 8, 42)
    assert first == generate_items(rule, 8, 42)
    assert first != generate_items(rule, 8, 43)
    assert generate_items(rule, 3, 42) == first[:3]


def test_generator_published_fraction_extremes() -> None:
    for rule in RULE_IDS:
        assert all("rule_content" not in item for item in generate_items(rule, 6, 7, published_fraction=1.0))
    assert any("rule_content" in item for item in generate_items(1, 6, 7, published_fraction=0.0))


def test_generator_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        generate_items(26, 1, 0)
    with pytest.raises(ValueError):
        generate_items(1, -1, 0)


def test_no_eval_or_exec() -> None:
    src = Path(__file__).resolve().parents[2] / "src" / "reasoneval" / "benchmarks" / "korbench"
    files = [src / "cipher_generate.py", *sorted((src / "ciphers").glob("*.py"))]
    assert len(files) >= 7
    for path in files:
        code = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\s*\(", code), path
