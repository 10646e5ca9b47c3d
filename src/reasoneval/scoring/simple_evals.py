r"""simple-evals' multiple-choice answer reading, as its reference code reads it (``official`` scoring).

OpenAI's simple-evals (``common.py`` and ``mmlu_eval.py``, current ``main``) reads a zero-shot CoT answer thus:

1. the response is *normalised*: the substrings ``**``, ``$\boxed{``, ``}$``, ``\$``, ``$\text{``, ``$``,
   ``\mathrm{``, ``\{``, ``\text``, ``\(``, ``\mathbf{``, ``{`` and ``\boxed`` are removed, one after the other,
   in that order (:func:`normalize_response`);
2. for each answer prefix of its multilingual list, in list order (``Answer\s*:`` first), the pattern
   ``(?i)PREFIX[ \t]*(LETTER)`` is searched in the whole text; the first prefix that matches anywhere decides,
   and of its matches the first in the text. ``LETTER`` is ``A``-``D`` (case-insensitive, so ``a`` matches
   and then compares unequal to ``A``), the Arabic letters from alef-hamza to dal, four Bengali letters, or a
   full-width ``Ａ``-``Ｄ`` (``(?i)`` lets ``ａ``-``ｄ`` match too);
3. the letter is *normalised* (:func:`normalize_letter`): Arabic, Bengali and full-width A-D become ``A``-``D``;
4. the score is ``extracted == gold`` (nothing found: wrong).

There is no ``<think>`` handling and no truncation: the text is read as the model returned it. The prefixes
and the letter class below are the reference's own data (they define which answers it reads), written out
with escapes; everything else here is this module's own code. Each search is linear in the text.
"""

from __future__ import annotations

import re

#: the reference's answer prefixes, in its order (``MULTILINGUAL_ANSWER_REGEXES``); ``\s`` is a regex class
ANSWER_PREFIXES: tuple[str, ...] = (
    "Answer\\s*:",
    "Answer\\s*:\u200b\u200b\u200b\u200b\u200b\u200b",  # with the reference's invisible characters
    "\u0989\u09a4\u09cd\u09a4\u09b0\\s*:",
    "\u0909\u0924\u094d\u0924\u0930\\s*:",
    "\u0989\u09a4\u09cd\u09a4\u09b0\u0983",
    "\u0989\u09a4\u09cd\u09a4\u09b0\\s*:",
    "Antwort\\s*:",
    "\ub2f5\ubcc0\\s*:",
    "\uc815\ub2f5\\s*:",
    "\ub2f5\\s*:",
    "\u7b54\u6848\\s*\uff1a",
    "\u7b54\u6848\\s*:",
    "\u7b54\\s*\uff1a",
    "\u7b54\\s*:",
    "\u7b54\u590d\\s*\uff1a",
    "\u7b54\u66f0\\s*\uff1a",
    "\u0627\u0644\u0625\u062c\u0627\u0628\u0629:",
    "\u0627\u0644\u062c\u0648\u0627\u0628:",
    "\u0625\u062c\u0627\u0628\u0629:",
    "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0627\u0644\u0646\u0647\u0627\u0626\u064a\u0629:",
    "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0627\u0644\u0635\u062d\u064a\u062d\u0629:",
    "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0627\u0644\u0635\u062d\u064a\u062d\u0629 \u0647\u064a:",
    "\u0627\u0644\u0625\u062c\u0627\u0628\u0629 \u0647\u064a:",
    "\u0627\u0644\u062c\u0648\u0627\u0628 \u0627\u0644\u0646\u0647\u0627\u0626\u064a:",
    "Respuesta\\s*:",
    "Risposta\\s*:",
    "\u7b54\u3048\\s*:",
    "\u7b54\u3048\\s*\uff1a",
    "\u56de\u7b54\\s*:",
    "\u56de\u7b54\\s*\uff1a",
    "\u89e3\u7b54\\s*:",
    "Jawaban\\s*:",
    "R\xe9ponse\\s*:",
    "Resposta\\s*:",
    "Jibu\\s*:",
    "Idahun\\s*:",
    "\xccd\xe1h\xf9n\\s*:",
    "Id\xe1h\xf9n\\s*:",
    "A\u0300m\u1ecd\u0300na\u0300\\s*:",
    "\xc0d\xe1h\xf9n\\s*:",
    "A\u0300nu\u0301go\u0323\\s*:",
    "\xc0\u1e63\xe0y\xe0n\\s*:",
)
#: the letter group that follows a prefix (``MULTILINGUAL_ANSWER_PATTERN_TEMPLATE``)
LETTER_GROUP = ("([A-D]|[\u0623-\u062f]|[\u0985]|[\u09ac]|[\u09a1]|[\u09a2]|[\uff21]|[\uff22]|[\uff23]"
                "|[\uff24])")
_PATTERNS = tuple(re.compile("(?i)" + p + "[ \t]*" + LETTER_GROUP) for p in ANSWER_PREFIXES)

_REMOVED = ("**", "$\\boxed{", "}$", "\\$", "$\\text{", "$", "\\mathrm{", "\\{", "\\text", "\\(", "\\mathbf{", "{",
            "\\boxed")
_LETTER_MAP = {"\u0623": "A", "\u0628": "B", "\u062c": "C", "\u062f": "D",  # Arabic
               "\u0985": "A", "\u09ac": "B", "\u09a1": "C", "\u09a2": "D",  # Bengali
               "\uff21": "A", "\uff22": "B", "\uff23": "C", "\uff24": "D"}  # full-width


def normalize_response(text: str) -> str:
    """The response with the reference's markdown / LaTeX pieces removed, in its order."""
    for piece in _REMOVED:
        text = text.replace(piece, "")
    return text


def normalize_letter(found: str) -> str:
    """The reference's letter normalisation: each mapped character becomes a space and its letter, then the
    result is stripped (a one-character match becomes the bare letter)."""
    return "".join(" " + _LETTER_MAP[c] if c in _LETTER_MAP else c for c in found).strip()


def extract_letter(text: str) -> str | None:
    """The letter the reference reads from a raw response, or None (scored wrong)."""
    norm = normalize_response(text)
    for rx in _PATTERNS:
        m = rx.search(norm)
        if m:
            return normalize_letter(m.group(1))
    return None
