"""Reports: what a command computed, as one typed tree.

``model`` is the :class:`~bvtest_cli.report.model.Report` type (sections,
tables, records); ``registry`` declares every reported quantity once (name,
meaning, paper, direction, interval rule) and every renderer iterates it.
``values`` says how one value prints and reads back, ``limits`` refuses a
request too big to fit before it allocates. A command's report is built in
its home, :mod:`bvtest_cli.commands`.
May import :mod:`bvtest_cli.analyses`, :mod:`bvtest_cli.measures`,
:mod:`bvtest_cli.io` and the foundation; never a renderer.
"""
