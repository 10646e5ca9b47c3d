"""FineReason's published numbers (Chen et al., 2025), kept for reference beside the reproduction.

Table 2: end-to-end puzzle solving accuracy (%), model names as in the paper.
"""

from __future__ import annotations

from ...report.paper_numbers import published_rows

TABLE2_END_TO_END: dict[str, dict[str, float]] = published_rows("""
GPT-4o        0    7.8 15.3  2.2
GPT-3.5       0    3.9  3.1  2.2
Gemini-F      5.9 35.3 83.7 10.9
Qwen2.5-Inst  0    2.0 17.3  4.4
Gemini-FT     0   80.4 48.0 34.8
o1            0   78.4 54.1 45.7
""", ("Sudoku", "Graph Coloring", "Game of 24", "Grid Puzzles"))
