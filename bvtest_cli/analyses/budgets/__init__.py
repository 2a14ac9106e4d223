"""Test collections under an assessment budget: depth-K pools and engineered
runs (:mod:`.pooling`, [Cormack19]) and the samplers — depth, move-to-front,
Hedge, uniform, pps (:mod:`.sampling`).

Pure numpy; may import the analyses around it, nothing above them.
"""
