"""KOR-Bench (Ma et al., ICLR 2025): knowledge-orthogonal reasoning over 125 newly defined rules.

Modules: ``data`` (release loader), ``prompts`` (official templates, byte-identical), ``score_official`` /
``score_corrected`` (reference-compatible and fixed scorers), ``mixed``, ``selfcorrect``, ``subquestions``
(the §6 protocols), ``report`` (Table 2/3 layouts), ``rescore`` (re-scoring official raw outputs) and
``benchmark`` (the registered :class:`~reasoneval.core.benchmark.Benchmark`).
"""


def prestart(argv: list[str]) -> None:
    """``reasoneval rescore korbench`` and ``reasoneval import korbench``: start the SymPy sandbox workers before
    the CLI's own imports.

    SymPy's import (~0.55 s on 2 cores) happens in the workers; starting it before the CLI's imports (~0.2 s)
    and the reading of the files lets the import overlap them. Skipped when the on-disk LaTeX cache already
    holds answers (a warm run may need no worker at all).
    """
    if argv[:1] not in (["rescore"], ["import"]):
        return
    from ...scoring import latexcmp
    from .latex_seed import canonicalizer

    cache = latexcmp.disk_cache_path()
    if cache.exists() and cache.stat().st_size > 0:
        return
    try:
        canonicalizer().start()
    except latexcmp.LatexRuntimeError:
        return  # said, as one line, when the scorer needs the parser
