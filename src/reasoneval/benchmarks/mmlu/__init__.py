"""MMLU (Hendrycks et al., 2021): 57 subjects of four-option questions in four categories (STEM, humanities,
social sciences, other); a FineReason transfer benchmark (paper Sec. 5.5, Table 7, App. A.9 Table 12).

    release.py    the Hub release (cais/mmlu, config all, test split: 14,042 questions)
    categories.py subject -> subcategory -> category, as in the MMLU authors' repository
    data.py       rows -> items (subsets: the 57 subjects)
    prompts.py    the zero-shot CoT letter prompt; extraction of the final ``Answer: X``
    analysis.py   tables: accuracy overall, per category, per subject
"""
