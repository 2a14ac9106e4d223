"""Reports: what a command computed, as one typed tree.

``model`` is the :class:`~bvtest_cli.report.model.Report` type (sections,
tables, records); ``registry`` declares every reported quantity once (name,
meaning, paper, direction, interval rule) and every renderer iterates it.
The other modules build one command's report from its Settings:
``pipeline`` (eval, instability, scores, pertopic), ``tradeoffs``,
``check``, ``compare``, ``conditions``, ``rankings`` (and pool, permute),
``variations`` (with ``variations_input``, the variation maps and weights).
May import :mod:`bvtest_cli.analyses`, :mod:`bvtest_cli.measures`,
:mod:`bvtest_cli.io` and the foundation; never a renderer.
"""
