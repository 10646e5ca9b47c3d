"""Shared machinery for the executable KOR-Bench cipher rules.

Every rule is a :class:`CipherRule` subclass.  A rule has

* *rule-level* parameters (keys, grids, shifts, tables ...): they are printed in the rule text, so changing
  them changes :meth:`CipherRule.rule_text`;
* *question-level* parameters (the Porta key, the Alberti period/increment): they are written as extra lines
  of the question (``Key: ...``) and do not appear in the rule text.

:meth:`CipherRule.default_params` returns the published values (question-level parameters get the values of
the rule's first three-shot example, only so that ``encrypt(text)`` works without arguments).

The rule text for arbitrary parameters is produced by substituting *fragments* of the published
``rule_content``: a rule lists the text fragments that depend on its parameters (:meth:`CipherRule._fragments`);
the fragments computed from the defaults must occur verbatim in the published text and are swapped for the
fragments computed from the requested parameters.  ``rule_text(default_params())`` is therefore the published
text by construction, and a fragment that does not match the published text raises an error.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

Direction = Literal["encrypt", "decrypt"]
Params = dict[str, Any]

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "cipher"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

ENCRYPT_TAIL = (
    "Please provide the encrypted answer, encapsulated in double square brackets. "
    "For example, the format should be: [[encrypted answer]]."
)
DECRYPT_TAIL = (
    "Please provide the decrypted answer, encapsulated in double square brackets. "
    "For example, the format should be: [[decrypted answer]]."
)
CATEGORY = {"encrypt": "Encryption", "decrypt": "Decryption"}
_HEAD_RE = re.compile(r'^(Plaintext|Ciphertext): "(.*)"$', re.DOTALL)

NUMBER_WORDS = "zero one two three four five six seven eight nine ten".split()
ORDINAL_WORDS = "zeroth first second third fourth fifth sixth seventh eighth ninth tenth".split()


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@cache
def published_rules() -> dict[int, dict[str, Any]]:
    """The 25 records of ``rule.jsonl`` keyed by integer rule id."""
    return {int(r["idx"]): r for r in _read_jsonl(DATA_DIR / "rule.jsonl")}


@cache
def published_samples() -> list[dict[str, Any]]:
    """The 250 records of ``sample.jsonl``."""
    return _read_jsonl(DATA_DIR / "sample.jsonl")


@cache
def published_needles() -> dict[tuple[int, str], tuple[str, ...]]:
    """Needle sentences of the published samples, keyed by (rule id, category); constant per key."""
    needles: dict[tuple[int, str], tuple[str, ...]] = {}
    for s in published_samples():
        needles.setdefault((int(s["rule_id"]), s["category"]), tuple(s["needle"]))
    return needles


# ---------------------------------------------------------------------------------------------- helpers


def keyed_alphabet(keyword: str, alphabet: str = UPPER) -> str:
    """Deduplicated ``keyword`` followed by the remaining letters of ``alphabet`` (in order)."""
    out: list[str] = []
    for ch in keyword + alphabet:
        if ch in alphabet and ch not in out:
            out.append(ch)
    return "".join(out)


def random_keyword(rng: random.Random, alphabet: str = UPPER, lo: int = 4, hi: int = 8) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def shuffled(rng: random.Random, items: str) -> str:
    chars = list(items)
    rng.shuffle(chars)
    return "".join(chars)


def chunks(seq: str, size: int) -> list[str]:
    return [seq[i : i + size] for i in range(0, len(seq), size)]


def pairs(seq: str) -> list[tuple[str, str]]:
    """Consecutive non-overlapping character pairs (a trailing odd character is ignored)."""
    return [(seq[i], seq[i + 1]) for i in range(0, len(seq) - 1, 2)]


def grid_find(grid: Sequence[str], ch: str) -> tuple[int, int]:
    """(row, col) of ``ch`` in a grid given as a list of row strings; ValueError if absent."""
    for r, row in enumerate(grid):
        c = row.find(ch)
        if c >= 0:
            return r, c
    raise ValueError(f"{ch!r} is not in the grid")


@dataclass(frozen=True)
class QuestionParam:
    """A parameter written as its own line in the question, e.g. ``Key: GVIEGFBVZ``."""

    label: str
    name: str
    convert: Callable[[str], Any] = str


# ------------------------------------------------------------------------------------------- the rule


class CipherRule:
    """Base class: one executable KOR-Bench cipher rule (encrypt, decrypt, parameters, text, questions)."""

    rule_id: int = 0
    question_params: tuple[QuestionParam, ...] = ()
    #: characters :meth:`random_plaintext` draws from
    plaintext_alphabet: str = UPPER
    #: default (min, max) plaintext length used by the item generator
    length_range: tuple[int, int] = (1, 16)

    # -- to override ---------------------------------------------------------------------------------

    def default_params(self) -> Params:
        return {}

    def random_params(self, rng: random.Random) -> Params:
        return self.default_params()

    def _encrypt(self, text: str, p: Params) -> str:
        raise NotImplementedError

    def _decrypt(self, text: str, p: Params) -> str:
        raise NotImplementedError

    def _fragments(self, p: Params) -> list[str]:
        """Rule-text fragments that depend on the parameters (aligned between default and ``p``)."""
        return []

    def length_bounds(self, params: Params) -> tuple[int, int]:
        """(min, max) plaintext length for generated items with these parameters."""
        return self.length_range

    # -- public API ------------------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return str(published_rules()[self.rule_id]["title"])

    @property
    def published_text(self) -> str:
        return str(published_rules()[self.rule_id]["rule_content"])

    def resolve(self, params: Mapping[str, Any] | None = None) -> Params:
        """Defaults overridden by ``params``; unknown names raise TypeError."""
        full = self.default_params()
        for name, value in (params or {}).items():
            if name not in full:
                raise TypeError(f"rule {self.rule_id}: unknown parameter {name!r}")
            full[name] = value
        return full

    def encrypt(self, plaintext: str, **params: Any) -> str:
        return self._encrypt(plaintext, self.resolve(params))

    def decrypt(self, ciphertext: str, **params: Any) -> str:
        return self._decrypt(ciphertext, self.resolve(params))

    def run(self, direction: Direction, text: str, **params: Any) -> str:
        return self.encrypt(text, **params) if direction == "encrypt" else self.decrypt(text, **params)

    def random_plaintext(self, rng: random.Random, length: int) -> str:
        return "".join(rng.choice(self.plaintext_alphabet) for _ in range(length))

    def question_param_names(self) -> tuple[str, ...]:
        return tuple(q.name for q in self.question_params)

    def rule_level_params(self, params: Mapping[str, Any] | None = None) -> Params:
        """The resolved parameters without the question-level ones."""
        qnames = self.question_param_names()
        return {k: v for k, v in self.resolve(params).items() if k not in qnames}

    def _substitution(self, params: Mapping[str, Any] | None) -> Callable[[str], str]:
        """A function that rewrites published text (or a part of it) for ``params``."""
        old = self._fragments(self.resolve(None))
        new = self._fragments(self.resolve(params))
        if len(old) != len(new):
            raise RuntimeError(f"rule {self.rule_id}: fragment lists differ in length")
        pairs = [(o, n) for o, n in zip(old, new, strict=True) if o != n]

        def apply(text: str) -> str:
            for i, (o, _) in enumerate(pairs):
                text = text.replace(o, f"\x00{i}\x00")
            for i, (_, n) in enumerate(pairs):
                text = text.replace(f"\x00{i}\x00", n)
            return text

        return apply

    def check_fragments(self) -> None:
        """Raise if a default fragment does not occur verbatim in the published rule text."""
        text = self.published_text
        for i, frag in enumerate(self._fragments(self.resolve(None))):
            if frag not in text:
                raise RuntimeError(f"rule {self.rule_id}: fragment {i} not in the published text: {frag!r}")

    def rule_text(self, params: Mapping[str, Any] | None = None) -> str:
        """The rule text with ``params`` substituted (the published text for the default parameters)."""
        self.check_fragments()
        return self._substitution(params)(self.published_text)

    def needle(self, direction: Direction, params: Mapping[str, Any] | None = None) -> list[str]:
        """The published needle sentences for this direction, rewritten for ``params``.

        Published needles are whole lines of the rule text (stripped, sometimes without the leading
        "- ").  A rewritten sentence that is no longer a line of the rewritten rule text (e.g. a row of a
        worked example whose layout changed) is dropped.
        """
        published = published_needles().get((self.rule_id, CATEGORY[direction]), ())
        sub = self._substitution(params)
        lines: set[str] = set()
        for line in self.rule_text(params).splitlines():
            lines.update((line.strip(), line.strip().removeprefix("- ")))
        return [s2 for s in published if (s2 := sub(s)) in lines]

    # -- questions -----------------------------------------------------------------------------------

    def parse_question(self, question: str) -> tuple[Direction, str, Params]:
        """(direction, text, question-level params) of a question in the published format."""
        body = question.split("\n\n", 1)[0]
        lines = body.split("\n")
        m = _HEAD_RE.match(lines[0])
        if m is None:
            raise ValueError(f"rule {self.rule_id}: cannot parse question head {lines[0]!r}")
        direction: Direction = "encrypt" if m.group(1) == "Plaintext" else "decrypt"
        by_label = {q.label: q for q in self.question_params}
        params: Params = {}
        for line in lines[1:]:
            label, sep, value = line.partition(": ")
            if not sep or label not in by_label:
                raise ValueError(f"rule {self.rule_id}: unexpected question line {line!r}")
            q = by_label[label]
            params[q.name] = q.convert(value.strip())
        return direction, m.group(2), params

    def format_question(
        self, direction: Direction, text: str, params: Mapping[str, Any] | None = None
    ) -> str:
        """The question in the published format (inverse of :meth:`parse_question`)."""
        full = self.resolve(params)
        head = f'Plaintext: "{text}"' if direction == "encrypt" else f'Ciphertext: "{text}"'
        lines = [head] + [f"{q.label}: {full[q.name]}" for q in self.question_params]
        tail = ENCRYPT_TAIL if direction == "encrypt" else DECRYPT_TAIL
        return "\n".join(lines) + "\n\n" + tail


def registry(rules: Iterable[CipherRule]) -> dict[int, CipherRule]:
    out: dict[int, CipherRule] = {}
    for rule in rules:
        if rule.rule_id in out:
            raise ValueError(f"duplicate rule id {rule.rule_id}")
        out[rule.rule_id] = rule
    return dict(sorted(out.items()))
