"""The analyses: pure numpy functions of score matrices.

``decompose`` (Bias², Var, MSE, Var(ρ)), ``risk`` (ZRisk, GeoRisk, TRisk),
``tradeoff`` (Pearson/Spearman of Bias² and Var), ``grouping`` (topic groups
and repeats), ``uncertainty`` (bootstrap intervals), ``paired`` (paired tests of two runs),
``simulate`` (per-topic simulated collections), ``rankings`` (bias and
variance of system rankings), ``pooling`` (depth pools and engineered runs),
``variations`` (mean–variance over query variations), ``anova`` (the two-way
ANOVA, Tukey's HSD and its randomised version, effect sizes),
``significance`` (paired tests and multiple-comparison corrections),
``sensitivity`` (discriminative power, swap rates), ``design`` (G-theory and
topic-set-size design). Shapes are
``(…, m, n)``: one function serves topics, groups and bootstrap samples. No
printing and no click; may import :mod:`bvtest_cli.measures`,
:mod:`bvtest_cli.io` and the foundation.
"""
