"""Runs + qrels → one ScoreMatrix per measure (docs/measures.md, docs/inputs.md).

Per-topic scores come from ir_measures, except ERR@k, which ir_measures only
serves through gdeval.pl (a perl process per run, integer topic ids only).
ERR@k is computed by :mod:`bvtest_cli.measures.gdeval`, a re-implementation proven
equal to gdeval's printed values; ``err_impl="perl"`` keeps the original path,
with topic ids mapped to integers and back so that any id works.

Each run file is read and evaluated in one step, in parallel over runs when
``jobs > 1`` (forked workers, runs sent in small batches, only the per-topic
scores sent back); results are collected in input order, so the output does
not depend on the number of jobs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import ir_measures
import numpy as np

from ..errors import InputError, printable
from ..io.sources import STDIN, Note, Qrels, Run, Source
from ..io.trec import (
    QrelsFile,
    QrelsTable,
    RunColumns,
    keep_freed_memory,
    read_run,
    read_run_columns,
    sort_topics,
)
from ..measures.gdeval import MAX_JUDGMENT
from ..measures.matrix import ScoreMatrix
from ..measures.parallel import default_jobs, parallel_map, progress
from ..settings import Settings

# trec_eval (inside pytrec_eval) allocates a counter for every grade from 0 to
# the largest one, per topic: a grade of 2**31 takes 16 GB and 40 s, one of
# 2**32 makes the allocation fail and every score silently 0. Measures that
# use the grades themselves (nDCG) get them only up to this bound; threshold
# measures (AP, P, ...) get 0/1 grades and take any 64-bit grade.
MAX_GAIN_GRADE = 2**16 - 1

# Measures whose value depends on a grade only through "grade >= rel" (and
# "grade < 0": judged-but-unjudged for bpref / infAP, as in trec_eval). They
# are given qrels reduced to 1 (relevant), 0 (judged non-relevant) and -1,
# with rel=1, which is exact for any rel level, including levels <= 0 that
# pytrec_eval cannot take (rel=0 crashes it) and levels beyond a C int.
THRESHOLD_MEASURES = frozenset(
    {
        "AP",
        "P",
        "R",
        "RR",
        "Rprec",
        "Bpref",
        "NumRel",
        "NumRet",
        "SetAP",
        "SetF",
        "SetP",
        "SetR",
        "Success",
        "infAP",
        "IPrec",
        "xinfAP",
        "statAP",
        "iP",
        "inum_rel",
        "inum_rel_ret",
        "iRprec",
    }
)


@dataclass(frozen=True)
class MeasureSpec:
    """A measure as the user named it and as it is computed."""

    name: str  # printed name, e.g. "AP" or "nDCG@10"
    measure: ir_measures.Measure  # with the rel level applied
    err_cutoff: int | None  # k for ERR@k (served by the gdeval-exact path), else None

    @property
    def rel(self) -> int | None:
        """The relevance level of a threshold measure (computed on 0/1 qrels),
        None for a measure computed on the grades themselves."""
        m = self.measure
        if m.NAME not in THRESHOLD_MEASURES or "rel" not in m.SUPPORTED_PARAMS:
            return None
        rel = m.params.get("rel", m.SUPPORTED_PARAMS["rel"].default)
        return rel if isinstance(rel, int) else None  # NumRet without rel: no threshold

    def on_binary_qrels(self) -> ir_measures.Measure:
        """The measure as computed on 0/1 qrels: rel=1 (the default, so that
        the provider serving the plain measure serves it)."""
        params = {k: v for k, v in self.measure.params.items() if k != "rel"}
        if self.measure.SUPPORTED_PARAMS["rel"].default != 1:  # NumRet: rel=1 is relevant-retrieved
            params["rel"] = 1
        return type(self.measure)(**params)


def parse_measures(texts: Iterable[str], rel_level: int = 1) -> list[MeasureSpec]:
    """Parse ``-m`` values (repeatable, comma-separated) in ir_measures syntax,
    or as trec_eval names (``map``, ``ndcg_cut.10``, ``P.5,10``), printed
    under their ir_measures names.

    ``-l L`` (docs/measures.md) sets ``rel=L`` on every measure whose ``rel`` parameter
    is a relevance threshold (default 1: AP, P, R, RR, ...) and was not given
    explicitly; measures whose ``rel`` is not a threshold by default are left
    alone (RBP: graded gains; NumRet: every retrieved document).
    """
    names: list[str] = []
    for text in texts:
        names.extend(_split_measures(text))
    specs: list[MeasureSpec] = []
    for name in dict.fromkeys(names):
        for measure in _parse_one(name):
            shown = str(measure)
            if (
                rel_level != 1
                and "rel" in measure.SUPPORTED_PARAMS
                and measure.SUPPORTED_PARAMS["rel"].default == 1
                and "rel" not in measure.params
            ):
                measure = measure(rel=rel_level)
            cutoff = None
            if measure.NAME == "ERR":
                cutoff = measure.params.get("cutoff")
                if cutoff is None:
                    raise InputError("ERR needs a cutoff, e.g. ERR@20", "-m")
            spec = MeasureSpec(shown, measure, cutoff)
            rel = measure.params.get("rel")
            if isinstance(rel, int) and rel < 1 and spec.rel is None:
                raise InputError(
                    f"{shown}: relevance levels below 1 are supported for "
                    f"{', '.join(sorted(THRESHOLD_MEASURES))} only",
                    "-m",
                )
            if all(s.name != shown for s in specs):  # `AP` and `map` are one measure
                specs.append(spec)
    if not specs:
        raise InputError("no measure given", "-m")
    return specs


def check_computable(spec: MeasureSpec) -> None:
    """Refuse before reading any run what would otherwise fail (or abort
    pytrec_eval) in the middle of the evaluation: a cutoff below 1, a measure
    no installed ir_measures provider serves, invalid parameters. (A scores
    file may hold any measure: names are checked only when evaluating.)"""
    cutoff = spec.measure.params.get("cutoff")
    if cutoff is not None and not (isinstance(cutoff, int) and cutoff >= 1):
        raise InputError(f"{spec.name}: the cutoff must be a positive integer", "-m")
    if spec.err_cutoff is not None or is_sampled(spec):
        return
    # a required parameter must be given (ir_measures' own message would show
    # its missing default as "<object object at 0x…>")
    missing = [
        name
        for name, info in spec.measure.SUPPORTED_PARAMS.items()
        if name not in spec.measure.params and getattr(info, "required", False)
    ]
    if missing:
        example = ", ".join(f"{name}=…" for name in missing)
        raise InputError(
            f"{spec.name} needs {' and '.join(missing)} (no default): "
            f"write {spec.measure.NAME}({example}) (see ir_measures' documentation)",
            "-m",
        )
    computed = spec.measure if spec.rel is None else spec.on_binary_qrels()
    try:
        ir_measures.evaluator([computed], {"q": {"d": 1}})
    except Exception as exc:  # ValueError (no provider), AssertionError (bad parameter), ...
        reason = " ".join(str(exc).split()) or type(exc).__name__
        reason = re.sub(r"<object object at 0x[0-9a-f]+>", "(no value)", reason)
        raise InputError(f"{spec.name} cannot be computed: {reason}", "-m") from None


def _parse_one(name: str) -> list[ir_measures.Measure]:
    """One -m item: bvtest's estimators for sampled judgments (xinfAP,
    statAP), ir_measures syntax, then a trec_eval name."""
    sampled = _parse_sampled(name)
    if sampled is not None:
        return [sampled]
    try:
        return [ir_measures.parse_measure(name)]
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError) as exc:
        error = str(exc)
    import pytrec_eval

    if name in pytrec_eval.supported_nicknames:
        # all_trec / official: ir_measures would print what it skips to stdout
        raise InputError(
            f"trec_eval's measure set {name!r} is not supported; name the measures", "-m"
        )
    try:
        return list(ir_measures.parse_trec_measure(name))
    except (ValueError, TypeError, KeyError) as exc:
        if str(exc).startswith("known trec name"):
            raise InputError(
                f"trec_eval's measure {name!r} is not available through ir_measures", "-m"
            ) from None
    hint = _did_you_mean(name)
    detail = f" (did you mean {hint}?)" if hint else f": {error}"
    raise InputError(f"unknown measure {name!r}{detail}", "-m") from None


def _parse_sampled(name: str) -> ir_measures.Measure | None:
    """An estimator for sampled judgments: ``xinfAP`` (also
    ``sample_eval:infAP``, sample_eval.pl's name for it), ``statAP``,
    ``infNDCG``, ``inum_rel``, ``inum_rel_ret``, ``iP@k`` (also
    sample_eval.pl's ``iP10``), ``iRprec``, optionally ``(rel=L)`` (not infNDCG: its
    gains are the grades); None for any other name."""
    from .sampled import SAMPLE_EVAL_INFAP, SAMPLED_MEASURES

    match = re.fullmatch(
        r"(sample_eval:infAP|iP(?=@?\d)|\w+)(?:@?(\d+))?(?:\(rel=(-?\d+)\))?", name.strip()
    )
    if match is None:
        return None
    base, cutoff, rel = match.groups()
    if base == "iP" and cutoff is None:
        raise InputError("iP needs a rank k: iP@k, e.g. iP@10", "-m")
    if base == SAMPLE_EVAL_INFAP:
        base = "xinfAP"
    if base not in SAMPLED_MEASURES or (cutoff is None) != (base != "iP"):
        return None
    measure = SAMPLED_MEASURES[base]
    if cutoff is not None:
        measure = measure(cutoff=int(cutoff))
    if rel is not None:
        if "rel" not in measure.SUPPORTED_PARAMS:
            raise InputError(f"{base} takes no relevance level: its gains are the grades", "-m")
        measure = measure(rel=int(rel))
    return measure


def is_sampled(spec: MeasureSpec) -> bool:
    """Computed by :mod:`bvtest_cli.measures.sampled`, not by ir_measures."""
    from .sampled import SAMPLED_MEASURES

    return spec.measure.NAME in SAMPLED_MEASURES


def _did_you_mean(name: str) -> str | None:
    """A known measure name close to ``name`` (case, typo), with the rest of
    ``name`` (``@10``, ``(rel=2)``) kept; ir_measures names before trec_eval's."""
    import difflib
    import re

    import pytrec_eval

    match = re.match(r"[^@(]+", name)
    base, rest = (match.group(0), name[match.end() :]) if match else (name, "")
    from .sampled import SAMPLE_EVAL_INFAP, SAMPLED_MEASURES

    squashed = re.sub(r"[^a-z]", "", base.lower())
    if squashed in ("xinfap", "infap", "sampleevalinfap", "sampleevalxinfap"):
        # two estimators carry the name: sample_eval.pl's and trec_eval's
        return f"xinfAP{rest} (sample_eval.pl's infAP) or infAP{rest} (trec_eval's)"
    sample_eval_ip = re.fullmatch(r"ip[@.]?(\d+)", base.lower())
    if sample_eval_ip and not rest:
        return f"iP@{sample_eval_ip.group(1)}"
    by_lower = {k.lower(): k for k in sorted(pytrec_eval.supported_measures)}
    by_lower.update({k.lower(): k for k in sorted(ir_measures.measures.registry)})
    by_lower.update({k.lower(): k for k in (*SAMPLED_MEASURES, SAMPLE_EVAL_INFAP)})
    guess = by_lower.get(base.lower())
    if guess is None:
        close = difflib.get_close_matches(base.lower(), list(by_lower), n=1, cutoff=0.75)
        guess = by_lower[close[0]] if close else None
    if guess is None or guess == base:
        return None
    return guess + rest


def _split_measures(text: str) -> list[str]:
    """Split on commas that are not inside parentheses: ``AP(rel=2),P@10``; a
    bare number continues a trec_eval name: ``P.5,10``."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    if not all(parts):
        raise InputError(f"empty item in the measure list {text!r}", "-m")
    merged: list[str] = []
    for part in parts:
        if merged and part.replace(".", "").isdigit() and part.isascii():
            merged[-1] += "," + part
        else:
            merged.append(part)
    return [p for p in merged if p]


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
    tests/test_rank_precision.py checks that) and none overflows. Exact ties
    are fine: pytrec_eval breaks them by docno descending, as trec_eval."""
    scores = np.array(list(docs.values()))  # faster than np.fromiter on dict values
    scores.sort()
    with np.errstate(over="ignore"):
        single = scores.astype(np.float32)
    if not np.isfinite(single).all():
        return False
    return not ((single[1:] == single[:-1]) & (scores[1:] != scores[:-1])).any()


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
    ):
        from ..measures import fastmeasures
        from ..measures.sampled import sampled_kind

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
        from ..measures import fastmeasures
        from ..measures.gdeval import err_ranked
        from ..measures.sampled import evaluate_run

        scores: dict[str, dict[str, float]] = {s.name: {} for s in self.specs}
        if self._ranks:
            columns = run if isinstance(run, RunColumns) else RunColumns.from_dict(run)
            ranked = fastmeasures.rank_run(columns, self.table)
            for rel, named in self._sampled.items():
                kinds = tuple(dict.fromkeys(kind for _, kind in named))
                values = evaluate_run(ranked, self.table, kinds, rel)
                for name, kind in named:
                    scores[name] = dict(zip(ranked.topics, values[kind].tolist(), strict=True))
            forms = [form for _, form in self._fast]
            columns_of_forms = fastmeasures.compute(ranked, self.table, forms, self._ideal)
            for (name, _), column in zip(self._fast, columns_of_forms, strict=True):
                scores[name] = dict(zip(ranked.topics, column.tolist(), strict=True))
            for name, k in self._fast_err:
                scores[name] = err_ranked(ranked, self._positive, k)
        if self._ir or self._err:
            as_dict = run.as_dict() if isinstance(run, RunColumns) else run
            if self._ir:
                ranked_dict = pytrec_run(as_dict, self._topics)
                for evaluator, names in self._ir:
                    for metric in evaluator.iter_calc(ranked_dict):
                        for name in names[metric.measure]:
                            scores[name][metric.query_id] = float(metric.value)
            for name, calc in self._err:
                scores[name] = calc(as_dict)
        return scores


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


# ---------------------------------------------------------------------------
# Evaluating many runs

# ---------------------------------------------------------------------------
# Reading and processing many runs, in parallel

RunWork = Callable[[int, Any], Any]  # (index of the run among the inputs, run as read) → result


def _read_then(
    make_work: Callable[[], RunWork], reader: Callable[[Source], Any] = read_run
) -> Callable[[tuple[int, Source]], Any]:
    work = make_work()

    def task(item: tuple[int, Source]) -> Any:
        index, source = item
        try:
            run = reader(source)
        except InputError as exc:  # returned, not raised: keeps file:line across processes
            return exc
        return work(index, run)

    return task


def map_runs(
    sources: Sequence[Source],
    make_work: Callable[[], RunWork],
    *,
    jobs: int = 1,
    tick: Callable[[], None] = lambda: None,
    reader: Callable[[Source], Any] = read_run,
    meanwhile: Callable[[], None] | None = None,
) -> list[Any]:
    """Read every run once (as a dict, or with ``reader``) and apply
    ``make_work()`` to it, in input order.

    With ``jobs > 1`` each worker process reads its own files and sends back
    only the (small) results, so the parent never holds the runs. The first
    bad file raises its InputError. Standard input cannot be shared with
    worker processes, so a ``-`` among the sources means one process.
    """
    if any(s.path == STDIN for s in sources):
        jobs = 1
    keep_freed_memory()  # inherited by the workers: runs are parsed without page faults
    items = list(enumerate(sources))
    return parallel_map(
        items, partial(_read_then, make_work, reader), jobs=jobs, tick=tick, meanwhile=meanwhile
    )


@dataclass(frozen=True)
class RunScores:
    """What one worker sends back: per-topic scores and the run's topic ids."""

    scores: dict[str, dict[str, float]]
    topics: frozenset[str]


def _scorer(
    qrels: Qrels | QrelsTable, specs: Sequence[MeasureSpec], err_impl: str, impl: str = "fast"
) -> RunWork:
    evaluator = RunEvaluator(qrels, specs, err_impl, impl)

    def work(_: int, run: Run | RunColumns) -> RunScores:
        topics = run.topics if isinstance(run, RunColumns) else run
        return RunScores(evaluator.calc(run), frozenset(topics))

    return work


def _warm_up() -> None:
    """What the analyses after an evaluation import, imported while the
    workers evaluate the runs (0.2-0.3 s that would otherwise run alone
    after them): scipy.special, for the normal and t distributions."""
    import scipy.special  # noqa: F401


def list_topics(topics: Sequence[str], shown: int = 5) -> str:
    """``7, 12, 40`` or ``7, 12, 40, 41, 50, ... (12 in all)`` for a note."""
    if not topics:
        return "none"
    more = f", ... ({len(topics)} in all)" if len(topics) > shown else ""
    return ", ".join(map(printable, topics[:shown])) + more


def topic_set(
    qrels_file: QrelsFile,
    rel_level: int,
    note: Note,
    role: str = "qrels",
    sampled_topics: str = "judged",
) -> list[str]:
    """The topics every analysis uses (docs/inputs.md): the qrels topics with a
    document of grade >= ``rel_level``; the others are dropped with a note
    naming them (``role``: how the qrels file is called there).
    ``sampled_topics="all"``: every qrels topic, as NIST's sample_eval.pl
    averages over every topic of a sampled collection (0 where no judged
    document is relevant)."""
    if sampled_topics == "all" and qrels_file.topics():
        return sort_topics(qrels_file.topics())
    topics = sort_topics(qrels_file.relevant_topics(rel_level))
    if not topics:
        raise InputError(f"no topic has a relevant document (rel >= {rel_level})", qrels_file.label)
    dropped = sort_topics(set(qrels_file.topics()) - set(topics))
    if dropped:
        note(
            f"{len(dropped)} {role} topic(s) have no relevant document (rel >= {rel_level}); "
            f"dropped: {list_topics(dropped)}"
        )
    return topics


def check_shared_topics(
    qrels_label: str,
    topics: Sequence[str],
    names: Sequence[str],
    run_topics: Sequence[Iterable[str]],
) -> None:
    """Runs that share no topic with the qrels score 0 everywhere: with the
    wrong qrels file every run does, and that is an error, not a table of
    zeros. (One such run among others is only a note; see evaluate_runs.)"""
    kept = set(topics)
    if not names or any(kept.intersection(t) for t in run_topics):
        return
    seen = sort_topics(set().union(*map(set, run_topics)))
    shown_runs = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    if len(names) == 1:
        who, theirs = f"run {shown_runs} has no", "its topics"
    else:
        who, theirs = f"none of the {len(names)} runs ({shown_runs}) has a", "run topics"
    examples = f"{theirs}: {list_topics(seen, 3)}; " if seen else ""
    raise InputError(
        f"{who} ranking for any of the {len(topics)} qrels topics with a relevant "
        f"document ({examples}qrels topics: {list_topics(list(topics), 3)}); wrong qrels file?",
        qrels_label,
    )


def evaluate_runs(
    qrels_file: QrelsFile,
    sources: Sequence[Source],
    specs: Sequence[MeasureSpec],
    *,
    rel_level: int = 1,
    jobs: int = 1,
    err_impl: str = "fast",
    impl: str = "fast",
    note: Note = lambda _: None,
    tick: Callable[[], None] = lambda: None,
    unit: str = "topics",
    on_unknown: Callable[[set[str]], None] | None = None,
    sampled_topics: str = "judged",
) -> list[ScoreMatrix]:
    """Evaluate every run and build one ScoreMatrix per measure (docs/inputs.md).

    Topic set: qrels topics with at least one document of grade >= rel_level;
    a run without a ranking for such a topic scores 0 there (trec_eval -c);
    run topics absent from the qrels are ignored. Each rule is reported once.
    ``unit`` names the qrels' keys in the notes ("variations" when they are
    query variations); ``on_unknown``, if given, receives the run topics absent
    from the qrels instead of the generic note (a caller that knows why they
    are absent says so).
    """
    for spec in specs:
        check_computable(spec)
    check_grades(qrels_file, specs)
    topics = topic_set(qrels_file, rel_level, note, sampled_topics=sampled_topics)

    # The qrels table is built here, before the workers fork: they share its
    # arrays instead of each building its own evaluator over a dict.
    make_work = partial(_scorer, qrels_file.table, list(specs), err_impl, impl)
    results: list[RunScores] = map_runs(
        sources, make_work, jobs=jobs, tick=tick, reader=read_run_columns, meanwhile=_warm_up
    )

    wanted = set(topics)
    check_shared_topics(
        qrels_file.label, topics, [s.name for s in sources], [r.topics for r in results]
    )
    unknown: set[str] = set()
    for source, r in zip(sources, results, strict=True):
        unknown |= r.topics - qrels_file.table.topic_index.keys()
        missing = len(wanted - r.topics)
        if missing == len(topics):
            note(
                f"{source.name}: no ranking for any of the {len(topics)} {unit} (its {unit}: "
                f"{list_topics(sort_topics(r.topics))}); it scores 0 on every one"
            )
        elif missing:
            note(f"{source.name}: no ranking for {missing} of {len(topics)} {unit}; they score 0")
    if on_unknown is not None:
        on_unknown(unknown)
    elif unknown:
        note(
            f"{len(unknown)} topic(s) in the runs are not in the qrels; "
            f"ignored: {list_topics(sort_topics(unknown))}"
        )

    systems = tuple(source.name for source in sources)
    matrices = []
    for spec in specs:
        values = np.array(
            [[r.scores[spec.name].get(t, 0.0) for t in topics] for r in results], dtype=float
        ).reshape(len(results), len(topics))
        matrices.append(ScoreMatrix(spec.name, systems, tuple(topics), values))
    return matrices


# ---------------------------------------------------------------------------
# The evaluation options of a command


def how(s: Settings, notes: list[str], n_runs: int) -> dict[str, Any]:
    """The evaluation options of ``s`` as keywords of :func:`evaluate_runs`
    (and of the evaluators built on it): level, jobs, implementations, notes,
    progress."""
    chosen = {
        "rel_level": s.rel_level,
        "jobs": s.jobs or default_jobs(),
        "err_impl": s.err_impl,
        "impl": s.impl,
        "note": notes.append,
        "tick": progress(n_runs, s.quiet),
    }
    # Only when asked: `rankings` (whose topics are its reference's) never is.
    if s.sampled_topics != "judged":
        chosen["sampled_topics"] = s.sampled_topics
    return chosen
