"""CacheKeyer gives exactly cache_key's keys (stored response caches stay valid), for any model, parameters,
prompt and sample, lone surrogates and non-ASCII text included; GenParams.canonical_json is the canonical JSON of
to_json and does not leak into equality or serialisation."""

from __future__ import annotations

import dataclasses
import random

from reasoneval.core.hashing import CacheKeyer, cache_key, canonical_json
from reasoneval.core.values import GenParams, Message, Prompt

_TEXTS = ("", "x", "Ünïcødé ✓ 数学", 'quotes " and \\ backslashes', "lone \ud800 surrogate", "tab\tnew\nline",
          "{\"model\":\"trap\"}", "a" * 5000)


def _prompt(rng: random.Random) -> Prompt:
    if rng.random() < 0.3:
        return Prompt(text=rng.choice(_TEXTS) + rng.choice(_TEXTS))
    roles = ("system", "user", "assistant")
    return Prompt(messages=tuple(Message(rng.choice(roles), rng.choice(_TEXTS)) for _ in range(rng.randint(1, 4))))


def _params(rng: random.Random) -> GenParams:
    return GenParams(max_tokens=rng.choice([None, 1, 256, 32768]), temperature=rng.choice([None, 0.0, 0.7]),
                     top_p=rng.choice([None, 0.95]), seed=rng.choice([None, 0, 7]),
                     stop=tuple(rng.sample(_TEXTS, rng.randint(0, 2))),
                     system=rng.choice([None, "Be brief.", "ß\ud800"]))


def test_keyer_gives_cache_keys_exactly() -> None:
    rng = random.Random(17)
    for _ in range(300):
        model = rng.choice(["llamacpp/default", "openai-compat/q@http://127.0.0.1:8000/v1", "m\u00e9\ud800"])
        params = _params(rng)
        keyer = CacheKeyer(model, params.canonical_json())
        for _ in range(3):
            prompt, sample = _prompt(rng), rng.choice([0, 1, 9, 10, 123])
            assert keyer.key(prompt.to_json(), sample) == cache_key(model, prompt.to_json(), params.to_json(), sample)


def test_keys_differ_when_any_part_differs() -> None:
    p, q = Prompt(text="a"), Prompt(text="b")
    g = GenParams(max_tokens=5)
    k = CacheKeyer("m", g.canonical_json())
    keys = {k.key(p.to_json(), 0), k.key(q.to_json(), 0), k.key(p.to_json(), 1),
            CacheKeyer("n", g.canonical_json()).key(p.to_json(), 0),
            CacheKeyer("m", GenParams(max_tokens=6).canonical_json()).key(p.to_json(), 0)}
    assert len(keys) == 5


def test_params_canonical_json_is_cached_and_invisible() -> None:
    g = GenParams(max_tokens=5, temperature=0.0, stop=("x",))
    first = g.canonical_json()
    assert first == canonical_json(g.to_json())
    assert g.canonical_json() is first  # computed once
    h = dataclasses.replace(g, max_tokens=6)
    assert h.canonical_json() == canonical_json(h.to_json()) != first  # a changed copy is not served the old one
    assert g == GenParams(max_tokens=5, temperature=0.0, stop=("x",))  # equality ignores the cached string
    assert "_canonical" not in g.to_json() and GenParams.from_json(g.to_json()) == g


def test_keyer_keeps_prompt_states_and_still_gives_exact_keys() -> None:
    """A prompt asked again (the samples of an item, interleaved with other items, past the kept window) gets
    the same key as :func:`cache_key`, from its kept hash state or a new one."""
    rng = random.Random(5)
    params = GenParams(max_tokens=64)
    keyer = CacheKeyer("m", params.canonical_json())
    prompts = [_prompt(rng) for _ in range(CacheKeyer.KEPT + 40)]
    for _ in range(3 * len(prompts)):
        prompt, sample = rng.choice(prompts), rng.randint(0, 30)
        pj = canonical_json(prompt.to_json())
        assert keyer.key_of(pj, sample) == cache_key("m", prompt.to_json(), params.to_json(), sample)
    assert len(keyer._after) <= CacheKeyer.KEPT
