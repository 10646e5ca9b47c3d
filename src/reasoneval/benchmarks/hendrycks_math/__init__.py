"""MATH (Hendrycks et al., 2021): competition problems in 7 subjects and 5 difficulty levels; a FineReason
transfer benchmark (paper Table 5, App. A.7 Table 11). Registered as ``math`` (this folder is named
``hendrycks_math`` so it never shadows the standard library's ``math``).

    release.py  the Hub release: MATH-500 (HuggingFaceH4/MATH-500), and why that one
    data.py     rows (release or ``--data``; the full 5,000-problem test set works too) -> items with level and subject
    analysis.py the tables: accuracy overall, per level (1-5), per subject
"""
