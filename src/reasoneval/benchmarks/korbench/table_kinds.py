"""KOR-Bench's own table kinds (``Benchmark.table_kinds``); the renderers treat each as the generic kind it is
``like`` (:class:`~reasoneval.core.table.TableKind`)."""

from __future__ import annotations

from reasoneval.core.table import TableKind

#: accuracy (pass rate) per mixed set (paper Table 3): ranked like a leaderboard
MIXED = TableKind("mixed", like=TableKind.LEADERBOARD)
#: accuracy after each self-correction round
SELF_CORRECTION_ROUNDS = TableKind("self-correction-rounds")
#: error rate per cipher sub-step type
SUBQUESTIONS = TableKind("subquestions")

KINDS = (MIXED, SELF_CORRECTION_ROUNDS, SUBQUESTIONS)
