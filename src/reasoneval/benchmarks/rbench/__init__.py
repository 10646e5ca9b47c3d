"""R-Bench: graduate-level multi-disciplinary reasoning (text and multimodal, English and Chinese)."""
