"""General365: general reasoning with K-12 knowledge (seeds + variants, hybrid rule/judge grading)."""
