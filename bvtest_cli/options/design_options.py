"""The options of test-collection design (``bvtest design``): reliability
and topic-set sizes, declared with the option table's constructors (part of
:data:`bvtest_cli.options.OPTIONS`). Imports the declarations, kinds and
parsers."""

from __future__ import annotations

from .declarations import Option
from .declarations import level as _level
from .declarations import opt as _opt
from .kinds import Choice, IntRange, Real
from .parsers import parse_positive_floats, parse_positive_list, parsed_by

#: Test-collection design (`design`): reliability and topic-set sizes.
DESIGN_OPTIONS: tuple[Option, ...] = (
    _opt(
        "drop", "--drop", type=Real(0.0, 1.0, max_open=True),
        show_default=True, metavar="F",
        help="Leave out the systems whose mean is below the F quantile of the system "
        "means first (the worst fraction F; systems tied at the cut stay).",
    ),
    _opt(
        "topic_counts", "--topic-counts", metavar="N[,N...]",
        callback=parsed_by(parse_positive_list),
        help="Numbers of topics of the D-study [default: n, 2n and 4n, n the topics "
        "of the scores].",
    ),
    _level("reliability", "--reliability", "R",
           "The Eρ² and Φ a collection should reach: the fewest topics that do."),
    _level("significance", "--significance", "A",
           "Significance level α of a statistical test (two-sided)."),
    _level("beta", "--beta", "B",
           "Type II error rate β of the topic-set-size designs (power 1 − β)."),
    _opt(
        "min_diffs", "--min-diff", show_default=True,
        metavar="D[,D...]", callback=parsed_by(parse_positive_floats),
        help="Smallest difference in mean score the t-test should detect (and the "
        "smallest range of means the ANOVA should), in the measure's units.",
    ),
    _opt(
        "ci_widths", "--ci-width", show_default=True,
        metavar="W[,W...]", callback=parsed_by(parse_positive_floats),
        help="Widest confidence interval (at level 1 − --significance) of a difference "
        "in mean score the collection should give.",
    ),
    _opt(
        "systems", "--systems", type=IntRange(2), metavar="M",
        help="Systems compared by the ANOVA design [default: the systems analysed].",
    ),
    _opt(
        "variance", "--variance", type=Choice(["residual", "pairwise95", "within"]),
        show_default=True,
        help="The variance the t-test and CI designs start from: residual (twice the "
        "ANOVA residual mean square), pairwise95 (95th percentile of the paired-"
        "difference variances) or within (the one-way within-system variance, which the "
        "ANOVA design always uses).",
    ),
    _opt(
        "budget_report", "--budget-report", metavar="FILE",
        help="A `bvtest budget -f json` report: predict each of its cells' RMSE at other "
        "numbers of topics and spend --total judgments where it is least.",
    ),
    _opt(
        "totals", "--total", metavar="T[,T...]", callback=parsed_by(parse_positive_list),
        help="Total judgments to allocate (with --budget-report) [default: n·N for each "
        "budget N of the report, n its topics].",
    ),
)  # fmt: skip
