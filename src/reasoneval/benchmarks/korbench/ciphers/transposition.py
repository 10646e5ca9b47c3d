"""KOR-Bench cipher rules 16-20: transposition ciphers.

16. Custom Redefence Figure (zig-zag over ``lines`` rows with "#" at every turn, rows joined with "*")
17. Custom Path (serpentine rows of ``width`` letters, read column by column with "#" after each column)
18. Custom Rotating Grid (4x4 turning grille, 16-letter blocks, "#" filler)
19. Custom ADFGVX (6x6 matrix, all row letters then all column letters)
20. Custom Transposition (rows of len(order) letters padded with "$", columns reordered)

Details fixed by the published golds and worked examples:

* Rule 16: the first column is filled top-down with letters only; every later column starts with a "#" in
  the row where the previous column ended (the bottom row for an upward column, the top row for a downward
  column) and then holds ``lines - 1`` letters.  A "#" is written only when a letter follows it.  (The
  encryption text says the upward column puts its "#" in the first line; the worked example and all golds put
  it in the last line, i.e. at the turn.)
* Rule 17: even lines are written right to left starting at the right edge, so a short last even line is
  right-aligned.
* Rule 18: holes are filled in row-major order; the template turns 90 degrees counter-clockwise after each
  four letters; decryption drops every "#".
* Rule 20: a plaintext whose length is a multiple of the row length gets no padding row; decryption strips
  trailing "$".  The published decryption text says "column 6 corresponding to 2" (it is column 5); that
  wording is kept for the published parameters and written correctly for any other order.
"""

from __future__ import annotations

import random

from .base import NUMBER_WORDS, ORDINAL_WORDS, UPPER, CipherRule, Params, chunks, grid_find, shuffled

# -------------------------------------------------------------------------------------------- rule 16


def redefence_cells(n_letters: int, lines: int) -> list[tuple[int, bool]]:
    """(row, is_filler) of every written cell, in writing order."""
    cells: list[tuple[int, bool]] = []
    placed = 0
    for row in range(lines):
        if placed == n_letters:
            return cells
        cells.append((row, False))
        placed += 1
    down = False
    while placed < n_letters:
        order = list(range(lines)) if down else list(range(lines - 1, -1, -1))
        cells.append((order[0], True))
        for row in order[1:]:
            if placed == n_letters:
                break
            cells.append((row, False))
            placed += 1
        down = not down
    return cells


def redefence_rows(text: str, lines: int) -> list[str]:
    rows = [""] * lines
    letters = iter(text)
    for row, filler in redefence_cells(len(text), lines):
        rows[row] += "#" if filler else next(letters)
    return rows


class Redefence(CipherRule):
    rule_id = 16

    def default_params(self) -> Params:
        return {"lines": 5}

    def random_params(self, rng: random.Random) -> Params:
        return {"lines": rng.randint(3, 7)}

    def length_bounds(self, params: Params) -> tuple[int, int]:
        lines = int(self.resolve(params)["lines"])
        return lines, max(36, 6 * lines)

    def _encrypt(self, text: str, p: Params) -> str:
        return "".join(row + "*" for row in redefence_rows(text, p["lines"]))

    def _decrypt(self, text: str, p: Params) -> str:
        lines: int = p["lines"]
        rows = text.split("*")[:lines]
        rows += [""] * (lines - len(rows))
        n_letters = sum(len(r) - r.count("#") for r in rows)
        cursors = [0] * lines
        out = []
        for row, filler in redefence_cells(n_letters, lines):
            ch = rows[row][cursors[row]]
            cursors[row] += 1
            if not filler:
                out.append(ch)
        return "".join(out)

    def _fragments(self, p: Params) -> list[str]:
        lines: int = p["lines"]
        word, nth = NUMBER_WORDS[lines], ORDINAL_WORDS[lines]
        rows = redefence_rows("HELLOWORLD", lines)
        cipher = "".join(r + "*" for r in rows)
        cells = redefence_cells(10, lines)
        letters = iter("HELLOWORLD")
        unclean = "".join("#" if filler else next(letters) for _, filler in cells)
        layout8 = "".join(f"        {' '.join(r)}\n" for r in rows)
        layout12 = "".join(f"            {' '.join(r)}\n" for r in rows)
        return [
            f"- Number of lines: {lines}\n",
            f"from the second row to the last row ({nth} row).",
            f"from the last line ({nth} line) to the second line",
            f"The content of the {word} lines after filling is\n" + layout8,
            "final password text.\n" + layout8,
            f'as "{cipher}" (i.e., there must be {word} *\'s in the final cipher text to indicate that there '
            f"are {word} lines)",
            f"it can be divided into {word} groups, which are filled into {word} rows in turn. "
            f"Get the recovered data in {word} rows.",
            f'like "{cipher}" ,according to the division of * and then fill in the {word} lines to get the '
            f"recovered {word} lines of data D:\n" + layout12,
            f'for the {word} rows of message D in the previous step, read alternately to get "{unclean}"',
        ]


# -------------------------------------------------------------------------------------------- rule 17


def path_positions(n_letters: int, width: int) -> list[tuple[int, int]]:
    """(row, col) of every plaintext letter: odd lines left to right, even lines right to left."""
    out = []
    for i in range(n_letters):
        row, k = divmod(i, width)
        out.append((row, k if row % 2 == 0 else width - 1 - k))
    return out


class PathCipher(CipherRule):
    rule_id = 17

    def default_params(self) -> Params:
        return {"width": 5}

    def random_params(self, rng: random.Random) -> Params:
        return {"width": rng.randint(3, 8)}

    def length_bounds(self, params: Params) -> tuple[int, int]:
        width = int(self.resolve(params)["width"])
        return width, max(36, 6 * width)

    def _encrypt(self, text: str, p: Params) -> str:
        width: int = p["width"]
        columns = [""] * width
        for ch, (_, col) in zip(text, path_positions(len(text), width), strict=True):
            columns[col] += ch
        return "".join(col + "#" for col in columns if col)

    def _decrypt(self, text: str, p: Params) -> str:
        letters = text.replace("#", "")
        positions = path_positions(len(letters), p["width"])
        column_order = sorted(range(len(positions)), key=lambda i: (positions[i][1], positions[i][0]))
        out = [""] * len(letters)
        for ch, i in zip(letters, column_order, strict=True):
            out[i] = ch
        return "".join(out)

    @staticmethod
    def _layout(text: str, width: int) -> list[str]:
        return [row if r % 2 == 0 else row[::-1].rjust(width) for r, row in enumerate(chunks(text, width))]

    def _fragments(self, p: Params) -> list[str]:
        width: int = p["width"]
        example = "LIDAHELLOWORLD"
        rows = self._layout(example, width)
        written = chunks(example, width)
        cipher = self._encrypt(example, p)
        layout = "".join(f"        {row}\n" for row in rows)

        def direction(r: int) -> str:
            return "from left to right" if r % 2 == 0 else "from right to left"

        enc_steps = ", and then ".join(
            f"{'first ' if r == 0 else ''}write the {ORDINAL_WORDS[r + 1]} line, {direction(r)} as {row.strip()}"
            for r, row in enumerate(rows)
        )
        dec_steps = ", ".join(
            f"the {ORDINAL_WORDS[r + 1]} line, read {direction(r)} as {row}" for r, row in enumerate(written)
        )
        return [
            f"- Maximum number of characters per line: {width}\n",
            f"with a maximum of {NUMBER_WORDS[width]} letters per line.",
            f'for the plaintext "{example}", {enc_steps}, the entire content of the finished writing is '
            "expressed as follows\n" + layout,
            f"the above written content is read as {cipher} by column.",
            f"- Number of lines: {width}\n",
            f"for the ciphertext {cipher},it is written as\n" + layout,
            f"for the above written content, {dec_steps}, and ultimately",
        ]


# -------------------------------------------------------------------------------------------- rule 18

Cell = tuple[int, int]


def rotate_ccw(holes: list[Cell]) -> list[Cell]:
    """The holes of a 4x4 template after turning it 90 degrees counter-clockwise."""
    return sorted((3 - c, r) for r, c in holes)


def grille_orbits() -> list[list[Cell]]:
    """The four rotation orbits of the 4x4 cells (a valid template takes one cell of each)."""
    seen: set[Cell] = set()
    orbits = []
    for r in range(4):
        for c in range(4):
            if (r, c) in seen:
                continue
            orbit = [(r, c)]
            while True:
                nxt = rotate_ccw([orbit[-1]])[0]
                if nxt == orbit[0]:
                    break
                orbit.append(nxt)
            seen.update(orbit)
            orbits.append(orbit)
    return orbits


def _template_art(holes: list[Cell], indent: str) -> str:
    return "".join(
        indent + "  ".join("▯" if (r, c) in holes else "▮" for c in range(4)) + "\n" for r in range(4)
    )


def _grid_literal(grid: list[list[str]], indent: str) -> str:
    rows = ["[" + ", ".join(f"'{ch}'" for ch in row) + "]" for row in grid]
    return indent + "[" + (",\n" + indent).join(rows) + "]\n"


class RotatingGrid(CipherRule):
    rule_id = 18
    length_range = (1, 40)

    def default_params(self) -> Params:
        return {"holes": [[1, 2], [1, 3], [2, 3], [3, 0]]}

    def random_params(self, rng: random.Random) -> Params:
        holes = sorted(rng.choice(orbit) for orbit in grille_orbits())
        return {"holes": [list(h) for h in holes]}

    @staticmethod
    def _fill(block: str, holes: list[Cell]) -> tuple[list[list[str]], list[list[list[str]]]]:
        """The filled grid and the grid after each of the four fills."""
        grid = [[""] * 4 for _ in range(4)]
        stages = []
        letters = iter(block)
        for _ in range(4):
            for r, c in sorted(holes):
                grid[r][c] = next(letters, "#")
            stages.append([row[:] for row in grid])
            holes = rotate_ccw(holes)
        return grid, stages

    def _encrypt(self, text: str, p: Params) -> str:
        holes = [(int(r), int(c)) for r, c in p["holes"]]
        return "".join("".join("".join(row) for row in self._fill(b, holes)[0]) for b in chunks(text, 16))

    def _decrypt(self, text: str, p: Params) -> str:
        out: list[str] = []
        for block in chunks(text, 16):
            grid = chunks(block.ljust(16, "#"), 4)
            holes = sorted((int(r), int(c)) for r, c in p["holes"])
            for _ in range(4):
                out.extend(grid[r][c] for r, c in holes)
                holes = rotate_ccw(holes)
        return "".join(out).replace("#", "")

    def _fragments(self, p: Params) -> list[str]:
        holes = sorted((int(r), int(c)) for r, c in p["holes"])
        final, stages = self._fill("LOVEHELLOWORLD", holes)
        return [
            "The template used is:\n            \n" + _template_art(holes, "            "),
            "after filling in the LOVE grid is\n                \n"
            + _grid_literal(stages[0], "                "),
            "after rotating the template after the template for:\n                \n"
            + _template_art(rotate_ccw(holes), "                "),
            "the final grid will be\n                \n" + _grid_literal(final, "                "),
        ]


# -------------------------------------------------------------------------------------------- rule 19

ADFGVX = "ADFGVX"
ADFGVX_SYMBOLS = UPPER + "0123456789"


class Adfgvx(CipherRule):
    rule_id = 19

    def default_params(self) -> Params:
        return {"matrix": "RUA0QBD2WKS1H45FTZYCGX7L98I3PN6JVOEM"}

    def random_params(self, rng: random.Random) -> Params:
        return {"matrix": shuffled(rng, ADFGVX_SYMBOLS)}

    def _encrypt(self, text: str, p: Params) -> str:
        grid = chunks(p["matrix"], 6)
        coords = [grid_find(grid, ch) for ch in text]
        return "".join(ADFGVX[r] for r, _ in coords) + "".join(ADFGVX[c] for _, c in coords)

    def _decrypt(self, text: str, p: Params) -> str:
        grid = chunks(p["matrix"], 6)
        half = len(text) // 2
        return "".join(
            grid[ADFGVX.index(r)][ADFGVX.index(c)] for r, c in zip(text[:half], text[half:], strict=True)
        )

    def _fragments(self, p: Params) -> list[str]:
        grid = chunks(p["matrix"], 6)
        x = grid[0][2]
        rows = ["[" + ", ".join(f"'{ch}'" for ch in row) + "]" for row in grid]
        return rows + [
            f"For example, {x} has 0 rows and 2 columns.",
            f"the number of rows of {x} is 0, which corresponds to A in the encrypted character set, and the "
            f"number of columns of {x} is 2, which corresponds to F in the encrypted character set. so the "
            f"encrypted binary corresponding to {x} is (A,F).",
            f"For example, the character at (0, 2) is {x}, and the character after AF decryption is {x}.",
        ]


# -------------------------------------------------------------------------------------------- rule 20

_PUBLISHED_ORDER = [1, 4, 0, 6, 5, 2, 3]


class Transposition(CipherRule):
    rule_id = 20
    length_range = (1, 24)

    def default_params(self) -> Params:
        return {"order": list(_PUBLISHED_ORDER)}

    def random_params(self, rng: random.Random) -> Params:
        order = list(range(rng.randint(5, 9)))
        while order == sorted(order):
            rng.shuffle(order)
        return {"order": order}

    def _encrypt(self, text: str, p: Params) -> str:
        order: list[int] = p["order"]
        width = len(order)
        padded = text + "$" * (-len(text) % width)
        return "".join("".join(row[i] for i in order) for row in chunks(padded, width))

    def _decrypt(self, text: str, p: Params) -> str:
        order: list[int] = p["order"]
        out = []
        for row in chunks(text, len(order)):
            original = [""] * len(order)
            for j, i in enumerate(order):
                original[i] = row[j]
            out.append("".join(original))
        return "".join(out).rstrip("$")

    def _fragments(self, p: Params) -> list[str]:
        order: list[int] = p["order"]
        width = len(order)
        inv = [order.index(k) for k in range(width)]
        if order == _PUBLISHED_ORDER:
            inv = [2, 0, 6]  # the published text's (wrong) third column, kept verbatim
        original = ", ".join(f"the original column {i}" for i in order)
        return [
            f"- {order}\n",
            f"The {order} transposed sequence table has a total of {width} bits, indicating that {width} "
            "letters should be written on a line.",
            f"line by line, {width} per line. When there are less than {width}, the last line",
            f"the order of the columns is now [{original}],",
            f"line by line, {width} letters per line.",
            f"read a character in column {inv[0]} corresponding to 0, then a character in column {inv[1]} "
            f"corresponding to 1, then a character in column {inv[2]} corresponding to 2,",
        ]
