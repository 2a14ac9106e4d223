"""ERR@k computed exactly as gdeval.pl (TREC Web track, version 1.2a) prints it.

ir_measures reaches ERR@k only through its ``gdeval`` provider, which writes
temporary files and starts one perl process per run, and which only accepts
integer topic ids (gdeval applies ``s/^.*\\-//`` to every topic id and then
requires ``/^[0-9]+$/``).  This module reproduces gdeval's arithmetic and its
ranking rules in numpy/Python, keyed by the *original* (string) topic ids.

Rules reproduced from gdeval.pl (each is referenced where it is implemented):

G1  Qrels: a grade above ``MAX_JUDGMENT = 4`` is a format error; only grades
    ``> 0`` are stored, so negative and zero grades both mean gain 0.
G2  A topic is printed only if it occurs in the run *and* has at least one
    grade ``> 0`` (``$seen{$topic}``).
G3  Run order (``runOrder``): topic, then score descending (numeric compare),
    then docno *descending* (string ``lt``/``gt``, i.e. byte order, which for
    UTF-8 text equals Python's code-point order).  Unjudged documents get
    gain 0.
G4  ``err``: over the first ``min(k, n)`` ranks ``i = 0, 1, ...``:
    ``r = (2**g - 1) / 2**4``; ``score += r * decay / (i + 1)``;
    ``decay *= (1 - r)``, in IEEE double, in this order.
G5  Output: ``printf "%.5f"`` of the exact double (C rounding of the exact
    binary value, round-half-even on exact ties, e.g. 0.015625 -> 0.01562);
    Python's ``f"{v:.5f}"`` rounds identically.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..io.sources import Qrels, Run
    from ..measures.fastmeasures import Ranked

__all__ = ["MAX_JUDGMENT", "GdevalERR", "err_at_k", "err_ranked"]

MAX_JUDGMENT = 4
"""Maximum grade gdeval accepts (``$MAX_JUDGMENT``)."""


class GdevalERR:
    """ERR@k evaluator with the qrels preprocessed once, reusable for many runs.

    ``GdevalERR(qrels, k).calc(run)`` returns ``{topic: ERR@k}`` with values
    equal to ``float('%.5f' % err)`` for exactly the topics gdeval prints.
    """

    __slots__ = ("_gains", "k")

    def __init__(self, qrels: Qrels, k: int) -> None:
        """Validate and store the qrels (rule G1) for cutoff ``k``.

        Raises ValueError for ``k < 1`` (gdeval would print 0 for every topic)
        and for grades that gdeval rejects: above 4 or not an integer.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"ERR cutoff must be a positive integer, got {k!r}")
        self.k = int(k)
        gains: dict[str, dict[str, int]] = {}
        for topic, docs in qrels.items():
            positive: dict[str, int] = {}
            for docno, grade in docs.items():
                g = int(grade)
                if g != grade:
                    raise ValueError(
                        f"relevance grade {grade!r} (topic {topic}, document {docno}) "
                        "is not an integer; gdeval accepts only integer grades"
                    )
                if g > MAX_JUDGMENT:
                    raise ValueError(
                        f"relevance grade {grade!r} (topic {topic}, document {docno}) "
                        f"exceeds gdeval's maximum grade {MAX_JUDGMENT}"
                    )
                # G1: `if ($judgment > 0)` -- only positive grades are stored.
                if g > 0:
                    positive[docno] = g
            # G2: `$seen{$topic}` is set only by a positive grade.
            if positive:
                gains[topic] = positive
        self._gains = gains

    def calc(self, run: Run) -> dict[str, float]:
        """Return ``{topic: ERR@k}`` for one run (dict-of-dict, topic → docno → score).

        Raises ValueError for a NaN score: gdeval's comparator is not a total
        order then, so its ranking (and value) is undefined.
        """
        k = self.k
        tops: list[list[int]] = []
        topics: list[str] = []
        for topic, docs in run.items():
            qrel = self._gains.get(topic)
            # G2: printed only when the topic is in the run and has a grade > 0.
            if qrel is None or not docs:
                continue
            tops.append(self._top_gains(topic, docs, qrel, k))
            topics.append(topic)
        if not topics:
            return {}
        # Padding with gain 0 is exact: it adds 0.0 to the score and
        # multiplies decay by 1.0.
        width = max(len(t) for t in tops)
        g = np.zeros((len(tops), width), dtype=np.float64)
        for row, t in enumerate(tops):
            g[row, : len(t)] = t
        return dict(zip(topics, _err_of_gains(g), strict=True))

    @staticmethod
    def _top_gains(
        topic: str, docs: Mapping[str, float], qrel: dict[str, int], k: int
    ) -> list[int]:
        """Gains of the first ``min(k, n)`` documents in gdeval's run order (rule G3).

        Only the top k matter, so the scores are partitioned numerically; every
        document scoring at least the k-th highest score is a candidate (this
        keeps all ties at the boundary), and only the candidates are sorted by
        (score desc, docno desc).
        """
        n = len(docs)
        scores = np.fromiter(docs.values(), dtype=np.float64, count=n)
        if np.isnan(scores).any():
            raise ValueError(f"NaN score in topic {topic}: gdeval's ranking is undefined")
        keys = list(docs)
        if n > k:
            kth = np.partition(scores, n - k)[n - k]  # k-th highest score
            idx = np.flatnonzero(scores >= kth)
            cand = list(zip(scores[idx].tolist(), [keys[i] for i in idx.tolist()], strict=True))
        else:
            cand = list(zip(scores.tolist(), keys, strict=True))
        # score descending, then docno descending (`$docnoA lt $docnoB` -> 1).
        cand.sort(reverse=True)
        return [qrel.get(d, 0) for _, d in cand[:k]]


def err_at_k(qrels: Qrels, run: Run, k: int) -> dict[str, float]:
    """ERR@k per topic, exactly as gdeval.pl prints it (``%.5f``), for gdeval's topics.

    ``qrels``: topic → docno → grade; ``run``: topic → docno → score.  Topic ids
    are used as given (no integer restriction).  Raises ValueError for a grade
    above 4.  For many runs against the same qrels use :class:`GdevalERR`.
    """
    return GdevalERR(qrels, k).calc(run)


def _err_of_gains(g: np.ndarray) -> list[float]:
    """G4 and G5, vectorised across topics: ERR of each row of gains (ranked,
    zero-padded), printed as gdeval prints it."""
    width = g.shape[1]
    r = (np.exp2(g) - 1.0) / 2.0**MAX_JUDGMENT  # exact for g in 0..4
    decay = np.ones_like(r)
    # decay before rank i = (1 - r_0) * ... * (1 - r_{i-1}), multiplied left to
    # right like `$decay *= (1 - $r)` (np.multiply.accumulate is sequential).
    decay[:, 1:] = np.multiply.accumulate(1.0 - r[:, :-1], axis=1)
    terms = r * decay / np.arange(1, width + 1, dtype=np.float64)  # (r*decay)/(i+1)
    # `$score += ...` left to right (np.add.accumulate is sequential, np.sum is not).
    err = np.add.accumulate(terms, axis=1)[:, -1]
    # G5: printf "%.5f".
    return [float(f"{v:.5f}") for v in err.tolist()]


def err_ranked(ranked: Ranked, has_positive: np.ndarray, k: int) -> dict[str, float]:
    """ERR@k per topic of a run already ranked by trec_eval's rule, which is
    gdeval's (G3: score descending, docno descending), with its grades looked
    up; ``has_positive[q]`` tells whether qrels topic q has a grade > 0 (G2).
    No per-topic Python work: the top-k gains of every topic fill one matrix."""
    keep = has_positive[ranked.qtopic]
    if not keep.any():
        return {}
    rows = ranked.rank < k
    width = int(ranked.rank[rows].max()) + 1
    g = np.zeros((len(ranked.topics), width), dtype=np.float64)
    # G1: only grades > 0 count (grades above MAX_JUDGMENT are refused before).
    g[ranked.row_topic[rows], ranked.rank[rows]] = np.maximum(ranked.grade[rows], 0)
    topics = [t for t, kept in zip(ranked.topics, keep.tolist(), strict=True) if kept]
    return dict(zip(topics, _err_of_gains(g[keep]), strict=True))
