"""Executable KOR-Bench cipher rules (rules 1-25 of the Cipher category).

Each rule was implemented from its published ``rule_content`` (``data/cipher/rule.jsonl``) and reproduces the
gold answers of ``data/cipher/sample.jsonl``.  ``RULES`` maps the rule id to a :class:`CipherRule` with

* ``encrypt(plaintext, **params)`` / ``decrypt(ciphertext, **params)``,
* ``default_params()`` (the published constants) and ``random_params(rng)`` (fresh keys / tables),
* ``parse_question(question)`` -> ``(direction, text, question_params)`` and ``format_question(...)``,
* ``random_plaintext(rng, length)``,
* ``rule_text(params)`` (the published text when ``params`` are the defaults).

See the module docstrings for rule-specific quirks of the published data.
"""

from __future__ import annotations

from .base import CATEGORY, CipherRule, Direction, Params, QuestionParam, published_rules, published_samples
from .base import registry as _registry
from .modern import EccCipher, RsaCipher, SBoxCipher, ShaCipher, XorCipher
from .monoalphabetic import Affine, InverseShiftSubstitution, MultiTap, Pigpen, Polybius
from .polyalphabetic import Alberti, Jefferson, PhillipsFigure, Porta, Solitaire
from .polygraphic import Bifid, Collon, Digrafid, FourSquare, Morbit
from .transposition import Adfgvx, PathCipher, Redefence, RotatingGrid, Transposition

RULES: dict[int, CipherRule] = _registry(
    [
        InverseShiftSubstitution(), Pigpen(), MultiTap(), Polybius(), Affine(),
        Solitaire(), PhillipsFigure(), Porta(), Alberti(), Jefferson(),
        FourSquare(), Morbit(), Bifid(), Digrafid(), Collon(),
        Redefence(), PathCipher(), RotatingGrid(), Adfgvx(), Transposition(),
        XorCipher(), SBoxCipher(), RsaCipher(), EccCipher(), ShaCipher(),
    ]
)  # fmt: skip

__all__ = [
    "CATEGORY",
    "RULES",
    "CipherRule",
    "Direction",
    "Params",
    "QuestionParam",
    "published_rules",
    "published_samples",
]
