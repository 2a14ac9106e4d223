"""From runs and qrels to per-topic scores: the systems × topics matrix.

``fastmeasures`` is trec_eval-exact AP, nDCG, P, R and RR computed from a
run's columns; ``gdeval`` is ERR as gdeval.pl computes it; ``names`` reads
measure names; ``bridge`` evaluates one run under every measure (ir_measures
for every other one); ``topics`` is the topic set; ``evaluate`` evaluates many
runs in parallel (``parallel``) into score matrices; ``matrix`` is the score
matrix and the virtual target; ``scores_file`` reads a long scores file
straight into matrices. May import :mod:`bvtest_cli.io` and the foundation (errors,
defaults, settings).
"""
