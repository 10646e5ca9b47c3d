"""Fresh KOR-Bench cipher items with new keys / parameters and plaintext lengths.

``generate_items(rule, n, seed)`` returns records in the ``data/cipher/sample.jsonl`` schema
(``idx, question, answer, category, rule_id, needle``), phrased exactly like the published questions of that
rule (including the ``Key:`` / ``period:`` / ``increment:`` lines).  An item whose rule-level parameters differ
from the published ones also carries ``rule_content``: its own rule text with the new parameters substituted.

Items alternate Encryption / Decryption.  The plaintext is canonicalised as ``decrypt(encrypt(p))`` (e.g.
rule 11 pads odd lengths with X and drops Q), so that decrypting an encryption item's answer gives its
plaintext and encrypting a decryption item's answer gives its ciphertext.  The output is a pure function of
``(rule, n, seed, published_fraction)``.
"""

from __future__ import annotations

import random
from typing import Any

from .ciphers import CATEGORY, RULES, CipherRule, Direction, Params


def _draw_params(cipher: CipherRule, rng: random.Random, published_fraction: float) -> Params:
    params = cipher.random_params(rng)
    if rng.random() < published_fraction:
        qnames = cipher.question_param_names()
        params = {**cipher.default_params(), **{k: v for k, v in params.items() if k in qnames}}
    return cipher.resolve(params)


def _make_item(
    cipher: CipherRule, rng: random.Random, direction: Direction, params: Params
) -> dict[str, Any]:
    lo, hi = cipher.length_bounds(params)
    for _ in range(100):
        raw = cipher.random_plaintext(rng, rng.randint(lo, hi))
        ciphertext = cipher.encrypt(raw, **params)
        plaintext = cipher.decrypt(ciphertext, **params)
        if plaintext and cipher.encrypt(plaintext, **params) == ciphertext:
            break
    else:  # pragma: no cover - every rule round-trips after canonicalisation
        raise RuntimeError(f"rule {cipher.rule_id}: could not draw a round-tripping plaintext")
    text, answer = (plaintext, ciphertext) if direction == "encrypt" else (ciphertext, plaintext)
    return {
        "question": cipher.format_question(direction, text, params),
        "answer": f"[[{answer}]]",
        "category": CATEGORY[direction],
        "rule_id": str(cipher.rule_id),
        "needle": cipher.needle(direction, params),
    }


def generate_with_params(
    rule: int, n: int, seed: int, *, published_fraction: float = 0.25
) -> list[tuple[dict[str, Any], Params]]:
    """Like :func:`generate_items`, but each item comes with the full parameters it was generated with."""
    if rule not in RULES:
        raise ValueError(f"unknown cipher rule {rule!r}; expected 1..25")
    if n < 0:
        raise ValueError("n must be >= 0")
    cipher = RULES[rule]
    published_text = cipher.rule_text()
    rng = random.Random(f"korbench-cipher:{rule}:{seed}")
    out: list[tuple[dict[str, Any], Params]] = []
    for i in range(n):
        direction: Direction = "encrypt" if i % 2 == 0 else "decrypt"
        params = _draw_params(cipher, rng, published_fraction)
        item = {"idx": str(i + 1), **_make_item(cipher, rng, direction, params)}
        text = cipher.rule_text(params)
        if text != published_text:
            item["rule_content"] = text
        out.append((item, params))
    return out


def generate_items(rule: int, n: int, seed: int, *, published_fraction: float = 0.25) -> list[dict[str, Any]]:
    """``n`` new items for cipher ``rule`` (1-25), deterministic in ``seed``.

    ``published_fraction`` is the probability that an item keeps the published rule-level parameters (its
    question-level parameters, such as the Porta key, are always fresh); 0 always varies them, 1 never does.
    """
    return [item for item, _ in generate_with_params(rule, n, seed, published_fraction=published_fraction)]
