"""R-Bench option arrangement without a model: the fixed option per language, seeded positions, numbers apart."""

from __future__ import annotations

from reasoneval.benchmarks.rbench.build_options import NONE_CORRECT, arrange, choose


def test_chinese_fixed_option_seeded_shuffle_and_numeric_gap() -> None:
    kept, dropped = choose("12 米", ["12.3 米", "15 米", "20 米", "其他答案都不正确", "30 米", "40 米"], "zh", 0.05)
    assert kept == ["15 米", "20 米", "30 米", "40 米"]
    assert dropped == ["12.3 米", "其他答案都不正确"]  # within 5% of the answer; the fixed option itself
    letters, answer = arrange("q1", "12 米", kept, "zh", 3)
    assert sorted(letters) == list("ABCDEF") and letters[answer] == "12 米"
    assert list(letters.values()).count(NONE_CORRECT["zh"]) == 1 and NONE_CORRECT["zh"] == "其他答案都不正确"
    assert arrange("q1", "12 米", kept, "zh", 3) == (letters, answer)  # the same seed, the same positions
    orders = {tuple(arrange("q1", "12 米", kept, "zh", s)[0].values()) for s in range(8)}
    assert len(orders) > 1  # the seed moves them
    en, _ = arrange("q1", "12 m", ["15 m", "20 m", "30 m", "40 m"], "en", 3)
    assert NONE_CORRECT["en"] in en.values() and NONE_CORRECT["zh"] not in en.values()
