"""KOR-Bench cipher rules 6-10: polyalphabetic ciphers.

6. Custom Solitaire (keystream from a 54-card deck, permuted LETTERS alphabet)
7. Custom Phillips Figure (8 row-rotated 5x5 grids, move down-right)
8. Custom Porta (13 paired alphabets selected by a per-question key)
9. Custom Alberti (outer/inner disk, inner disk rotates every ``period`` characters)
10. Custom Jefferson (25 reels used cyclically, next/previous character on the reel)

Published-data quirks reproduced as is:

* Rule 6: the published initial deck contains card 9 twice and no card 19; the keystream is computed on that
  list exactly as printed.
* Rule 9: the published inner disk contains J twice (and no P).  Decryption looks a ciphertext letter up at
  its *first* position on the (rotated) inner disk, so decryption is not an exact inverse for those positions;
  the item generator only emits plaintexts that survive the round trip.
* Rule 7: all eight grids are row rotations of grid 0, so moving one cell down-right gives the same letter in
  every grid; the grid index (``(i // 5) % 8``) never changes the result.
"""

from __future__ import annotations

import random

from .base import UPPER, CipherRule, Params, QuestionParam, chunks, grid_find, shuffled

# --------------------------------------------------------------------------------------------- rule 6

SOLITAIRE_DECK: tuple[int, ...] = (
    9, 25, 44, 38, 40, 22, 11, 36, 13, 39, 18, 42, 10, 53, 26, 12, 1, 16, 3, 43, 37, 17, 30, 4, 28, 48, 27,
    41, 32, 15, 47, 29, 20, 51, 6, 7, 52, 34, 35, 5, 50, 9, 54, 46, 23, 31, 24, 14, 8, 33, 2, 49, 45, 21,
)  # fmt: skip
JOKER_A, JOKER_B = 53, 54


def _move_down(deck: list[int], card: int, steps: int) -> None:
    """Move ``card`` down ``steps`` places in the circular deck; it never becomes the top card."""
    n = len(deck)
    i = deck.index(card)
    deck.pop(i)
    target = i + steps
    if target > n - 1:
        target -= n - 1
    deck.insert(target, card)


def solitaire_step(deck: list[int]) -> int:
    """One run of the keystream algorithm (mutates ``deck``); returns the keystream value."""
    while True:
        _move_down(deck, JOKER_A, 1)
        _move_down(deck, JOKER_B, 2)
        a, b = sorted((deck.index(JOKER_A), deck.index(JOKER_B)))
        deck[:] = deck[b + 1 :] + deck[a : b + 1] + deck[:a]
        count = min(deck[-1], 53)
        deck[:] = deck[count:-1] + deck[:count] + deck[-1:]
        top = min(deck[0], 53)
        value = deck[top]
        if value not in (JOKER_A, JOKER_B):
            return value


class Solitaire(CipherRule):
    rule_id = 6

    def default_params(self) -> Params:
        return {"letters": "JDWOTRACXQMFYEZGUKPVBSHNLI"}

    def random_params(self, rng: random.Random) -> Params:
        return {"letters": shuffled(rng, UPPER)}

    def _crypt(self, text: str, p: Params, sign: int) -> str:
        letters: str = p["letters"]
        deck = list(SOLITAIRE_DECK)
        out = []
        for ch in text:
            y = solitaire_step(deck)
            out.append(letters[(letters.index(ch) + sign * y) % 26])
        return "".join(out)

    def _encrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, 1)

    def _decrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, -1)

    def _fragments(self, p: Params) -> list[str]:
        letters: str = p["letters"]
        quoted = [f"'{ch}'" for ch in letters]
        assoc = [f"{ch} -> {i}" for i, ch in enumerate(letters)]
        listing = ",\n".join("        " + ", ".join(g) for g in (assoc[:10], assoc[10:19], assoc[19:]))
        return [
            "LETTERS = [" + ", ".join(quoted[:13]) + ",\n    " + ", ".join(quoted[13:]) + "]",
            "(starting from 0):\n        \n" + listing + "\n        \n",
        ]


# --------------------------------------------------------------------------------------------- rule 7


class PhillipsFigure(CipherRule):
    rule_id = 7

    def default_params(self) -> Params:
        return {"grid": "PHILSABCDEFGKMNOQRTUVWXYZ"}

    def random_params(self, rng: random.Random) -> Params:
        return {"grid": shuffled(rng, UPPER.replace("J", ""))}

    @staticmethod
    def grids(base: str) -> list[list[str]]:
        rows = chunks(base, 5)
        return [rows[-(k % 5) :] + rows[: -(k % 5)] if k % 5 else list(rows) for k in range(8)]

    def _crypt(self, text: str, p: Params, step: int) -> str:
        grids = self.grids(p["grid"])
        out = []
        for block_no, block in enumerate(chunks(text, 5)):
            grid = grids[(block_no // 5) % 8]
            for ch in block:
                if ch == "J":
                    out.append(ch)
                    continue
                r, c = grid_find(grid, ch)
                out.append(grid[(r + step) % 5][(c + step) % 5])
        return "".join(out)

    def _encrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, 1)

    def _decrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, -1)

    def _fragments(self, p: Params) -> list[str]:
        return ["| " + " | ".join(row) + " |" for row in chunks(p["grid"], 5)]


# --------------------------------------------------------------------------------------------- rule 8

PORTA_ALPHABETS = (
    "NOPQRSTUVWXYZABCDEFGHIJKLM",
    "ZNOPQRSTUVWXYBCDEFGHIJKLMA",
    "YZNOPQRSTUVWXCDEFGHIJKLMAB",
    "XYZNOPQRSTUVWDEFGHIJKLMABC",
    "WXYZNOPQRSTUVEFGHIJKLMABCD",
    "VWXYZNOPQRSTUFGHIJKLMABCDE",
    "UVWXYZNOPQRSTGHIJKLMABCDEF",
    "TUVWXYZNOPQRSHIJKLMABCDEFG",
    "STUVWXYZNOPQRIJKLMABCDEFGH",
    "RSTUVWXYZNOPQJKLMABCDEFGHI",
    "QRSTUVWXYZNOPKLMABCDEFGHIJ",
    "PQRSTUVWXYZNOLMABCDEFGHIJK",
    "OPQRSTUVWXYZNMABCDEFGHIJKL",
)


class Porta(CipherRule):
    rule_id = 8
    question_params = (QuestionParam("Key", "key"),)

    def default_params(self) -> Params:
        return {"key": "WFLXNX"}  # the first three-shot example's key; the rule text has none

    def random_params(self, rng: random.Random) -> Params:
        return {"key": "".join(rng.choice(UPPER) for _ in range(rng.randint(5, 10)))}

    def _encrypt(self, text: str, p: Params) -> str:
        key: str = p["key"]
        out = []
        for i, ch in enumerate(text):
            alphabet = PORTA_ALPHABETS[UPPER.index(key[i % len(key)]) // 2]
            out.append(alphabet[UPPER.index(ch)])
        return "".join(out)

    def _decrypt(self, text: str, p: Params) -> str:
        key: str = p["key"]
        out = []
        for i, ch in enumerate(text):
            alphabet = PORTA_ALPHABETS[UPPER.index(key[i % len(key)]) // 2]
            out.append(UPPER[alphabet.index(ch)])
        return "".join(out)


# --------------------------------------------------------------------------------------------- rule 9


class Alberti(CipherRule):
    rule_id = 9
    question_params = (QuestionParam("period", "period", int), QuestionParam("increment", "increment", int))

    def default_params(self) -> Params:
        return {
            "outer_disk": "QWERTYUIOPASDFGHJZXCVBNMKL",
            "inner_disk": "JKLZXCVBNMASDFGHJQWERTYUIO",
            "period": 14,  # the first three-shot example's values; the rule text has none
            "increment": 3,
        }

    def random_params(self, rng: random.Random) -> Params:
        return {
            "outer_disk": shuffled(rng, UPPER),
            "inner_disk": shuffled(rng, UPPER),
            "period": rng.randint(1, 15),
            "increment": rng.randint(1, 5),
        }

    def _crypt(self, text: str, p: Params, encrypt: bool) -> str:
        outer: str = p["outer_disk"]
        inner: str = p["inner_disk"]
        period: int = p["period"]
        inc: int = p["increment"] % len(inner)
        out = []
        for i, ch in enumerate(text):
            out.append(inner[outer.index(ch)] if encrypt else outer[inner.index(ch)])
            if (i + 1) % period == 0:
                inner = inner[inc:] + inner[:inc]
        return "".join(out)

    def _encrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, True)

    def _decrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, False)

    def _fragments(self, p: Params) -> list[str]:
        return [f'outer_disk = "{p["outer_disk"]}"', f'inner_disk = "{p["inner_disk"]}"']


# -------------------------------------------------------------------------------------------- rule 10

JEFFERSON_REELS = (
    "ABCEIGDJFVUYMHTQKZOLRXSPWN", "ACDEHFIJKTLMOUVYGZNPQXRWSB", "ADKOMJUBGEPHSCZINXFYQRTVWL",
    "AEDCBIFGJHLKMRUOQVPTNWYXZS", "AFNQUKDOPITJBRHCYSLWEMZVXG", "AGPOCIXLURNDYZHWBJSQFKVMET",
    "AHXJEZBNIKPVROGSYDULCFMQTW", "AIHPJOBWKCVFZLQERYNSUMGTDX", "AJDSKQOIVTZEFHGYUNLPMBXWCR",
    "AKELBDFJGHONMTPRQSVZUXYWIC", "ALTMSXVQPNOHUWDIZYCGKRFBEJ", "AMNFLHQGCUJTBYPZKXISRDVEWO",
    "ANCJILDHBMKGXUZTSWQYVORPFE", "AODWPKJVIUQHZCTXBLEGNYRSMF", "APBVHIYKSGUENTCXOWFQDRLJZM",
    "AQJNUBTGIMWZRVLXCSHDEOKFPY", "ARMYOFTHEUSZJXDPCWGQIBKLNV", "ASDMCNEQBOZPLGVJRKYTFUIWXH",
    "ATOJYLFXNGWHVCMIRBSEKUPDZQ", "AUTRZXQLYIOVBPESNHJWMDGFCK", "AVNKHRGOXEYBFSJMUDQCLZWTIP",
    "AWVSFDLIEBHKNRJQZGMXPUCOTY", "AXKWREVDTUFOYHMLSIQNJCPGBZ", "AYJPXMVKBQWUGLOSTECHNZFRID",
    "AZDNBUHYFWJLVGRCQMPSOEXTKI",
)  # fmt: skip


class Jefferson(CipherRule):
    rule_id = 10

    def default_params(self) -> Params:
        return {"reels": list(JEFFERSON_REELS)}

    def random_params(self, rng: random.Random) -> Params:
        return {"reels": ["A" + shuffled(rng, UPPER[1:]) for _ in range(25)]}

    def _crypt(self, text: str, p: Params, step: int) -> str:
        reels: list[str] = p["reels"]
        out = []
        for i, ch in enumerate(text):
            reel = reels[i % len(reels)]
            out.append(reel[(reel.index(ch) + step) % len(reel)])
        return "".join(out)

    def _encrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, 1)

    def _decrypt(self, text: str, p: Params) -> str:
        return self._crypt(text, p, -1)

    def _fragments(self, p: Params) -> list[str]:
        return [f'"{reel}"' for reel in p["reels"]]
