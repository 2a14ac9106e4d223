"""Automatic assessors beside human ones (``bvtest judges``): agreement of two
graders (:mod:`.agreement`), prediction-powered means (:mod:`.ppi`) and the
judge's error, leaderboards and human-topic experiment (:mod:`.judges`).

Pure numpy (scipy imported lazily); may import the analyses around it
(rankings, variations, significance, streams), nothing above them.
"""
