"""Renderers: a Report into text, pandas or figures.

``formats.render`` is the entry point of every ``--format``: ``text`` turns
a report into trec, table, tsv, csv, json, latex and markdown, ``html``
(with ``svg``'s charts) into one self-contained page, both learning the
layout from the report's types and the field registry, never from key
names; ``longform`` gives the long pandas
DataFrame of the API; ``plot`` draws the figures of ``bvtest plot`` and the
``--plot`` options (matplotlib, an extra). May import
:mod:`bvtest_cli.report` and everything below it.
"""
