"""reasoneval: knowledge-orthogonal reasoning evaluation."""

__version__ = "0.1.0"
