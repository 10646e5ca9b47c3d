"""``<think>`` is parsed only in ``core/response.py``: no other module holds the tags as a token or a pattern,
or imports them (messages that mention a tag in prose, and the fake server that writes them as a model would,
are not parsing)."""

from __future__ import annotations

import ast

from archscan import _docstrings, modules

TAGS = ("<think>", "</think>")
HOME = "reasoneval.core.response"
WRITERS = {"reasoneval.testing.fake_openai"}  # produces tags (a reasoning model's output); reads none


def parses_think(source: str) -> list[int]:
    tree = ast.parse(source)
    docs = _docstrings(tree)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            v = node.value
            if any(t in v for t in TAGS) and not any(c.isspace() for c in v.strip()):
                lines.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("core.response") \
                and any(a.name in ("OPEN", "CLOSE") for a in node.names):
            lines.append(node.lineno)
    return lines


def test_think_is_parsed_only_in_core_response() -> None:
    found = {name: parses_think(path.read_text(encoding="utf-8")) for name, (path, _) in modules().items()
             if name != HOME and name not in WRITERS}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_check_sees_tags_and_patterns_not_prose() -> None:
    src = ('import re\nfrom reasoneval.core.response import OPEN\n'
           'A = text.find("</think>")\nB = re.compile(r"<think>.*?</think>")\n'
           'C = "an unclosed <think> section"\n')
    assert parses_think(src) == [2, 3, 4]
