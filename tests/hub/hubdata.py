"""Small R-Bench / General365 repos for the fake Hub, and a helper to forget what the process resolved."""

from __future__ import annotations

import io
from typing import Any

import pytest

from reasoneval.hub import fetch

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

RBENCH = "R-Bench/R-Bench"
G365 = "meituan-longcat/General365_Public"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def parquet(rows: list[dict[str, Any]]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    return buf.getvalue()


def rbench_rows(n: int, tag: str = "", image: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        r: dict[str, Any] = {"index": i, "question": f"Question {i}{tag}?", "A": "1", "B": "2", "C": "3", "D": "4",
                             "E": "All other answers are incorrect", "F": "6", "answer": "ABCDEF"[i % 6]}
        if image:
            r["image"] = {"bytes": PNG, "path": f"{i}.png"}
        rows.append(r)
    return rows


def rbench_files(tag: str = "", n: int = 7) -> dict[str, bytes]:
    return {
        "README.md": b"---\nlicense: apache-2.0\n---\n# R-Bench (fake)\n",
        "rbench-t_en/test-00000-of-00001.parquet": parquet(rbench_rows(n, tag)),
        "rbench-t_zh/test-00000-of-00001.parquet": parquet(rbench_rows(n, tag + " zh")),
        "rbench-m_en/test-00000-of-00001.parquet": parquet(rbench_rows(3, tag, image=True)),
        "rbench-m_zh/test-00000-of-00001.parquet": parquet(rbench_rows(3, tag + " zh", image=True)),
    }


def g365_files() -> dict[str, bytes]:
    rows = [{"id": str(i), "question": f"What is {i}+{i}?", "answer": str(2 * i), "answer_type": "number",
             "float_round": ""} for i in range(6)]
    readme = (b"---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test-*\n---\n")
    return {"README.md": readme, "data/test-00000-of-00001.parquet": parquet(rows),
            "extra/notes.json": b'[{"not": "data of the config"}]'}


def forget() -> None:
    """What a new process would know: nothing resolved yet."""
    fetch._MEMO.clear()
    fetch._COMMITS.clear()
