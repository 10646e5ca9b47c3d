"""GSM8K (Cobbe et al., 2021): grade-school math word problems, one number per answer; a FineReason transfer
benchmark (paper Sec. 5, Table 5, Table 6, Figs. 6-7).

    release.py  the Hub release (openai/gsm8k, config main, test split: 1,319 problems)
    data.py     release rows (or ``--data``) -> items; the gold is the number after ``####``
    prompts.py  the zero-shot CoT prompt asking for ``\\boxed{}`` (open-r1's MATH template, see there)
    benchmark.py the plugin: math-verify scoring (``scoring/math_answer.py``), accuracy table
"""
