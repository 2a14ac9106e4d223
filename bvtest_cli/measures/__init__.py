"""From runs and qrels to per-topic scores: the systems × topics matrix.

``fastmeasures`` is trec_eval-exact AP, nDCG, P, R and RR computed from a
run's columns; ``gdeval`` is ERR as gdeval.pl computes it; ``evaluate`` is the
bridge to ir_measures (every other measure), the topic set and the parallel
evaluation of many runs (``parallel``); ``matrix`` is the score matrix and the
virtual target; ``scores_file`` reads a long scores file straight into
matrices. May import :mod:`bvtest_cli.io` and the foundation (errors,
defaults, settings).
"""
