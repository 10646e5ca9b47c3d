"""The report's item browser groups General365 answers by the rule check behind their verdict
(``General365.item_group``: ``detail["rule"]``)."""

from __future__ import annotations

from reasoneval.core import registry


def test_group_is_the_rule_check() -> None:
    g = registry.get("general365")
    assert g.item_group("test/1", {"rule": "several-different-boxed-answers"}, None) == "several-different-boxed-answers"
    assert g.item_group("test/1", {"extracted_from": "boxed"}, None) is None
    assert g.item_group("test/1", {"rule": 3}, None) is None
