"""KOR-Bench (Ma et al., ICLR 2025): knowledge-orthogonal reasoning over 125 newly defined rules.

Modules: ``data`` (release loader), ``prompts`` (official templates, byte-identical), ``score_official`` /
``score_corrected`` (reference-compatible and fixed scorers), ``mixed``, ``selfcorrect``, ``subquestions``
(the §6 protocols), ``report`` (Table 2/3 layouts), ``rescore`` (re-scoring official raw outputs) and
``benchmark`` (the registered :class:`~reasoneval.core.benchmark.Benchmark`).
"""
