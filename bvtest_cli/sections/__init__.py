"""What the matrix commands share, below them: their inputs as score
matrices (:mod:`.inputs`), the per-system fields and one measure's block of
the report (:mod:`.matrix`). May import report, analyses, measures, io and
the foundation; every command imports it, no command imports another
command's build.
"""
