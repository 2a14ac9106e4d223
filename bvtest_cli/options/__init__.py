"""Every command-line option, declared once and validated once.

Each :class:`Option` is a click declaration plus the :class:`Settings`
attribute it fills. Commands name the options they take (:data:`INPUTS`,
:data:`EVALUATION`, :data:`ANALYSIS`, :data:`OUTPUT`, or single names); a
:class:`Command` runs on its :class:`~bvtest_cli.io.sources.Inputs` and its
own parameters (``commands/NAME/params.py``, made from these
declarations) once :meth:`Command.checked` has checked what no single option
can; a flag means the same in every command that has it (trec_eval's meaning
where trec_eval has the flag: ``-q`` is per-topic output, ``-l`` the
relevance level, ``-m`` the measure, ``-c`` is implied). Values are checked
here, at the boundary (their parsers in :mod:`~bvtest_cli.options.parsers`);
the analyses trust them. May import the foundation (defaults, settings,
errors), io and, inside parsers, analyses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from ..defaults import (
    CORRECTIONS,
    DEFAULT_MEASURES,
    FORMATS,
    TESTS,
    VARIATION_MODES,
)
from ..errors import UsageError
from ..io.sources import Inputs
from ..settings import ALIASES, Settings, typed
from .declarations import (  # noqa: F401 (Option is the table's type, re-exported)
    Option,
    settings_default,
)
from .declarations import arg as _arg
from .declarations import count as _count
from .declarations import opt as _opt
from .design_options import DESIGN_OPTIONS
from .kinds import Choice, Integer, IntRange
from .parsers import (  # noqa: F401 (re-exported: the option table's values)
    BUDGET_METHODS,
    COMPARE_FIELDS,
    MAX_GROUP_SIZE,
    DocCount,
    Real,
    parse_alphas,
    parse_baseline,
    parse_collection,
    parse_collections,
    parse_compare_fields,
    parse_grade_map,
    parse_group,
    parse_judges,
    parse_methods,
    parse_pair,
    parse_pattern,
    parse_positive_floats,
    parse_positive_list,
    parse_reference,
    parse_target,
    parse_variation_alphas,
    parsed_by,
)

if TYPE_CHECKING:
    from .params import Params

#: The values of --topic-set (docs/inputs.md).
TOPIC_SETS = ("judged", "all")


_MEASURE_HELP = (
    "ir_measures measure (AP, nDCG@10, ERR@20, AP(rel=2), P@10, ...) or trec_eval name "
    f"(map, ndcg_cut.10, P.10); repeatable or comma-separated [default: "
    f"{','.join(DEFAULT_MEASURES)}; with --scores: every measure in the file]."
)


#: Every option of every command, declared once, by concept; a command names
#: the ones it takes and may change keywords of some (see the end of this module).
OPTIONS: dict[str, Option] = {
    o.attr: o
    for o in (
        # Inputs: the files a command reads
        _arg("inputs", nargs=-1, metavar="[QRELS RUNS...]"),
        _opt(
            "scores",
            "--scores",
            metavar="FILE",
            help="Analyse a long-format scores file (from `bvtest scores`; - for stdin) "
            "instead of QRELS and RUNS.",
        ),
        _opt(
            "name",
            "--name",
            type=Choice(["file", "tag", "auto"]),
            show_default=True,
            help="Run names: the file name (without .gz), the run tag (column 6; a run "
            "with more than one tag is an error), or auto: the tag when every file is named "
            "TREC's way, input.TAG, else the file name.",
        ),
        _arg("qrels", metavar="QRELS"),
        _arg("pool", metavar="POOL"),
        _arg("new_runs", nargs=-1, required=True, metavar="NEW_RUN..."),
        _opt(
            "new_names",
            "--new",
            multiple=True,
            metavar="NAME",
            help="With --scores: a system of the scores file to gate (repeatable); "
            "every other system is the pool.",
        ),
        _arg("runs", nargs=-1, required=True, metavar="RUNS..."),
        _opt(
            "reference",
            "--reference",
            required=True,
            metavar="[NAME=]FILE",
            callback=parsed_by(parse_reference),
            help="The reference qrels G (gold standard); named after its file name unless "
            "NAME= is given.",
        ),
        _opt(
            "collections",
            "--collection",
            multiple=True,
            required=True,
            metavar="[NAME=]FILE[,FILE...]",
            callback=parsed_by(parse_collections),
            help="A test collection X over the same runs (repeatable): its qrels, or several "
            "qrels samples of one statistical method, comma-separated, or a directory "
            "holding them (as bvtest sample writes them).",
        ),
        _opt(
            "map",
            "--map",
            metavar="FILE",
            help="A map file of the command's inputs: 'run system condition' lines "
            "(conditions), 'variation_id topic_id [user]' lines (variations).",
        ),
        _opt(
            "condition_pattern",
            "--pattern",
            metavar="REGEX",
            callback=parsed_by(parse_pattern),
            help="Instead of --map: a regular expression with named groups system and "
            "condition matched against the whole run name.",
        ),
        _opt(
            "split",
            "--split",
            metavar="SEP",
            help="Without --map: the topic of a query id is its part before the last SEP "
            "(--split - : 201-4 -> 201).",
        ),
        _opt(
            "mode",
            "--mode",
            type=Choice(VARIATION_MODES),
            default=None,
            help="general: users x topics (needs a user column); intra: each topic over its "
            "variations; inter: one query per topic, over topics [default: general when "
            "the map has users, intra with a map or --split, inter without].",
        ),
        _opt(
            "weights",
            "--weights",
            metavar="FILE",
            help="'topic weight' lines, normalised to sum 1 [default: equal weights]; "
            "general and inter modes.",
        ),
        # Evaluation: how the runs are scored
        _opt("measures", "-m", "--measure", multiple=True, metavar="MEASURE", help=_MEASURE_HELP),
        _opt(
            "rel_level",
            "-l",
            "--rel-level",
            type=Integer(),
            show_default=True,
            help="A document is relevant when its grade >= L (trec_eval -l): the level of the "
            "topic set's rule (--topic-set) and the rel of every measure without its own "
            "rel= (AP, P, R, RR, ...). So `-l 2 -m AP` scores AP(rel=2) over the topics "
            "with a grade-2 document, while `-m 'AP(rel=2)'` keeps -l 1's topics, 0 on "
            "those without one; under --topic-set all both equal `trec_eval -c -l 2 -m map`.",
        ),
        _opt(
            "topic_set",
            "--topic-set",
            type=Choice(TOPIC_SETS),
            show_default=True,
            help="The topics every mean averages over, for every measure: judged, those with "
            "a document relevant at -l (after [Zhang22]); all, every qrels topic, 0 where no "
            "document is relevant or the run has no ranking (trec_eval -c's set, and NIST's "
            "sample_eval.pl's). trec_eval without -c averages each run over its own topics, "
            "which one runs × topics matrix cannot.",
        ),
        _opt(
            "sampled_topics",
            "--sampled-topics",
            type=Choice(TOPIC_SETS),
            hidden=True,
            default=None,
        ),
        _opt(
            "complete",
            "-c",
            "--complete",
            is_flag=True,
            help="--topic-set all, as trec_eval spells it: average over every qrels topic.",
        ),
        _opt(
            "max_docs",
            "-M",
            "--max-docs",
            type=DocCount(),
            default=None,
            metavar="N",
            help="Score the first N documents of each ranking only, after trec_eval's ordering "
            "(score descending, ties by docno descending), as trec_eval -M; an N beyond every "
            "ranking cuts nothing.",
        ),
        _opt(
            "judged_only",
            "-J",
            "--judged-only",
            is_flag=True,
            help="Judged documents only (trec_eval -J): every measure on the ranking with the "
            "documents the qrels do not judge removed (condensed lists, Sakai SIGIR 2007); "
            "after -M, as trec_eval.",
        ),
        _opt(
            "jobs",
            "-j",
            "--jobs",
            type=IntRange(1),
            default=None,
            help="Runs evaluated in parallel [default: all cores]. Output does not depend on it.",
        ),
        _opt(
            "err_impl",
            "--err-impl",
            type=Choice(["fast", "perl"]),
            show_default=True,
            help="ERR@k by bvtest's gdeval-exact code (fast) or by gdeval.pl through "
            "ir_measures (perl; one process per run).",
        ),
        _opt(
            "impl",
            "--impl",
            type=Choice(["fast", "ir_measures"]),
            show_default=True,
            help="AP, nDCG, P, R and RR by bvtest's vectorised trec_eval arithmetic (fast), or "
            "every measure through ir_measures' providers (ir_measures). Same values.",
        ),
        _opt("quiet", "--quiet", is_flag=True, help="No notes on stderr."),
        # Analysis: what is computed from the score matrix
        _opt(
            "target",
            "--target",
            show_default=True,
            callback=parsed_by(parse_target),
            help="c for Bias²: max = mean of the virtual target (best score per topic), "
            "ideal = 1, or a constant in [0, 1]. With normalization max and ideal mean c = 1.",
        ),
        _opt(
            "group",
            "--group",
            metavar="difficulty:K|random:K",
            callback=parsed_by(parse_group),
            help="Average topics in groups of K (hardest first, or random with --repeats).",
        ),
        _opt(
            "normalize",
            "--normalize",
            type=Choice(["none", "minmax", "ratio"]),
            show_default=True,
            help="minmax per topic (target becomes 1), or ratio to the target per sample.",
        ),
        _count(
            "repeats",
            "--repeats",
            minimum=1,
            help="Random groupings averaged with --group random:K.",
        ),
        _count(
            "seed",
            "--seed",
            minimum=0,
            help="Seed of every random draw; same seed, same output.",
        ),
        _opt(
            "alphas",
            "--alpha",
            show_default=True,
            callback=parsed_by(parse_alphas),
            help="Risk-aversion values in [0, 1e6] for URisk, TRisk, ZRisk and GeoRisk.",
        ),
        _opt(
            "baseline",
            "--baseline",
            metavar="RUN",
            callback=parsed_by(parse_baseline),
            help="A run among the inputs (its name or path): adds urisk, trisk and zrisk_baseline.",
        ),
        _opt(
            "ddof",
            "--ddof",
            type=IntRange(0, 1),
            show_default=True,
            help="Divisor n − DDOF of Var, Var(ρ), Var(x_T) and Cov(x_T, x_i): 0 population "
            "(MSE = Bias² + Var exactly), 1 sample (Zhang22 Table 8).",
        ),
        _count(
            "random_size",
            "--random-size",
            minimum=1,
            maximum=MAX_GROUP_SIZE,  # as --group K: a size beyond int64 is no array size
            metavar="K1",
            help="Topics per group of the random:K1 row.",
        ),
        _count(
            "difficulty_size",
            "--difficulty-size",
            minimum=1,
            maximum=MAX_GROUP_SIZE,  # as --group K: a size beyond int64 is no array size
            metavar="K2",
            help="Topics per group of the difficulty:K2 row (hardest first).",
        ),
        _count(
            "samples",
            "-k",
            "--samples",
            minimum=2,
            help="Simulated collections per run and topic.",
        ),
        _count(
            "draws",
            "--draws",
            minimum=1,
            metavar="R",
            help="Samples of the judgments drawn (the random methods; each its own collection).",
        ),
        _opt(
            "topics",
            "--topics",
            type=IntRange(1),
            default=None,
            metavar="N",
            help="Topics per bootstrap sample, n′, to project a larger or smaller topic set "
            "[default: the reference's n].",
        ),
        *DESIGN_OPTIONS,
        _opt(
            "method",
            "--method",
            type=Choice(["depth", "mtf", "hedge", "uniform", "pps"]),
            show_default=True,
            help="How documents are chosen for judgment: depth-K pooling, move-to-front "
            "pooling, Hedge, a uniform random sample of the pool, or stratified sampling with "
            "AP-prior strata (pps).",
        ),
        _opt(
            "budgets",
            "--budget",
            show_default=True,
            metavar="N[,N...]",
            callback=parsed_by(parse_positive_list),
            help="Judgments per topic (the assessment budget): each value is a row of the table.",
        ),
        _count(
            "strata",
            "--strata",
            minimum=1,
            metavar="S",
            help="Strata of the pps design (equal AP-prior mass; Cormack & Grossman 2019: 20).",
        ),
        _opt(
            "topics_scale",
            "--topics-scale",
            show_default=True,
            metavar="K[,K...]",
            callback=parsed_by(parse_positive_list),
            help="Topic-set sizes as multiples of the qrels' n: bootstrap samples of K·n topics "
            "(4: the paper's 200 topics from 50).",
        ),
        _opt(
            "methods",
            "--methods",
            show_default=True,
            metavar="M[,M...]",
            callback=parsed_by(parse_methods),
            help="The collections compared: xinfAP and statAP on pps samples, depth-k pooling "
            "(k matched to the budget), hedge, mtf.",
        ),
        _opt(
            "engineered",
            "--engineered",
            is_flag=True,
            help="Rank the runs and their engineered permutations (NAME.perm, as bvtest "
            "permute makes them): Cormack & Grossman 2019, Table 2.",
        ),
        _opt(
            "depth",
            "--depth",
            type=IntRange(1),
            required=True,
            metavar="K",
            help="Pool depth: the top K documents of every run (by score, ties by docno "
            "descending).",
        ),
        _opt(
            "per_topic",
            "-q",
            "--per-topic",
            is_flag=True,
            help="Also print per-topic values (trec_eval -q).",
        ),
        _opt(
            "gates",
            "-g",
            "--gate",
            multiple=True,
            required=True,
            metavar="EXPR",
            help="MEASURE:FIELD[@ALPHA] OP RIGHT, OP one of <= < >= >, RIGHT a number or "
            "a pool run name (that run's value); repeatable, all must pass.",
        ),
        _opt(
            "pair",
            "--pair",
            nargs=2,
            multiple=True,
            metavar="RUN_A RUN_B",
            callback=parsed_by(parse_pair),
            help="Compare RUN_A with RUN_B (names or paths); repeatable. Default with "
            "exactly two runs: those two.",
        ),
        _opt(
            "pairs",
            "--pairs",
            type=Choice(["all"]),
            default=None,
            help="all: every pair of runs, with --correction over the pairs.",
        ),
        # Swap rates (`sensitivity`)
        _opt(
            "subset_sizes",
            "--subset-sizes",
            metavar="C[,C...]",
            callback=parsed_by(parse_positive_list),
            help="Sizes c of the two disjoint topic subsets of the swap rates, each at most "
            "n/2 [default: 5, 10, ... up to n/2, n the topics].",
        ),
        _opt(
            "bin_width",
            "--bin-width",
            type=Real(0.0, 1.0, min_open=True),
            show_default=True,
            metavar="W",
            help="Width of the bins of the difference in mean on the first subset, by "
            "which the swap rates are counted.",
        ),
        _opt(
            "test",
            "--test",
            type=Choice(TESTS),
            show_default=True,
            help="The test of a difference in mean: randomization (paired sign flips; exact "
            "where they can be enumerated, else resolved at --significance, p and p_adj), "
            "t (paired t), wilcoxon (signed rank), sign, bootstrap (Sakai's studentized paired "
            "bootstrap), tukey (Tukey's HSD on the two-way ANOVA, simultaneous intervals), "
            "randomised-tukey (Carterette's permutation version).",
        ),
        _opt(
            "compare_fields",
            "--fields",
            metavar="FIELD[,FIELD...]",
            default=None,
            callback=parsed_by(parse_compare_fields),
            help="The differences compared: mean, var, mse, georisk (at every --alpha) "
            "[default: all four for named pairs; mean with --pairs all].",
        ),
        _opt(
            "correction",
            "--correction",
            type=Choice(CORRECTIONS),
            show_default=True,
            help="Multiple-comparison correction over the pairs compared: holm, bonferroni, "
            "bh (Benjamini–Hochberg, the false discovery rate) or none. Tukey's tests hold "
            "the family-wise error themselves.",
        ),
        # Uncertainty: topic-bootstrap intervals and tests
        _opt(
            "ci",
            "--ci",
            type=Real(0.0, 1.0, min_open=True, max_open=True),
            default=None,
            metavar="LEVEL",
            help="Add a topic-bootstrap confidence interval at LEVEL (e.g. 0.95) to every "
            "per-system field and to the tradeoff correlations. Not with --group.",
        ),
        _opt(
            "bootstrap",
            "--bootstrap",
            type=IntRange(2),
            show_default=True,
            metavar="B",
            help="Bootstrap resamples of the topics (with --ci; seeded by --seed).",
        ),
        _opt(
            "ci_method",
            "--ci-method",
            type=Choice(["auto", "studentized", "bca", "percentile"]),
            show_default=True,
            help="Interval method. auto: each field's own, the one whose 95% intervals "
            "cover at the stated rate in bvtest's calibration study (docs/uncertainty.md): "
            "studentized (bootstrap-t with jackknife standard errors) for every field but "
            "bias2, which uses bca (its influence vanishes where the mean meets c), and "
            "percentile for the tradeoff correlations. Or one method for all: studentized, "
            "bca (bias-corrected and accelerated) or percentile (narrow for Var-like "
            "fields: 0.85-0.90 at 25 topics).",
        ),
        _opt(
            "ci_memory",
            "--ci-memory",
            type=IntRange(1),
            show_default=True,
            metavar="MIB",
            help="Memory for stored bootstrap replicates, in MiB. Beyond it the "
            "resamples are drawn again in passes instead of stored: the same "
            "intervals, about twice the time.",
        ),
        # Output
        _opt(
            "fmt",
            "-f",
            "--format",
            type=Choice(FORMATS),
            show_default=True,
            help="trec: name<TAB>system<TAB>value lines; table: one table per measure; "
            "tsv/csv: measure,name,system,value with a header; json: the stable schema; "
            "latex: booktabs tables, best value per column in bold; markdown: GitHub tables; "
            "html: one self-contained page of tables and charts.",
        ),
        _opt(
            "digits",
            "--digits",
            type=IntRange(0, 17),
            show_default=True,
            help="Decimals of printed values (not JSON).",
        ),
        _opt(
            "caption",
            "--caption",
            metavar="TEXT",
            help="Caption of -f latex tables (\\caption) and -f markdown tables.",
        ),
        _opt(
            "sort",
            "--sort",
            type=Choice(["mean", "mse", "name"]),
            default=None,
            help="Order of the runs in every table: mean (highest first), mse (least "
            "first) or name [default: mean on the -f html page, as computed elsewhere].",
        ),
        _opt(
            "width",
            "--width",
            type=IntRange(1),
            default=None,
            metavar="N",
            help="Columns of -f table output: a wider table is cut into blocks of columns, "
            "each repeating the row names [default: $COLUMNS, else the terminal's width, "
            "else 80].",
        ),
        _opt(
            "output",
            "-o",
            "--output",
            "--out",
            required=True,
            metavar="FILE",
            help="The figure; format by extension: .png, .svg or .pdf.",
        ),
        _opt(
            "plot",
            "--plot",
            metavar="FILE",
            help="Also draw tau and tau_AP against alpha (Zuccon16 Figs. 2-4) to FILE "
            "(.png, .svg or .pdf; needs matplotlib).",
        ),
        # Automatic judges (`judges`)
        _opt(
            "judges",
            "--judge",
            multiple=True,
            required=True,
            metavar="NAME=FILE",
            callback=parsed_by(parse_judges),
            help="An automatic assessor's judgments of the same pool, four-column qrels "
            "(repeatable); NAME=sim:CONFUSION.json simulates one from a confusion block "
            "(as `judges -f json` writes it: rows the human grades, P(judge | human)).",
        ),
        _opt(
            "grade_map",
            "--grade-map",
            metavar="G=G[,G=G...]",
            callback=parsed_by(parse_grade_map),
            help="Map grades on both sides before anything is computed: collapse a scale "
            "(0=0,1=0,2=1,3=2), binarise, or clip (5=3,10=3). A grade not mapped stays.",
        ),
        _opt(
            "human_topics",
            "--human-topics",
            metavar="N[,N...]",
            callback=parsed_by(parse_positive_list),
            help="How many human topics this judge needs: for each N, --draws random "
            "subsets of N topics stay human and the rest judge-only (2 ≤ N < the topics "
            "both judge).",
        ),
        _opt(
            "ppi_lambda",
            "--lambda",
            type=Real(0.0, 1.0),
            default=None,
            metavar="L",
            help="PPI's λ: 1 plain PPI, 0 the human-only mean [default: PPI++'s λ "
            "tuned per run to the least variance, clipped to [0, 1]].",
        ),
        _opt(
            "ppi_interval",
            "--ppi-interval",
            type=Choice(["normal", "t"]),
            show_default=True,
            help="normal: ppi_py's interval (under-covers with few human topics); t: "
            "Student t on the human topics' n − 1 (n − 2 with a tuned λ) degrees of "
            "freedom (docs/judges.md).",
        ),
    )
}


#: Option groups that several commands take together.
INPUTS = ("inputs", "scores", "name")
EVALUATION = (
    "measures", "rel_level", "topic_set", "sampled_topics", "jobs", "err_impl", "quiet", "impl",
)  # fmt: skip
#: trec_eval's flags that `eval` takes beside EVALUATION: -c, -M N, -J.
TREC_EVAL = ("complete", "max_docs", "judged_only")
ANALYSIS = ("target", "group", "normalize", "repeats", "seed", "alphas", "baseline", "ddof")
#: --ci LEVEL, --bootstrap B, --ci-method, --ci-memory (with --seed, which ANALYSIS has).
CI = ("ci", "bootstrap", "ci_method", "ci_memory")
#: The output options of a command whose report holds no table of runs:
#: --sort orders only such tables (Report.sorted_by), so it could not act there.
REPORT_OUTPUT = ("fmt", "digits", "caption", "width")
OUTPUT = (*REPORT_OUTPUT, "sort")
#: Commands that name OUTPUT but report no table of runs (their differences,
#: designs and sizes are rows of pairs, measures and topic counts): they do
#: not take --sort, which would be silently ignored there.
UNSORTED = frozenset({"compare", "design"})


# --------------------------------------------------------------------------- changes by command
# Keywords a command changes in one declaration (another default, choice set,
# metavar or help); the flag and the attribute it fills stay the same.

#: QRELS RUNS..., required (commands that need runs, not a scores file).
RUNS = dict(nargs=-1, required=True, metavar="QRELS RUNS...")
RANKINGS_BOOTSTRAP = dict(
    type=IntRange(1),
    show_default=True,
    metavar="B",
    help="Bootstrap samples of topics per set (Cormack & Grossman 2019 use 1000).",
)
#: A flag kept for one release where it meant something else than it does
#: elsewhere (rankings/budget --samples is --bootstrap, sample/budget
#: --repeats is --draws): hidden, and a note says what to write instead.
DEPRECATED_ALIAS = dict(hidden=True, default=None, show_default=False, help=None, type=IntRange(1))


P = TypeVar("P", bound="Params")


def current_flags(s: P) -> tuple[P, list[str]]:
    """``s`` with every deprecated alias of its command copied to the
    attribute it fills now, and a note for each one given. The alias keeps
    its value: it records which flag was typed, for messages
    (:func:`typed_flag`)."""
    notes, command = [], s.command
    for old, (new, old_flag, new_flag) in ALIASES.get(command, {}).items():
        value = getattr(s, old)
        if value is None:
            continue
        s = s.changed(**{new: value})
        notes.append(
            f"{old_flag} is deprecated in `{command}` (elsewhere it means something else): "
            f"it is {new_flag} now; {old_flag} goes in the next release"
        )
    return s, notes


def typed_flag(s: Params, attr: str) -> str:
    """The flag that set ``attr`` in the command of ``s`` as the user typed
    it: a deprecated alias when that was given (a message about --draws the
    user never typed would not say which of their flags is wrong), else the
    option's own flag."""
    return typed(s, s.command, attr, _flag(attr))


#: Old spellings of an option that every command taking it still reads for
#: one release (the old attribute → the attribute it fills now, the old flag,
#: the new one): :func:`validate` copies the value, and a note says to use
#: the new flag (:func:`bvtest_cli.measures.evaluate.how`).
RENAMED: dict[str, tuple[str, str, str]] = {
    "sampled_topics": ("topic_set", "--sampled-topics", "--topic-set"),
}


def _spellings(names: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(old, new, old flag, new flag) of the deprecated aliases a command
    taking ``names`` has: both attributes are among its options."""
    pairs = {
        (old, new, old_flag, new_flag)
        for aliases in (*ALIASES.values(), RENAMED)
        for old, (new, old_flag, new_flag) in aliases.items()
    }
    return sorted(p for p in pairs if p[0] in names and p[1] in names)


#: compare's --ci: a level always (the paired intervals are its output).
COMPARE_CI = dict(
    type=Real(0.0, 1.0, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
    metavar="LEVEL",
    help="Confidence level of the paired intervals.",
)
DESIGN_SCORES = dict(help="A long scores file (from `bvtest scores`; - for stdin) or a wide "
                     "CSV matrix (a header of run names, a row of scores per topic; its measure "
                     "-m or the file's name) instead of QRELS and RUNS.")  # fmt: skip


# --------------------------------------------------------------------------- commands


def declare(
    names: Sequence[str], overrides: Mapping[str, Mapping[str, Any]] | None = None
) -> Callable[[Callable[[Settings, frozenset[str]], Any]], Callable[..., Any]]:
    """Decorate ``f(settings, given)`` with the named options (in help order):
    the parsed values as one :class:`Settings` (the CLI's: what to render and
    where), and the options the user set. ``overrides`` changes, by option
    name, keywords of the one declaration for one command (another default,
    choice set or help); the flag and its attribute stay. A usage error
    raised inside ``f`` is printed as click prints its own."""
    chosen = [OPTIONS[name].changed(**(overrides or {}).get(name, {})) for name in names]
    known = {f.name for f in fields(Settings)}
    assert all(o.attr in known for o in chosen)

    def decorate(f: Callable[[Settings, frozenset[str]], Any]) -> Callable[..., Any]:
        def wrapper(**kwargs: Any) -> Any:
            from .clicktypes import current_context, usage_errors_as_clicks

            ctx = current_context()
            with usage_errors_as_clicks(ctx):
                return f(Settings(**kwargs), given(ctx))

        wrapper.__name__ = f.__name__
        wrapper.__doc__ = f.__doc__
        for option in reversed(chosen):
            wrapper = option.decorator()(wrapper)
        return wrapper

    return decorate


@dataclass(frozen=True)
class Command:
    """A command: its name, the options it takes (by name, in help order),
    the keywords it changes in some of them, its function (inputs,
    parameters) → Report, whose docstring is the command's help, and the
    dataclass of its parameters (``bvtest_cli/commands/NAME/params.py``)."""

    name: str
    options: tuple[str, ...]
    run: Callable[[Inputs, Any], Any]
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    load_params: Callable[[], Any] | None = None

    @cached_property
    def params(self) -> Any:
        """The dataclass of the command's parameters (its ``params.py``)."""
        assert self.load_params is not None, f"{self.name} is not in COMMANDS"
        return self.load_params()

    def __post_init__(self) -> None:
        if self.name in UNSORTED:
            object.__setattr__(self, "options", tuple(o for o in self.options if o != "sort"))

    def checked(self, inputs: Inputs, params: Any, given: frozenset[str] | None = None) -> Any:
        """``params`` once what no single parameter can check is checked
        (:func:`validate`, with the ``inputs`` given) and the choices one
        flag makes for another are made (-c: ``topic_set`` all). ``given``:
        the parameters the user set (default: those that differ from their
        defaults)."""
        named = inputs.values(self.options)
        values = {f.name: getattr(params, f.name) for f in fields(params)}
        chosen = params.given() if given is None else given
        settings = validate(Settings(**values, **named), self.options, frozenset(named) | chosen)
        return type(params).parsed({f.name: getattr(settings, f.name) for f in fields(params)})

    def build(self, inputs: Inputs, params: Any, given: frozenset[str] | None = None) -> Any:
        """The command's report from its inputs and checked parameters."""
        return self.run(inputs, self.checked(inputs, params, given))


def input_paths(inputs: Inputs, p: object) -> tuple[str, ...]:
    """Every file or directory a command reads (``inputs`` and the files its
    parameters ``p`` name): an output must be none of them (nor inside one)."""
    paths = [*([inputs.qrels] if inputs.qrels else []), *inputs.runs, *inputs.new_runs]
    paths += [x for x in (inputs.scores, inputs.pool) if x]
    paths += [x for x in (getattr(p, "map", None), getattr(p, "weights", None)) if x]
    paths += [f.removeprefix("sim:") for _, f in getattr(p, "judges", ())]
    reference = getattr(p, "reference", None)
    for _, files in (*([reference] if reference else []), *getattr(p, "collections", ())):
        paths += files
    return tuple(paths)


#: Settings attributes that are a command's inputs (the API's arguments) or
#: the rendering of its report (``Report.render``), not its parameters.
INPUT_ATTRS = ("inputs", "scores", "qrels", "pool", "new_runs", "runs")
RENDER_ATTRS = ("fmt", "digits", "quiet")


def keyword_options(command: Command) -> dict[str, Option]:
    """The options of ``command`` that are its parameters, with the
    command's own changes to them, in help order."""
    return {
        name: OPTIONS[name].changed(**command.overrides.get(name, {}))
        for name in command.options
        if name not in INPUT_ATTRS + RENDER_ATTRS
    }


#: Options that mean something only beside another choice: option → (that
#: choice, as the user would write it; whether ``s`` made it, in a command
#: taking ``names``). Given without it, an option would be ignored: an error.
NEEDS: dict[str, tuple[str, Callable[[Settings, Sequence[str]], bool]]] = {
    "bootstrap": ("--ci LEVEL", lambda s, names: s.ci is not None or "ci" not in names),
    "ci_method": ("--ci LEVEL", lambda s, names: s.ci is not None),
    "ci_memory": ("--ci LEVEL", lambda s, names: s.ci is not None),
    "repeats": (
        "--group random:K",
        lambda s, names: (
            "group" not in names
            or "random_size" in names
            or (s.group is not None and s.group[0] == "random")
        ),
    ),
    "caption": ("-f latex or -f markdown", lambda s, names: s.fmt in ("latex", "markdown")),
    "width": ("-f table", lambda s, names: s.fmt == "table"),
    # eval's -q prints trec_eval's per-topic lines or a per_topic list; the
    # other formats would drop them (pertopic and variations nest theirs in
    # every format)
    # judges' --draws are the experiment's: nothing draws them without --human-topics
    "draws": (
        "--human-topics N[,N...] in judges",
        lambda s, names: "human_topics" not in names or bool(s.human_topics),
    ),
    "per_topic": (
        "-f trec or -f json in eval (per-topic scores in every format: bvtest scores)",
        lambda s, names: "max_docs" not in names or s.fmt in ("trec", "json"),
    ),
}


def _pps_methods(s: Settings) -> bool:
    return any(m in ("xinfAP", "statAP") for m in s.methods)


#: Options that mean something only with some sampling methods, in the
#: commands that choose one (sample: ``method``; budget: ``methods``):
#: (option, the choosing option) → (the choice, as the user would write it;
#: whether ``s`` made it). Given without it, the option would be ignored.
METHOD_NEEDS: dict[tuple[str, str], tuple[str, Callable[[Settings], bool]]] = {
    ("strata", "method"): ("--method pps", lambda s: s.method == "pps"),
    ("strata", "methods"): ("--methods holding xinfAP or statAP (pps samples)", _pps_methods),
    ("draws", "methods"): ("--methods holding xinfAP or statAP (pps samples)", _pps_methods),
    ("repeats", "methods"): ("--methods holding xinfAP or statAP (pps samples)", _pps_methods),
    ("rel_level", "method"): (
        "--method mtf or hedge (the methods that learn from relevance)",
        lambda s: s.method in ("mtf", "hedge"),
    ),
}


def given(ctx: Any) -> frozenset[str]:
    """The options the user set on the command line (click's context)."""
    from .clicktypes import set_by_user

    return set_by_user(ctx)


def _flag(name: str) -> str:
    option = OPTIONS.get(name)
    return max(option.decls, key=len) if option is not None and option.decls else name


def _topic_set(s: Settings, set_by_user: frozenset[str]) -> Settings:
    """The topic set of ``s`` from whichever flag chose it: --topic-set, its
    old spelling --sampled-topics, or -c (trec_eval's --topic-set all); two
    that disagree are an error naming both."""
    chosen = []
    for attr, flag in (("topic_set", "--topic-set"), ("sampled_topics", "--sampled-topics")):
        if attr in set_by_user and getattr(s, attr) is not None:
            chosen.append((getattr(s, attr), f"{flag} {getattr(s, attr)}"))
    if s.complete:
        chosen.append(("all", "-c"))
    for value, flag in chosen[1:]:
        if value != chosen[0][0]:
            raise UsageError(f"{chosen[0][1]} and {flag} choose different topic sets; give one")
    return replace(s, topic_set=chosen[0][0]) if chosen else s


def validate(
    s: Settings, names: Sequence[str], set_by_user: frozenset[str] = frozenset()
) -> Settings:
    """What no single option can check: QRELS RUNS... or --scores, not both;
    no option given where it would be ignored (:data:`NEEDS`)."""
    for old, new, old_flag, new_flag in _spellings(names):
        if old in set_by_user and new in set_by_user:
            # which would win is arbitrary: the user meant one of them
            raise UsageError(f"{old_flag} is the old spelling of {new_flag}; give one")
    for name in sorted(set_by_user & NEEDS.keys()):
        need, met = NEEDS[name]
        if name in names and not met(s, names):
            raise UsageError(f"{_flag(name)} means something only with {need}")
    for (name, chooser), (need, chosen) in METHOD_NEEDS.items():
        if name in set_by_user and name in names and chooser in names and not chosen(s):
            raise UsageError(f"{_flag(name)} means something only with {need}")
    s = _topic_set(s, set_by_user)
    if s.scores is not None:
        topic_flags = {
            "topic_set": "--topic-set", "sampled_topics": "--sampled-topics", "complete": "-c",
        }  # fmt: skip
        for attr, flag in topic_flags.items():
            if attr in set_by_user:
                # the topics of a scores file are the ones it holds
                raise UsageError(
                    f"{flag} chooses topics of QRELS; a scores file (--scores) holds its own"
                )
        for attr, flag in (("max_docs", "-M/--max-docs"), ("judged_only", "-J/--judged-only")):
            if attr in set_by_user:
                raise UsageError(
                    f"{flag} acts on the rankings of RUNS; a scores file (--scores) holds "
                    "scores, not rankings"
                )
    if "inputs" in names and s.scores is None and len(s.inputs) < 2:
        raise UsageError("expected QRELS and at least one RUN (or --scores FILE)")
    if s.scores is not None and s.inputs:
        raise UsageError("give either --scores FILE or QRELS RUNS..., not both")
    if s.scores is not None and s.name != "file":
        raise UsageError("--name tag names runs read from files; a scores file names them")
    if s.ci is not None and s.group is not None:
        # A bootstrap of groups of resampled topics (and, for random:K, of R
        # groupings per resample) is not defined by any paper; refuse it.
        raise UsageError(
            "--ci cannot be combined with --group: intervals are for per-topic analyses "
            "(--normalize is fine)"
        )
    if s.pair and s.pairs is not None:
        raise UsageError("give either --pair RUN_A RUN_B or --pairs all, not both")
    return s
