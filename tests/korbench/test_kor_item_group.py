"""The report's item browser groups KOR-Bench items by rule (``KorBench.item_group``): the verdict's ``rule_id``,
else the item's, else ``ceil(N / 10)`` from the key ``category/N``."""

from __future__ import annotations

from reasoneval.core import registry
from reasoneval.core.values import Item


def test_rule_from_verdict_then_item_then_key() -> None:
    kor = registry.get("korbench")
    item = Item("korbench", "cipher", "31", {"rule_id": "7"}, "[[x]]")
    assert kor.item_group("cipher/31", {"rule_id": "12"}, item) == "12"
    assert kor.item_group("cipher/31", {}, item) == "7"
    assert kor.item_group("cipher/31", {}, None) == "4"  # questions 31-40: rule 4
    assert kor.item_group("cipher/10", {"rule_id": True}, None) == "1"  # not an id: the key decides
    assert kor.item_group("Multi-Q/a", {}, None) is None
    assert kor.item_group("cipher-subquestions/3:2", {}, Item("korbench", "cipher-subquestions", "3:2",
                                                            {"rule_id": 9}, "x")) == "9"
