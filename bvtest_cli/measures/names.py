"""Measure names: what ``-m`` accepts and what each name is computed as (docs/measures.md).

``parse_measures`` reads ir_measures syntax, trec_eval names (either in any
case: ``map@100``, ``NDCG_CUT.10``) and bvtest's estimators for sampled
judgments into :class:`MeasureSpec`s (a printed name, the measure with its
relevance level, the ERR cutoff, the text the user typed), suggesting a close
name for an unknown one; ``check_computable`` refuses, before any run is read,
what no installed provider could compute.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import ir_measures

from ..errors import InputError

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

    name: str  # printed name, e.g. "AP" or "nDCG@10": the name of its matrix and block
    measure: ir_measures.Measure  # with the rel level applied
    err_cutoff: int | None  # k for ERR@k (served by the gdeval-exact path), else None
    # the -m item as typed ("map", "ndcg@10", "P.5,10"); the name when not given
    asked: str = ""

    def __post_init__(self) -> None:
        if not self.asked:
            object.__setattr__(self, "asked", self.name)

    @property
    def label(self) -> str:
        """The name, with the spelling typed beside it when that differs
        (``P (-m p)``): an error then names what the user wrote too."""
        return self.name if self.asked == self.name else f"{self.name} (-m {self.asked})"

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


def parse_measures(
    texts: Iterable[str], rel_level: int = 1, note: Callable[[str], None] | None = None
) -> list[MeasureSpec]:
    """Parse ``-m`` values (repeatable, comma-separated) in ir_measures syntax,
    or as trec_eval names (``map``, ``ndcg_cut.10``, ``P.5,10``), printed
    under their ir_measures names. A name in another case than ir_measures'
    or trec_eval's (``map@100``, ``p@10``, ``NDCG@10``) is that name
    (:func:`_folded`); each spec keeps the item as typed (``asked``).

    Two spellings of one measure (``-m MAP,map``, ``-m AP,map``) give it once,
    under the first spelling, and ``note`` (when given) says so; the same
    spelling twice is simply one measure.

    ``-l L`` (docs/measures.md) sets ``rel=L`` on every measure whose ``rel`` parameter
    is a relevance threshold (default 1: AP, P, R, RR, ...) and was not given
    explicitly; measures whose ``rel`` is not a threshold by default are left
    alone (RBP: graded gains; NumRet: every retrieved document).
    """
    names: list[str] = []
    for text in texts:
        names.extend(_split_measures(text))
    specs: list[MeasureSpec] = []
    merged: dict[str, list[str]] = {}
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
            spec = MeasureSpec(shown, measure, cutoff, name)
            rel = measure.params.get("rel")
            if isinstance(rel, int) and rel < 1 and spec.rel is None:
                raise InputError(
                    f"{spec.label}: relevance levels below 1 are supported for "
                    f"{', '.join(sorted(THRESHOLD_MEASURES))} only",
                    "-m",
                )
            first = next((s for s in specs if s.name == shown), None)
            if first is None:
                specs.append(spec)
            elif first.asked != name:  # `AP` and `map` are one measure: one block
                merged.setdefault(shown, [first.asked]).append(name)
    if not specs:
        raise InputError("no measure given", "-m")
    if note is not None:
        for shown, spellings in merged.items():
            note(
                f"-m: {' and '.join(spellings)} name one measure, {shown}: "
                f"reported once, as asked by {spellings[0]!r}"
            )
    return specs


def asked_names(texts: Iterable[str], rel_level: int = 1) -> dict[str, str]:
    """Each measure's printed name → the ``-m`` item that asked for it (the
    first, when two spellings name it): what a report states beside the
    measure's block (registry ``ASKED``)."""
    return {spec.name: spec.asked for spec in parse_measures(texts, rel_level)}


def check_computable(spec: MeasureSpec) -> None:
    """Refuse before reading any run what would otherwise fail (or abort
    pytrec_eval) in the middle of the evaluation: a cutoff below 1, a measure
    no installed ir_measures provider serves, invalid parameters. (A scores
    file may hold any measure: names are checked only when evaluating.)"""
    cutoff = spec.measure.params.get("cutoff")
    if cutoff is not None and not (isinstance(cutoff, int) and cutoff >= 1):
        raise InputError(f"{spec.label}: the cutoff must be a positive integer", "-m")
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
            f"{spec.label} needs {' and '.join(missing)} (no default): "
            f"write {spec.measure.NAME}({example}) (see ir_measures' documentation)",
            "-m",
        )
    computed = spec.measure if spec.rel is None else spec.on_binary_qrels()
    try:
        ir_measures.evaluator([computed], {"q": {"d": 1}})
    except Exception as exc:  # ValueError (no provider), AssertionError (bad parameter), ...
        reason = " ".join(str(exc).split()) or type(exc).__name__
        reason = re.sub(r"<object object at 0x[0-9a-f]+>", "(no value)", reason)
        raise InputError(f"{spec.label} cannot be computed: {reason}", "-m") from None


def _parse_one(name: str) -> list[ir_measures.Measure]:
    """One -m item: bvtest's estimators for sampled judgments (xinfAP,
    statAP), ir_measures syntax, then a trec_eval name, each as spelled, then
    in ir_measures' or trec_eval's case (:func:`_folded`)."""
    sampled = _parse_sampled(name)
    if sampled is not None:
        return [sampled]
    parsed = _parse_named(name)
    if not isinstance(parsed, str):
        return parsed
    folded = _folded(name)
    if folded is not None:
        return folded
    hint = _did_you_mean(name)
    detail = f" (did you mean {hint}?)" if hint else f": {parsed}"
    raise InputError(f"unknown measure {name!r}{detail}", "-m") from None


def _parse_named(name: str) -> list[ir_measures.Measure] | str:
    """``name`` in ir_measures syntax, else as a trec_eval name, exactly as
    spelled; ir_measures' reason when it is neither."""
    try:
        measure = ir_measures.parse_measure(name)
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError) as exc:
        error = str(exc)
    else:
        # ir_measures takes any parameter name and fails only when printing it
        unknown = [k for k in measure.params if k not in measure.SUPPORTED_PARAMS]
        if not unknown:
            return [measure]
        error = (
            f"{measure.NAME} has no parameter {unknown[0]!r} "
            f"(its parameters: {', '.join(measure.SUPPORTED_PARAMS)})"
        )
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
    return error


def _foldable_names() -> list[str]:
    """The names whose case ``-m`` need not match: ir_measures' (with its
    aliases: MAP, NDCG, Recall) and trec_eval's, longest first. Not the
    estimators for sampled judgments nor infAP, which two estimators share
    (sample_eval.pl's and trec_eval's): for those a wrong case is a near miss,
    answered with both names."""
    import pytrec_eval

    from .sampled import SAMPLE_EVAL_INFAP, SAMPLED_MEASURES

    exact_only = {n.lower() for n in (*SAMPLED_MEASURES, SAMPLE_EVAL_INFAP, "infAP")}
    names = {*ir_measures.measures.registry, *pytrec_eval.supported_measures}
    return sorted((n for n in names if n.lower() not in exact_only), key=lambda n: (-len(n), n))


def _folded(name: str) -> list[ir_measures.Measure] | None:
    """``name`` with its leading measure name in the case a library spells it
    (``map@100`` → ``MAP@100``, ``p.10`` → ``P.10``), the rest (parameters,
    cutoffs) as typed; None when no such spelling parses.

    Only a whole name folds (``r@10`` is R@10, never RR or Rprec; ``rr`` is
    RR): the letters typed must be all of a known name's, followed by a
    non-letter or nothing. Where two spellings with the same letters parse
    (``map``, ``MAP``), they must be one measure; were they two, the name is
    refused naming both, rather than computing either one silently.
    """
    found: dict[str, tuple[str, list[ir_measures.Measure]]] = {}
    for known in _foldable_names():
        n = len(known)
        head, rest = name[:n], name[n:]
        if head == known or head.lower() != known.lower() or rest[:1].isalpha():
            continue
        spelled = known + rest
        try:
            parsed = _parse_named(spelled)
        except InputError:
            raise InputError(
                f"{name!r} is trec_eval's {spelled!r}, which is not available through ir_measures",
                "-m",
            ) from None
        if not isinstance(parsed, str):
            found.setdefault(" ".join(map(str, parsed)), (spelled, parsed))
    if len(found) > 1:
        options = " or ".join(repr(spelled) for spelled, _ in found.values())
        raise InputError(f"{name!r} could be {options}, different measures: write one", "-m")
    return next(iter(found.values()))[1] if found else None


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


#: Measures whose every per-topic score lies in [0, 1] (ir_measures' and
#: sample_eval.pl's names): their means, and differences of means in [−1, 1].
#: Counts (NumRet, inum_rel, ...) and anything unknown have no such range.
UNIT_MEASURES = frozenset(
    {
        "AP", "nDCG", "ERR", "P", "R", "RR", "Rprec", "Bpref", "infAP", "SetP", "SetR",
        "SetF", "Success", "Judged", "alpha_nDCG", "NERR", "StRecall", "map", "ndcg",
        "ndcg_cut", "recall", "recip_rank", "bpref", "xinfAP", "infNDCG", "iP",
        "iRprec", "ERR_IA", "nDCG_IA", "AP_IA", "P_IA",
    }
)  # fmt: skip


def unit_range(measure: str) -> bool:
    """Whether every score of ``measure`` (a matrix's measure name, as bvtest
    prints it: ``AP``, ``nDCG@10``, ``AP(rel=2)``, ``P.10``) lies in [0, 1]."""
    base = re.match(r"[A-Za-z_]+", measure.strip())
    return base is not None and base[0].rstrip("_") in UNIT_MEASURES
