"""The bridge from measures to per-topic scores of one run (docs/measures.md).

:class:`RunEvaluator` sends each measure to what computes it: the columns of
the run to :mod:`bvtest_cli.measures.fastmeasures` (AP, nDCG, P, R, RR),
:mod:`bvtest_cli.measures.gdeval` (ERR@k) and :mod:`bvtest_cli.measures.sampled`
(estimators for sampled judgments); every other measure to ir_measures
(pytrec_eval), which is handed rankings it cannot reorder (float32 scores) and
qrels it can take (0/1 qrels for threshold measures, grades up to
MAX_GAIN_GRADE; ``check_grades`` refuses the others). ``err_impl="perl"``
computes ERR@k through gdeval.pl itself, with topic ids mapped to integers and
back so that any id works.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

import ir_measures
import numpy as np

from ..errors import InputError
from ..io.sources import Qrels, Run
from ..io.trec import QrelsFile, QrelsTable, RunColumns
from .gdeval import MAX_JUDGMENT
from .names import MeasureSpec, is_sampled

# trec_eval (inside pytrec_eval) allocates a counter for every grade from 0 to
# the largest one, per topic: a grade of 2**31 takes 16 GB and 40 s, one of
# 2**32 makes the allocation fail and every score silently 0. Measures that
# use the grades themselves (nDCG) get them only up to this bound; threshold
# measures (AP, P, ...) get 0/1 grades and take any 64-bit grade.
MAX_GAIN_GRADE = 2**16 - 1


def check_grades(qrels_file: QrelsFile, specs: Sequence[MeasureSpec]) -> None:
    """Grades a measure cannot take are an error naming the file and line:
    ERR (gdeval) defines gains for grades 0..4 only; measures computed on the
    grades themselves (nDCG) take grades up to MAX_GAIN_GRADE."""
    grades = qrels_file.first_line_of_grade

    def first_above(limit: int) -> int | None:
        above = [g for g in grades if g > limit]
        return min(above) if above else None

    if any(s.err_cutoff for s in specs):
        grade = first_above(MAX_JUDGMENT)
        if grade is not None:
            raise InputError(
                f"grade {grade} is above {MAX_JUDGMENT}, the highest grade ERR (gdeval) accepts",
                qrels_file.label,
                grades[grade],
            )
    graded = [s.name for s in specs if s.err_cutoff is None and s.rel is None]
    grade = first_above(MAX_GAIN_GRADE) if graded else None
    if grade is not None:
        raise InputError(
            f"grade {grade} is above {MAX_GAIN_GRADE}, the highest grade {graded[0]} accepts "
            "(pytrec_eval's trec_eval allocates memory for every grade up to the highest)",
            qrels_file.label,
            grades[grade],
        )


def binary_qrels(qrels: Qrels, rel: int) -> Qrels:
    """Grades reduced to what a threshold measure at level ``rel`` sees: 1 for
    grade >= rel (relevant), 0 for 0 <= grade < rel (judged non-relevant), -1
    for a negative grade below rel (trec_eval: in the pool but not judged)."""
    return {
        topic: {d: 1 if g >= rel else (0 if g >= 0 else -1) for d, g in docs.items()}
        for topic, docs in qrels.items()
    }


# pytrec_eval holds scores as float32: integers below 2**24 are exact there.
FLOAT32_EXACT_INTEGERS = 2**24


def ascending_float32(n: int, exact_integers: int = FLOAT32_EXACT_INTEGERS) -> np.ndarray:
    """n strictly increasing doubles that stay distinct and in order when
    rounded to float32: 1, 2, ..., n while those are exact in float32,
    otherwise n consecutive float32 values from 1.0 up (bit patterns of
    positive normal floats are ordered as the floats)."""
    if n < exact_integers:
        return np.arange(1, n + 1, dtype=np.float64)
    first = np.float32(1.0).view(np.uint32)
    if n > int(np.float32(np.finfo(np.float32).max).view(np.uint32)) - int(first) + 1:
        raise InputError(f"a topic with {n} ranked documents is too large to evaluate")
    bits = first + np.arange(n, dtype=np.uint32)
    return bits.view(np.float32).astype(np.float64)


def ranking_scores(docs: Mapping[str, float]) -> dict[str, float]:
    """docno → a stand-in score that gives pytrec_eval exactly bvtest's ranking.

    pytrec_eval rounds scores to float32, so near-equal scores (0.812345679
    and 0.812345671) become ties that it breaks by docno, and AP and nDCG
    change. bvtest ranks by its own rule, trec_eval's (score descending as a
    double, ties by docno descending, docnos compared as bytes), and hands
    over distinct scores in that order that float32 keeps exact.
    """
    keys = list(docs)
    n = len(keys)
    scores = np.array(list(docs.values()))
    order = np.argsort(scores, kind="stable")  # ascending: the last is ranked first
    ordered = scores[order]
    if n > 1 and (ordered[1:] == ordered[:-1]).any():
        # Ties: docno ascending within a score ascending is docno descending
        # from the top. Docnos are Latin-1 strings, so code point order is
        # byte order (trec_eval's strcmp).
        order = np.lexsort((np.array(keys), scores))
    stand_in = np.empty(n)
    stand_in[order] = ascending_float32(n)
    return dict(zip(keys, stand_in.tolist(), strict=True))


def float32_keeps_order(docs: Mapping[str, float]) -> bool:
    """Whether pytrec_eval ranks these scores as bvtest does without help: no
    two distinct doubles round to the same float32 (pytrec_eval converts with
    C's round-to-nearest, which keeps the order of distinct float32 values;
    tests/test_measures_bridge_ranks.py checks that) and none overflows. Exact ties
    are fine: pytrec_eval breaks them by docno descending, as trec_eval."""
    scores = np.array(list(docs.values()))  # faster than np.fromiter on dict values
    scores.sort()
    with np.errstate(over="ignore"):
        single = scores.astype(np.float32)
    if not np.isfinite(single).all():
        return False
    return not ((single[1:] == single[:-1]) & (scores[1:] != scores[:-1])).any()


def condensed_run(
    run: Run, qrels: Qrels, max_docs: int | None = None, judged_only: bool = False
) -> Run:
    """The run as :func:`~bvtest_cli.measures.fastmeasures.condense` leaves
    it, for the measures scored from dicts: per topic the first ``max_docs``
    documents by score descending, ties by docno descending (trec_eval's
    order), then, with ``judged_only``, those the qrels judge (grade >= 0)."""
    out: dict[str, dict[str, float]] = {}
    for topic, docs in run.items():
        kept = docs
        if max_docs is not None and len(docs) > max_docs:
            ordered = sorted(docs.items(), key=lambda d: (d[1], d[0]), reverse=True)
            kept = dict(ordered[:max_docs])
        if judged_only:
            judged = qrels.get(topic, {})
            kept = {d: v for d, v in kept.items() if judged.get(d, -1) >= 0}
        out[topic] = dict(kept)
    return out


def pytrec_run(run: Run, topics: Container[str]) -> Run:
    """The run as handed to ir_measures: topics it can score, each ranking
    replaced by stand-in scores where float32 would change it."""
    return {
        t: docs if float32_keeps_order(docs) else ranking_scores(docs)
        for t, docs in run.items()
        if t in topics
    }


class RunEvaluator:
    """Evaluates one run under every measure: topic → value per measure name.

    AP, nDCG, P, R and RR (with the parameters trec_eval has) are computed
    from the run's columns by :mod:`bvtest_cli.measures.fastmeasures`, ERR@k by
    :func:`bvtest_cli.measures.gdeval.err_ranked` on the same ranking, unless
    ``impl="ir_measures"``. Every other measure goes through ir_measures
    (pytrec_eval), which sees each run ranked by bvtest (ranking_scores) and,
    for threshold measures, 0/1 qrels per relevance level (binary_qrels);
    measures on graded relevance see the grades.

    ``qrels`` is a dict or a :class:`~bvtest_cli.io.trec.QrelsTable` (arrays,
    shared by forked workers); a run is a dict or
    :class:`~bvtest_cli.io.trec.RunColumns`; each is converted only when a
    path needs the other form.
    """

    def __init__(
        self,
        qrels: Qrels | QrelsTable,
        specs: Sequence[MeasureSpec],
        err_impl: str = "fast",
        impl: str = "fast",
        variances: bool = False,
        *,
        max_docs: int | None = None,
        judged_only: bool = False,
    ):
        from ..measures import fastmeasures

        # trec_eval's -M and -J: every measure sees the ranking they leave
        self._max_docs = max_docs
        self._judged_only = judged_only
        from ..measures.sampled import VARIANCE_KINDS, sampled_kind

        self.specs = list(specs)
        # QrelsFile holds whichever view it is given and makes the other on first use
        self._qrels = (
            QrelsFile("", table=qrels) if isinstance(qrels, QrelsTable) else QrelsFile("", qrels)
        )
        self._fast: list[tuple[str, tuple[str, int | None, int]]] = []
        self._fast_err: list[tuple[str, int]] = []
        # rel level → [(name, estimator)]: the estimators of one level share a pass
        self._sampled: dict[int, list[tuple[str, str]]] = {}
        slow: list[MeasureSpec] = []
        for s in self.specs:
            form = fastmeasures.fast_form(s.measure) if impl == "fast" else None
            if is_sampled(s):
                rel = s.rel if s.rel is not None else 1
                self._sampled.setdefault(rel, []).append((s.name, sampled_kind(s.measure)))
            elif s.err_cutoff is not None and err_impl == "fast":
                self._fast_err.append((s.name, s.err_cutoff))
            elif form is not None:
                self._fast.append((s.name, form))
            else:
                slow.append(s)
        # (name, estimator, rel level) of the estimates whose sampling
        # variances are asked for (eval --ci)
        self._variances = [
            (name, kind, rel)
            for rel, named in self._sampled.items()
            for name, kind in named
            if variances and kind in VARIANCE_KINDS
        ]
        self._ideal = None
        self._ranks = bool(self._fast or self._fast_err or self._sampled)
        if self._fast or self._fast_err:
            table = self.table
            if any(form[0] == "nDCG" for _, form in self._fast):
                self._ideal = fastmeasures.IdealDCG(table)
            self._positive = table.num_rel(1) > 0
        self._ir: list[tuple[Any, dict[ir_measures.Measure, list[str]]]] = []
        self._err: list[tuple[str, Callable[[Run], dict[str, float]]]] = []
        if not slow:
            return
        qrels_dict = self._qrels.qrels
        self._topics = qrels_dict.keys()
        # (ir_measures evaluator, computed measure → printed names), one per qrels variant
        # Threshold measures are computed on 0/1 qrels when pytrec_eval cannot
        # take the level or the grades (rel <= 0 or beyond a C int, grades
        # beyond MAX_GAIN_GRADE); otherwise with the other measures in one
        # pass, as trec_eval would.
        small = all(g <= MAX_GAIN_GRADE for docs in qrels_dict.values() for g in docs.values())
        groups: dict[int | None, dict[ir_measures.Measure, list[str]]] = {}
        for s in slow:
            if s.err_cutoff is not None:
                continue
            if s.rel is None or (small and 1 <= s.rel <= MAX_GAIN_GRADE):  # C int in pytrec_eval
                groups.setdefault(None, {}).setdefault(s.measure, []).append(s.name)
            else:
                groups.setdefault(s.rel, {}).setdefault(s.on_binary_qrels(), []).append(s.name)
        self._ir = [
            (
                ir_measures.evaluator(
                    list(names), qrels_dict if rel is None else binary_qrels(qrels_dict, rel)
                ),
                names,
            )
            for rel, names in groups.items()
        ]
        for s in slow:
            if s.err_cutoff is not None:  # err_impl == "perl"
                self._err.append((s.name, _gdeval_perl(qrels_dict, s.err_cutoff)))

    @property
    def table(self) -> QrelsTable:
        return self._qrels.table

    def calc(self, run: Run | RunColumns) -> dict[str, dict[str, float]]:
        """Topic → value per measure name."""
        return self.calc_with_variances(run)[0]

    def calc_with_variances(
        self, run: Run | RunColumns
    ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
        """:meth:`calc`'s scores, and topic → sampling variance per measure
        name of the estimates asked for with ``variances=True`` (from the
        same ranking of the run: :func:`~bvtest_cli.measures.sampled.sampling_variance_run`)."""
        from ..measures import fastmeasures
        from ..measures.gdeval import err_ranked
        from ..measures.sampled import evaluate_run, sampling_variance_run

        scores: dict[str, dict[str, float]] = {s.name: {} for s in self.specs}
        variances: dict[str, dict[str, float]] = {}
        if self._ranks:
            columns = run if isinstance(run, RunColumns) else RunColumns.from_dict(run)
            ranked = fastmeasures.rank_run(columns, self.table)
            ranked = fastmeasures.condense(ranked, self._max_docs, self._judged_only)
            for rel, named in self._sampled.items():
                kinds = tuple(dict.fromkeys(kind for _, kind in named))
                values = evaluate_run(ranked, self.table, kinds, rel)
                for name, kind in named:
                    scores[name] = dict(zip(ranked.topics, values[kind].tolist(), strict=True))
            for name, kind, rel in self._variances:
                v = sampling_variance_run(ranked, self.table, kind, rel)
                variances[name] = dict(zip(ranked.topics, v.tolist(), strict=True))
            forms = [form for _, form in self._fast]
            columns_of_forms = fastmeasures.compute(ranked, self.table, forms, self._ideal)
            for (name, _), column in zip(self._fast, columns_of_forms, strict=True):
                scores[name] = dict(zip(ranked.topics, column.tolist(), strict=True))
            for name, k in self._fast_err:
                scores[name] = err_ranked(ranked, self._positive, k)
        if self._ir or self._err:
            as_dict = run.as_dict() if isinstance(run, RunColumns) else run
            if self._max_docs is not None or self._judged_only:
                as_dict = condensed_run(
                    as_dict, self._qrels.qrels, self._max_docs, self._judged_only
                )
            if self._ir:
                ranked_dict = pytrec_run(as_dict, self._topics)
                for evaluator, names in self._ir:
                    for metric in evaluator.iter_calc(ranked_dict):
                        for name in names[metric.measure]:
                            scores[name][metric.query_id] = float(metric.value)
            for name, calc in self._err:
                scores[name] = calc(as_dict)
        return scores, variances


def _gdeval_perl(qrels: Qrels, cutoff: int) -> Callable[[Run], dict[str, float]]:
    """ERR@k through ir_measures' gdeval provider with topic ids mapped to
    integers: gdeval accepts only integer ids and strips everything up to a
    '-', so ``2024-1`` and ``2023-1`` would otherwise collide."""
    to_int = {topic: str(i + 1) for i, topic in enumerate(qrels)}
    from_int = {v: k for k, v in to_int.items()}
    mapped = {to_int[t]: docs for t, docs in qrels.items()}
    evaluator = ir_measures.gdeval.evaluator([ir_measures.ERR @ cutoff], mapped)

    def calc(run: Run) -> dict[str, float]:
        run_mapped = {to_int[t]: docs for t, docs in run.items() if t in to_int}
        if not run_mapped:
            return {}
        return {from_int[m.query_id]: float(m.value) for m in evaluator.iter_calc(run_mapped)}

    return calc
