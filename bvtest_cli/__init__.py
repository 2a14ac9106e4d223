"""bvtest: bias-variance, instability and risk analysis of TREC runs."""

__version__ = "0.1.0"
