"""KOR-Bench cipher rules 1-5: monoalphabetic substitutions.

1. Custom Inverse Shift Substitution (reverse alphabet, shift, keyed substitution alphabet)
2. Custom Pigpen / Masonic (letter -> symbol table)
3. Custom Multi-tap Phone Code (letter -> ``key^presses``)
4. Custom Polybius Square (letter -> 1-indexed row/column digits, one letter outside the square -> 66)
5. Custom Affine (y = A*x + B mod 26 over a permuted alphabet)

Characters outside a rule's table pass through unchanged ("if p is an uppercase letter and exists in the
table: replace p").
"""

from __future__ import annotations

import math
import random
import re

from .base import UPPER, CipherRule, Params, chunks, keyed_alphabet, random_keyword, shuffled

# --------------------------------------------------------------------------------------------- rule 1


class InverseShiftSubstitution(CipherRule):
    rule_id = 1

    def default_params(self) -> Params:
        return {"shift": 4, "substitution_alphabet": keyed_alphabet("RFDDJUUH")}

    def random_params(self, rng: random.Random) -> Params:
        return {"shift": rng.randint(1, 25), "substitution_alphabet": keyed_alphabet(random_keyword(rng))}

    def _encrypt(self, text: str, p: Params) -> str:
        sub: str = p["substitution_alphabet"]
        out = []
        for ch in text:
            if ch not in UPPER:
                out.append(ch)
                continue
            reversed_letter = UPPER[25 - UPPER.index(ch)]
            shifted = UPPER[(UPPER.index(reversed_letter) + p["shift"]) % 26]
            out.append(sub[UPPER.index(shifted)])
        return "".join(out)

    def _decrypt(self, text: str, p: Params) -> str:
        sub: str = p["substitution_alphabet"]
        out = []
        for ch in text:
            if ch not in sub:
                out.append(ch)
                continue
            standard = UPPER[sub.index(ch)]
            shifted = UPPER[(UPPER.index(standard) - p["shift"]) % 26]
            out.append(UPPER[25 - UPPER.index(shifted)])
        return "".join(out)

    def _fragments(self, p: Params) -> list[str]:
        shift: int = p["shift"]
        sub: str = p["substitution_alphabet"]
        after_two = UPPER[(25 + shift) % 26]  # 'A' -> 'Z' -> shifted
        return [
            f'substitution_alphabet: "{sub}"',
            f"(2) Move the letter obtained in (1) forward {shift} places in the standard_alphabet order. "
            f"For example, if p=A, after (1) is mapped to Z, then Z is shifted forward {shift} positions "
            f"in the standard_alphabet to get {after_two}.",
            f"For example, if the letter obtained by going through (2) is {after_two}, "
            f"it is mapped as {sub[UPPER.index(after_two)]}.",
            f"(2) Shift the letter obtained from (1) backward by {shift} positions",
        ]


# --------------------------------------------------------------------------------------------- rule 2

PIGPEN_SYMBOLS = "!@#$%^&*()_+=~?/0:;<>12345"


class Pigpen(CipherRule):
    rule_id = 2

    def default_params(self) -> Params:
        return {"symbols": PIGPEN_SYMBOLS}

    def random_params(self, rng: random.Random) -> Params:
        return {"symbols": shuffled(rng, PIGPEN_SYMBOLS)}

    def _encrypt(self, text: str, p: Params) -> str:
        table = dict(zip(UPPER, p["symbols"], strict=True))
        return "".join(table.get(ch, ch) for ch in text)

    def _decrypt(self, text: str, p: Params) -> str:
        table = dict(zip(p["symbols"], UPPER, strict=True))
        return "".join(table.get(ch, ch) for ch in text)

    def _fragments(self, p: Params) -> list[str]:
        entries = [f"'{letter}': '{sym}'" for letter, sym in zip(UPPER, p["symbols"], strict=True)]
        lines = ["    " + ", ".join(entries[i : i + 4]) for i in range(0, 26, 4)]
        return ["encryption_table = {\n" + ",\n".join(lines) + "\n    }"]


# --------------------------------------------------------------------------------------------- rule 3

PHONE_KEYS = {2: "ABC", 3: "DEF", 4: "GHI", 5: "JKL", 6: "MNO", 7: "PQRS", 8: "TUV", 9: "WXYZ"}
_MULTITAP = {ch: f"{key}^{i + 1}" for key, letters in PHONE_KEYS.items() for i, ch in enumerate(letters)}
_MULTITAP_INV = {code: ch for ch, code in _MULTITAP.items()}
_MULTITAP_RE = re.compile(r"\d\^\d|.", re.DOTALL)


class MultiTap(CipherRule):
    rule_id = 3

    def _encrypt(self, text: str, p: Params) -> str:
        return "".join(_MULTITAP.get(ch, ch) for ch in text)

    def _decrypt(self, text: str, p: Params) -> str:
        return "".join(_MULTITAP_INV.get(tok, tok) for tok in _MULTITAP_RE.findall(text))


# --------------------------------------------------------------------------------------------- rule 4


class Polybius(CipherRule):
    rule_id = 4

    def default_params(self) -> Params:
        return {"square": "RTXFSWCMVHZJAPBLQYGKNEUDI", "outside_letter": "O"}

    def random_params(self, rng: random.Random) -> Params:
        outside = rng.choice(UPPER)
        return {"square": shuffled(rng, UPPER.replace(outside, "")), "outside_letter": outside}

    def _encrypt(self, text: str, p: Params) -> str:
        square: str = p["square"]
        out = []
        for ch in text:
            if ch == p["outside_letter"]:
                out.append("66")
            elif ch in square:
                i = square.index(ch)
                out.append(f"{i // 5 + 1}{i % 5 + 1}")
            else:
                out.append(ch)
        return "".join(out)

    def _decrypt(self, text: str, p: Params) -> str:
        square: str = p["square"]
        out = []
        for pair in chunks(text, 2):
            if pair == "66":
                out.append(p["outside_letter"])
            else:
                out.append(square[(int(pair[0]) - 1) * 5 + int(pair[1]) - 1])
        return "".join(out)

    def _fragments(self, p: Params) -> list[str]:
        rows = chunks(p["square"], 5)
        body = "\n".join(f"| {r + 1}  | " + "  | ".join(row) + "  |" for r, row in enumerate(rows))
        outside = p["outside_letter"]
        return [
            "+----+----+----+----+----+\n" + body + "\n+----+----+----+----+----+\n```",
            f"In particular, {outside}, which does not exist in the Polybius square, is replaced by 66.",
            f'If CrCc=66, replace with "{outside}".',
        ]


# --------------------------------------------------------------------------------------------- rule 5


class Affine(CipherRule):
    rule_id = 5

    def default_params(self) -> Params:
        return {"alphabet": "XMJQUDONPRGTVBWFAKSHZCYEIL", "a": 3, "b": 5}

    def random_params(self, rng: random.Random) -> Params:
        a = rng.choice([x for x in range(3, 26) if math.gcd(x, 26) == 1])
        return {"alphabet": shuffled(rng, UPPER), "a": a, "b": rng.randint(1, 25)}

    def _encrypt(self, text: str, p: Params) -> str:
        alpha: str = p["alphabet"]
        return "".join(alpha[(p["a"] * alpha.index(ch) + p["b"]) % 26] if ch in alpha else ch for ch in text)

    def _decrypt(self, text: str, p: Params) -> str:
        alpha: str = p["alphabet"]
        a_inv = pow(p["a"], -1, 26)
        return "".join(alpha[a_inv * (alpha.index(ch) - p["b"]) % 26] if ch in alpha else ch for ch in text)

    def _fragments(self, p: Params) -> list[str]:
        alpha: str = p["alphabet"]
        assoc = [f"{ch} -> {i}" for i, ch in enumerate(alpha)]
        groups = [assoc[0:8], assoc[8:16], assoc[16:26]]
        listing = ",\n".join("        " + ", ".join(g) for g in groups)
        return [
            f'affine alphabet = "{alpha}"',
            "(starting from 0):\n        \n" + listing + "\n        \n",
            f"    - A: {p['a']}\n    - B: {p['b']}\n    - A_inv: {pow(p['a'], -1, 26)}\n",
        ]
