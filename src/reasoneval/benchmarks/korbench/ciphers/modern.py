"""KOR-Bench cipher rules 21-25: "modern" ciphers on ASCII codes.

21. Custom XOR (8-bit ASCII XOR a fixed 8-bit key, then a bit permutation)
22. Custom S-BOX (8-byte blocks: XOR key, nibble S-box, rotate left 1, XOR key; uppercase hex)
23. Custom RSA (ASCII code ^ e mod n, comma separated; decryption uses the same e)
24. Custom ECC (ASCII code * k_q_x, comma separated)
25. Custom SHA (XOR with the cycled SHA-256 digest of a secret; lowercase hex)

Notes:

* Rule 21's text only gives the key as an example ("e.g., '10101010'"); the golds use exactly that key.
* Rule 22 XORs each 8-byte block with the 16-byte key pairwise, so only the key's first 8 bytes matter.
* Rule 23 decrypts with the *same* exponent, which works because e*e = 1 mod phi(n) (263 = phi(299) - 1).
  Random parameters keep that property (e = -1 mod lambda(n), as 263 = -1 mod 132) and n > 90 so every
  letter's code is < n.
"""

from __future__ import annotations

import hashlib
import math
import random

from .base import UPPER, CipherRule, Params, chunks

# -------------------------------------------------------------------------------------------- rule 21


class XorCipher(CipherRule):
    rule_id = 21

    def default_params(self) -> Params:
        return {"key": "10101010", "permutation": [2, 0, 3, 1, 4, 6, 5, 7]}

    def random_params(self, rng: random.Random) -> Params:
        perm = list(range(8))
        while perm == sorted(perm):
            rng.shuffle(perm)
        return {"key": "".join(rng.choice("01") for _ in range(8)), "permutation": perm}

    @staticmethod
    def _inverse(perm: list[int]) -> list[int]:
        inv = [0] * len(perm)
        for i, j in enumerate(perm):
            inv[j] = i
        return inv

    def _encrypt(self, text: str, p: Params) -> str:
        key = int(p["key"], 2)
        out = []
        for ch in text:
            bits = format(ord(ch) ^ key, "08b")
            out.append("".join(bits[i] for i in p["permutation"]))
        return "".join(out)

    def _decrypt(self, text: str, p: Params) -> str:
        key = int(p["key"], 2)
        inv = self._inverse(p["permutation"])
        return "".join(chr(int("".join(chunk[i] for i in inv), 2) ^ key) for chunk in chunks(text, 8))

    def _fragments(self, p: Params) -> list[str]:
        perm = tuple(p["permutation"])
        inv = tuple(self._inverse(p["permutation"]))
        return [
            f"(e.g., '{p['key']}')",
            f"- Permutation Table: {perm}",
            f"- Inverse Permutation Table: {inv}",
        ]


# -------------------------------------------------------------------------------------------- rule 22

_SBOX = [0x0F, 0x0A, 0x07, 0x05, 0x09, 0x03, 0x0D, 0x00, 0x0E, 0x08, 0x04, 0x06, 0x01, 0x02, 0x0B, 0x0C]


def _sbox_literal(name: str, pairs: list[tuple[int, int]]) -> str:
    entries = [f"0x{a:02X}: 0x{b:02X}" for a, b in pairs]
    lines = [", ".join(entries[i : i + 4]) for i in range(0, len(entries), 4)]
    return f"{name} = {{\n        " + ",\n        ".join(lines) + "\n        }"


class SBoxCipher(CipherRule):
    rule_id = 22
    length_range = (1, 24)

    def default_params(self) -> Params:
        return {"key": "1234567890ABCDEF", "sbox": list(_SBOX)}

    def random_params(self, rng: random.Random) -> Params:
        sbox = list(range(16))
        rng.shuffle(sbox)
        return {"key": "".join(rng.choice(UPPER + "0123456789") for _ in range(16)), "sbox": sbox}

    def _encrypt(self, text: str, p: Params) -> str:
        key = p["key"].encode("ascii")
        sbox: list[int] = p["sbox"]
        data = text.encode("ascii")
        data += b"\x00" * (-len(data) % 8)
        out = []
        for block in chunks_bytes(data, 8):
            for byte, k in zip(block, key, strict=False):
                x = byte ^ k
                x = (sbox[x >> 4] << 4) | sbox[x & 0x0F]
                x = ((x << 1) | (x >> 7)) & 0xFF
                out.append(x ^ k)
        return bytes(out).hex().upper()

    def _decrypt(self, text: str, p: Params) -> str:
        key = p["key"].encode("ascii")
        inv = [0] * 16
        for i, v in enumerate(p["sbox"]):
            inv[v] = i
        out = []
        for block in chunks(text, 16):
            for byte, k in zip(bytes.fromhex(block), key, strict=False):
                x = byte ^ k
                x = ((x >> 1) | (x << 7)) & 0xFF
                x = (inv[x >> 4] << 4) | inv[x & 0x0F]
                out.append(x ^ k)
        return bytes(out).decode("ascii").rstrip("\x00")

    def _fragments(self, p: Params) -> list[str]:
        sbox: list[int] = p["sbox"]
        return [
            f"KEY = b'{p['key']}'",
            _sbox_literal("S_BOX", list(enumerate(sbox))),
            _sbox_literal("INV_S_BOX", [(v, i) for i, v in enumerate(sbox)]),
        ]


def chunks_bytes(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


# -------------------------------------------------------------------------------------------- rule 23

_SMALL_PRIMES = [p for p in range(5, 60) if all(p % d for d in range(2, int(p**0.5) + 1))]


class RsaCipher(CipherRule):
    rule_id = 23

    def default_params(self) -> Params:
        return {"e": 263, "n": 299}

    def random_params(self, rng: random.Random) -> Params:
        while True:
            p, q = rng.sample(_SMALL_PRIMES, 2)
            n = p * q
            if 91 <= n <= 2000:
                break
        lam = math.lcm(p - 1, q - 1)
        phi = (p - 1) * (q - 1)
        # e = -1 (mod lambda), like the published 263 = 2 * 132 - 1: x -> x^e is an involution (x^(e*e) = x)
        # that maps x to x^-1 modulo each prime, so it has few fixed points
        candidates = [e for e in range(lam - 1, phi, lam) if e >= 3]
        return {"e": rng.choice(candidates), "n": n}

    def _encrypt(self, text: str, p: Params) -> str:
        return ",".join(str(pow(ord(ch), p["e"], p["n"])) for ch in text)

    def _decrypt(self, text: str, p: Params) -> str:
        return "".join(chr(pow(int(c), p["e"], p["n"])) for c in text.split(",") if c.strip())

    def _fragments(self, p: Params) -> list[str]:
        return [f"- e: {p['e']}\n    - n: {p['n']}\n"]


# -------------------------------------------------------------------------------------------- rule 24


class EccCipher(CipherRule):
    rule_id = 24

    def default_params(self) -> Params:
        return {"k_q_x": 12}

    def random_params(self, rng: random.Random) -> Params:
        return {"k_q_x": rng.randint(2, 99)}

    def _encrypt(self, text: str, p: Params) -> str:
        return ",".join(str(ord(ch) * p["k_q_x"]) for ch in text)

    def _decrypt(self, text: str, p: Params) -> str:
        return "".join(chr(int(c) // p["k_q_x"]) for c in text.split(",") if c.strip())

    def _fragments(self, p: Params) -> list[str]:
        return [f"- k_q_x : {p['k_q_x']}\n"]


# -------------------------------------------------------------------------------------------- rule 25


class ShaCipher(CipherRule):
    rule_id = 25

    def default_params(self) -> Params:
        return {"secret": "SECRET_KEY"}

    def random_params(self, rng: random.Random) -> Params:
        word = "".join(rng.choice(UPPER) for _ in range(rng.randint(4, 8)))
        return {"secret": rng.choice(["SECRET", "KEY", "HIDDEN", "PRIVATE"]) + "_" + word}

    @staticmethod
    def _key(secret: str) -> bytes:
        return hashlib.sha256(secret.encode("utf-8")).digest()

    def _xor(self, data: bytes, p: Params) -> bytes:
        key = self._key(p["secret"])
        return bytes(b ^ key[i % len(key)] for i, b in enumerate(data))

    def _encrypt(self, text: str, p: Params) -> str:
        return self._xor(text.encode("ascii"), p).hex()

    def _decrypt(self, text: str, p: Params) -> str:
        return self._xor(bytes.fromhex(text), p).decode("ascii")

    def _fragments(self, p: Params) -> list[str]:
        secret: str = p["secret"]
        return [f"Performing SHA-256 on \"{secret}\" results in '{self._key(secret).hex()}'."]
