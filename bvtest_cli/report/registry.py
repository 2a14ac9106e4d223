"""Every quantity bvtest reports, declared once (like trec_eval's measure table).

A :class:`Field` names a number and says what it means, where it comes from
(a short citation resolved by docs/bibliography.md), whether it is
indexed by alpha, whether it needs ``--baseline``, and whether ``--format
table`` shows it. Per-system fields also carry the pure function that
computes them from one measure's analysed inputs (the score matrix, the
target and their bias–variance decomposition, as arrays of shape (..., m, n),
so the same function serves topics, groups and bootstrap resamples; the
evaluating commands build them).

Renderers, the ``check`` gate, the plots and the tests iterate these tuples
instead of listing field names. A new per-system field is one entry in
:data:`SYSTEM_FIELDS` plus its function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # numpy is imported when a command needs it (start-up)
    import numpy as np

Compute = Callable[[Any], "np.ndarray"]


@dataclass(frozen=True)
class Field:
    """One reported quantity.

    ``basis`` says what a per-system field is computed over: ``"samples"``
    (topics, or topic groups with ``--group``: docs/numbers.md) or
    ``"topics"`` (the per-topic matrix after normalization: the risk
    measures, docs/numbers.md, are not defined over groups). ``nonnegative`` fields
    are undefined (null) when a score is negative (ZRisk's chi-square
    expectation needs x >= 0).
    """

    name: str
    meaning: str
    cite: str = ""
    alpha: bool = False
    baseline: bool = False
    table: bool = False
    compute: Compute | None = None
    basis: str = "samples"
    nonnegative: bool = False
    short: str = ""  # a column header when the column's group already names the field
    better: str | None = None  # "lower" | "higher": the best value (bold in -f latex)
    probability: bool = False  # a p-value: exponent notation below the printed digits
    # The bootstrap interval of --ci-method auto: "studentized", "bca" or
    # "percentile", the method the calibration study (bench/calibration.py)
    # found to cover at the stated rate for this quantity.
    interval: str = "studentized"
    # The method of the interval of a difference between two runs (compare).
    paired_interval: str = "studentized"
    # A leaf that is no number but a spelling (ASKED): in JSON only, never a
    # line of the text formats nor an item of a table's title
    json_only: bool = False

    @property
    def header(self) -> str:
        return self.short or self.name

    def __str__(self) -> str:
        return self.name

    def computed(self, inputs: Any) -> np.ndarray:
        """The field's values on ``inputs``; only a per-system field has a ``compute``."""
        assert self.compute is not None, f"{self.name} is not computed from inputs"
        return self.compute(inputs)


class FieldInputs(Protocol):
    """What a per-system field is computed from (the matrix commands'
    ``FieldData``, :mod:`bvtest_cli.sections.matrix`): the bias–variance
    decomposition of the samples and the risk measures of the topics."""

    @property
    def bv(self) -> Any: ...
    def zrisk(self) -> np.ndarray: ...
    def georisk(self) -> np.ndarray: ...
    def zrisk_target(self) -> np.ndarray: ...
    def trisk_mean(self) -> np.ndarray: ...
    def urisk(self) -> np.ndarray: ...
    def trisk(self) -> np.ndarray: ...
    def zrisk_baseline(self) -> np.ndarray: ...


# Each field's compute function, by name: [Zhang22] eq. 7 and 16 (the
# decomposition), [Dincer16] eq. 1-7 (the risk measures).
def mean(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.mean


def bias2(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.bias2


def var(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.var


def mse(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.mse


def var_rho(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.var_rho


def var_target(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.var_target


def cov_target(inputs: FieldInputs) -> np.ndarray:
    return inputs.bv.cov_target


def zrisk(inputs: FieldInputs) -> np.ndarray:
    return inputs.zrisk()


def georisk(inputs: FieldInputs) -> np.ndarray:
    return inputs.georisk()


def zrisk_target(inputs: FieldInputs) -> np.ndarray:
    return inputs.zrisk_target()


def trisk_mean(inputs: FieldInputs) -> np.ndarray:
    return inputs.trisk_mean()


def urisk(inputs: FieldInputs) -> np.ndarray:
    return inputs.urisk()


def trisk(inputs: FieldInputs) -> np.ndarray:
    return inputs.trisk()


def zrisk_baseline(inputs: FieldInputs) -> np.ndarray:
    return inputs.zrisk_baseline()


def _risk_field(name: str, meaning: str, cite: str, compute: Compute, **kwargs: Any) -> Field:
    """A risk measure (docs/numbers.md): alpha-indexed, over the per-topic matrix."""
    return Field(name, meaning, cite, alpha=True, compute=compute, basis="topics", **kwargs)


# --------------------------------------------------------------------------- per system
# Order is the order of the JSON keys and of the trec lines.

MEAN = Field(
    "mean",
    "mean score over topics (or groups)",
    "Zhang22 eq. 7",
    table=True,
    compute=mean,
    better="higher",
)
BIAS2 = Field(
    "bias2",
    "(mean − c)², c the target constant (--target)",
    "Zhang22 eq. 7",
    table=True,
    compute=bias2,
    better="lower",
    # (mean − c)² has no influence where the mean meets c: a studentized
    # statistic is unstable there, BCa is not (bench/calibration.py).
    interval="bca",
)
VAR = Field(
    "var",
    "variance of the run's scores over topics",
    "Zhang22 eq. 7",
    table=True,
    compute=var,
    better="lower",
    # A difference of two exchangeable runs' variances is symmetric about 0;
    # there the percentile interval covers .94, bootstrap-t and BCa .90.
    paired_interval="percentile",
)

MSE = Field(
    "mse",
    "mean squared error against c; equals bias2 + var",
    "Zhang22 eq. 7",
    table=True,
    compute=mse,
    better="lower",
)
VAR_RHO = Field(
    "var_rho",
    "Var(ρ), ρ = x_T − x_i: instability relative to the target",
    "Zhang22 eq. 16",
    table=True,
    compute=var_rho,
    better="lower",
)
VAR_TARGET = Field(
    "var_target",
    "Var(x_T), variance of the virtual target",
    "Zhang22 eq. 16",
    compute=var_target,
)
COV_TARGET = Field("cov_target", "Cov(x_T, x_i)", "Zhang22 eq. 16", table=True, compute=cov_target)
ZRISK = _risk_field(
    "zrisk",
    "ZRisk with every run as a baseline",
    "Dincer16 eq. 6",
    compute=zrisk,
    table=True,
    nonnegative=True,
    better="higher",
)
GEORISK = _risk_field(
    "georisk",
    "GeoRisk = √(mean · Φ(ZRisk/n))",
    "Dincer16 eq. 7",
    compute=georisk,
    table=True,
    nonnegative=True,
    better="higher",
)
ZRISK_TARGET = _risk_field(
    "zrisk_target",
    "ZRisk on the two rows [run; virtual target]",
    "Dincer16 §4.1; Zhang22 Table 8",
    compute=zrisk_target,
    nonnegative=True,
)
TRISK_MEAN = _risk_field(
    "trisk_mean",
    "TRisk* against the per-topic mean of all runs",
    "Dincer16 eq. 3",
    compute=trisk_mean,
    better="higher",
)
URISK = _risk_field(
    "urisk",
    "URisk against --baseline",
    "Dincer16 eq. 1",
    compute=urisk,
    baseline=True,
    table=True,
    better="higher",
)
TRISK = _risk_field(
    "trisk",
    "TRisk = URisk / SE against --baseline",
    "Dincer16 eq. 2",
    compute=trisk,
    baseline=True,
    table=True,
    better="higher",
)
ZRISK_BASELINE = _risk_field(
    "zrisk_baseline",
    "ZRisk on the two rows [run; baseline]",
    "Dincer16 Table 4",
    compute=zrisk_baseline,
    baseline=True,
    nonnegative=True,
)
# The key of the setting that names the --baseline run, at a report's top
# level: the charts draw that run apart from the others.
BASELINE = "baseline"

# The Pareto front: basis "fields", computed from the other per-system fields
# once they are final (after averaging over random groupings), not per sample
# or repeat.


def _pareto(inputs: Any) -> np.ndarray:
    from ..analyses.uncertainty import pareto_front

    return pareto_front(inputs.bv.bias2, inputs.bv.var)


PARETO = Field(
    "pareto",
    "on the Pareto front of (Bias², Var): no other run has a lower or equal Bias² and Var "
    "with one of them strictly lower (true/false; 1/0 in text, * in the table)",
    "docs/uncertainty.md",
    table=True,
    compute=_pareto,
    basis="fields",
)


SYSTEM_FIELDS: tuple[Field, ...] = (
    MEAN, BIAS2, VAR, MSE, VAR_RHO, VAR_TARGET, COV_TARGET,
    ZRISK, GEORISK, ZRISK_TARGET, TRISK_MEAN, URISK, TRISK, ZRISK_BASELINE, PARETO,
)  # fmt: skip

# --------------------------------------------------------------------------- per measure

N_TOPICS = Field("n_topics", "topics used, after any drops", "docs/inputs.md")
N_GROUPS = Field("n_groups", "topic groups used (--group)", "Zhang22 §3.3")
C = Field("c", "the constant Bias² is measured against", "Zhang22 eq. 7")
N_SYSTEMS = Field("n_systems", "runs analysed")
K = Field("k", "simulated collections per run and topic", "Zhang22 §3.4")
# A block is keyed by bvtest's name of its measure (AP); a program that asked
# for `map` finds its measure by this spelling beside it (docs/measures.md)
ASKED = Field(
    "asked", "the measure as -m named it (the block's key: bvtest's name)", json_only=True
)

PEARSON = Field(
    "pearson", "Pearson r of Bias² and Var across runs", "Zhang22 §5.3", interval="percentile"
)
PEARSON_P = Field(
    "pearson_p", "two-sided p-value of pearson", "Zhang22 §5.3", short="p", probability=True
)
SPEARMAN = Field(
    "spearman", "Spearman ρ of Bias² and Var across runs", "Zhang22 §5.3", interval="percentile"
)
SPEARMAN_P = Field(
    "spearman_p", "two-sided p-value of spearman", "Zhang22 §5.3", short="p", probability=True
)
TRADEOFF_FIELDS: tuple[Field, ...] = (PEARSON, PEARSON_P, SPEARMAN, SPEARMAN_P)
# The key of a block's section of the TRADEOFF_FIELDS. Section and record names
# are plain strings, not Fields: a Field as a key would be a quantity of the
# page's glossary. Declared here so the builder and the renderers that look
# the section up spell it once.
TRADEOFF = "tradeoff"
# The key of a report's section of measure blocks, and of a block's table of
# its runs (the SYSTEM_FIELDS, or a command's own).
MEASURES = "measures"
SYSTEMS = "systems"
# compare's records of its pairs of runs, in each measure's block
PAIRS = "pairs"

# --------------------------------------------------------------------------- views

ABS_ZRISK_TARGET = Field(
    "abs_zrisk_target",
    "|ZRisk| against the target at alpha 0",
    "Zhang22 Table 8",
    table=True,
    better="lower",
)
TOPIC_PEARSON = Field(
    "pearson", "Pearson r of per-topic Bias² and Var across runs", "Zhang22 Table 11"
)

# With --ci on a sampled measure (statAP, xinfAP): the two parts of the
# mean's uncertainty. Not in SYSTEM_FIELDS: they come from the per-topic
# sampling variances, which the score matrix alone does not hold.
SE_SAMPLING = Field(
    "se_sampling",
    "standard error of the mean from the sampling of judgments, topics fixed: "
    "√(Σ_t v_t)/n, v_t the sampling variance of topic t's estimate",
    "Cochran77 §5.3",
)
SE_TOPICS = Field(
    "se_topics",
    "standard error of the mean from the sampling of topics alone: √(max(s² − v̄, 0)/n), "
    "s² the variance of the estimates over topics, v̄ the mean sampling variance",
    "Cochran77 §10.2",
)
SAMPLING_LO = Field(
    "sampling_lo",
    "lower end of mean ± z·se_sampling: the interval of the full-judgment mean over the "
    "same topics (--ci level)",
    "Cochran77 §5.3",
)
SAMPLING_HI = Field(
    "sampling_hi",
    "upper end of mean ± z·se_sampling (--ci level)",
    "Cochran77 §5.3",
)
SAMPLING_FIELDS: tuple[Field, ...] = (SE_SAMPLING, SE_TOPICS, SAMPLING_LO, SAMPLING_HI)


def system_fields(baseline: bool) -> tuple[Field, ...]:
    """The per-system fields an analysis computes (the baseline ones only with one)."""
    return tuple(f for f in SYSTEM_FIELDS if baseline or not f.baseline)


def system_field(name: str) -> Field:
    """The per-system field called ``name`` (KeyError if there is none)."""
    for f in SYSTEM_FIELDS:
        if f.name == name:
            return f
    raise KeyError(name)


# Per-condition analysis (Zhang22 §5.4, Table 12, Figs. 2–3).

BEST_CONDITION = Field(
    "best",
    "the condition under which the system's MSE = Bias² + Var is lowest",
    "Zhang22 §5.4",
    table=True,
)
# `bvtest conditions`: the keys of a block's table of the conditions (and of
# each run's own, a child of the SYSTEMS table) and of the runs each
# condition is best for.
CONDITIONS = "conditions"
BEST_COUNTS = "best_counts"


# ======================================================================================
# Ranking bias and variance: `bvtest rankings` (Cormack19).
# Per test collection X against the reference G, and the pairwise Table 3.

RANK_BIAS = Field(
    "bias",
    "|b| = √b², or −√(−b²) when the bootstrap estimate b² is negative (chance error)",
    "Cormack19 §2, Table 2",
    table=True,
    better="lower",
)
RANK_SIGMA = Field(
    "sigma",
    "σ(X) = √(½ Δ(X, X′)): spread of X's ranking under topic sampling",
    "Cormack19 §2",
    table=True,
    better="lower",
)
RANK_RMSE = Field(
    "rmse",
    "√(b² + σ²(X)): X's expected distance δ = 1 − τ_b from the true ranking",
    "Cormack19 §2",
    table=True,
    better="lower",
)
RANK_B2 = Field("b2", "b² = Δ(X, G) − σ²(X) − σ²(G)", "Cormack19 §2")
RANK_DELTA = Field(
    "delta", "Δ(X, G) = E δ²(X_b, G_b) over all B × B bootstrap pairs", "Cormack19 §2–3"
)
RANK_SE_BIAS = Field(
    "se_bias",
    "standard error of bias: batch means of b², mapped through the signed root "
    "(Monte Carlo error of the bootstrap)",
    "bvtest: batch means",
    table=True,
)
RANK_SE_SIGMA = Field(
    "se_sigma",
    "standard error of sigma (batch means of σ², mapped)",
    "bvtest: batch means",
    table=True,
)
RANK_SE_RMSE = Field(
    "se_rmse",
    "standard error of rmse (batch means of b² + σ², mapped)",
    "bvtest: batch means",
    table=True,
)
RANK_SE_B2 = Field("se_b2", "batch-means standard error of b2", "bvtest: batch means")
SIGMA_REFERENCE = Field("sigma_reference", "σ(G) of the reference", "Cormack19 §2")
SE_SIGMA_REFERENCE = Field(
    "se_sigma_reference",
    "standard error of sigma_reference (batch means of σ², mapped)",
    "bvtest: batch means",
)
RANK_TOPICS = Field("topics", "n′, topics drawn per bootstrap sample (--topics)", "Cormack19 §3")
RANK_SAMPLES = Field("samples", "B, bootstrap samples per set (--bootstrap)", "Cormack19 §3")
RANK_BATCHES = Field(
    "batches", "K, batches of the batch-means standard errors", "bvtest: batch means"
)
# Table 3's panels, matrix.FIELD[G][X]: collection X measured with collection G as the
# reference; the table format shows G as rows and X as columns.
PAIR_BIAS = Field("bias", "|b| of X (column) with G (row) as the reference", "Cormack19 Table 3")
PAIR_RMSE = Field(
    "rmse", "RMSE of X (column) against G (row); σ(X) on the diagonal", "Cormack19 Table 3"
)
PAIR_B2 = Field("b2", "b² of X (column) against G (row), signed", "Cormack19 Table 3")
PAIR_SE_BIAS = Field(
    "se_bias", "standard error of matrix.bias (batch means of b², mapped)", "bvtest: batch means"
)
PAIR_SE_RMSE = Field(
    "se_rmse", "standard error of matrix.rmse (batch means, mapped)", "bvtest: batch means"
)

# `bvtest budget` (Cormack19 §4, Tables 1–2): one cell per budget, topic-set
# size and method; |b|, σ, RMSE and their standard errors are the fields above,
# and the reference rows (the full qrels, one per size) are σ of a collection too.
BUDGET_BUDGET = Field("budget", "judgments per topic (--budget)", "Cormack19 §4")
BUDGET_SCALE = Field(
    "topics_scale", "topic-set size as a multiple of n (--topics-scale)", "Cormack19 §4"
)
BUDGET_METHOD = Field(
    "method", "xinfAP / statAP on pps samples, depth-k, hedge or mtf", "Cormack19 §4"
)
BUDGET_ASSESSMENTS = Field(
    "assessments",
    "judgments of the collection over the topic set (pps: the mean over its samples)",
    "Cormack19 Table 1",
)
BUDGET_REPEATS = Field("repeats", "R, pps samples per budget (--draws)", "Cormack19 §3")
BUDGET_STRATA = Field("strata", "strata of the pps design (--strata)", "Cormack19 §3")

RANKING_FIELDS: tuple[Field, ...] = (
    RANK_BIAS, RANK_SIGMA, RANK_RMSE, RANK_B2, RANK_DELTA,
    RANK_SE_BIAS, RANK_SE_SIGMA, RANK_SE_RMSE, RANK_SE_B2,
)  # fmt: skip
RANKING_TABLE_FIELDS: tuple[Field, ...] = (
    RANK_BIAS, RANK_SE_BIAS, RANK_SIGMA, RANK_SE_SIGMA, RANK_RMSE, RANK_SE_RMSE,
)  # fmt: skip
PAIR_FIELDS: tuple[Field, ...] = (PAIR_BIAS, PAIR_RMSE, PAIR_B2, PAIR_SE_BIAS, PAIR_SE_RMSE)
# The key of rankings' section of the PAIR_FIELDS panels (Table 3)
RANK_MATRIX = "matrix"
BUDGET_CELL_FIELDS: tuple[Field, ...] = (
    BUDGET_BUDGET, BUDGET_SCALE, BUDGET_METHOD, RANK_BIAS, RANK_SIGMA, RANK_RMSE,
    RANK_SE_BIAS, RANK_SE_SIGMA, RANK_SE_RMSE, BUDGET_ASSESSMENTS,
)  # fmt: skip
BUDGET_REFERENCE_FIELDS: tuple[Field, ...] = (
    BUDGET_SCALE, RANK_SIGMA, RANK_SE_SIGMA, BUDGET_ASSESSMENTS,
)  # fmt: skip
# The keys of budget's records: the cells (BUDGET_CELL_FIELDS) and the rows of
# the full qrels (BUDGET_REFERENCE_FIELDS)
BUDGET_CELLS = "cells"
BUDGET_REFERENCE = "reference"

# `bvtest check`: the keys of its report, the verdicts (records) and whether
# every gate held; CHECK_PASSED is also the key of each verdict's own outcome.
CHECK_VERDICTS = "verdicts"
CHECK_PASSED = "passed"
# ======================================================================================


# =========================================================================== variations
# `bvtest variations` (docs/variations.md; Zuccon16 = Zuccon, Palotti & Hanbury, CIKM 2016).
# Not in SYSTEM_FIELDS: they are computed by variations.analyse, not from FieldData,
# and `var` here is the portfolio variance, not the bias–variance Var above
# (same JSON key, another quantity, hence a Field of its own).

VARIATIONS_MU = Field(
    "mu",
    "portfolio mean μ = Σ_i w_i mean_k r[k, i] (intra: mean over topics of the per-topic means)",
    "Zuccon16 eq. 2",
    table=True,
    better="higher",
)
VARIATIONS_VAR = Field(
    "var",
    "portfolio variance σ² over user slots, sample (n − 1) estimator "
    "(inter: over topics; intra: mean over topics of the per-topic variances)",
    "Zuccon16 eqs. 3–4, 8–9",
    table=True,
)
VARIATIONS_O = Field(
    "o",
    "portfolio value O = μ − α σ² (α < 0 favours unstable systems)",
    "Zuccon16 eq. 5",
    alpha=True,
    better="higher",
)
VARIATIONS_TAU = Field(
    "tau",
    "Kendall τ_b between the ranking by O and the ranking by μ "
    "(intra: mean over the topics where it is defined)",
    "Zuccon16 §5.1",
    alpha=True,
    table=True,
)
VARIATIONS_TAU_AP = Field(
    "tau_ap",
    "AP rank correlation of the ranking by O against the ranking by μ (intra: mean over topics)",
    "Yilmaz08; Zuccon16 §5.1",
    alpha=True,
    table=True,
)
VARIATIONS_TOPIC_TAU = Field(
    "tau", "Kendall τ_b of one topic's rankings by O and by μ", "Zuccon16 §4.2", alpha=True
)
VARIATIONS_TOPIC_TAU_AP = Field(
    "tau_ap", "τ_AP of one topic's ranking by O against its ranking by μ", "Zuccon16 §4.2",
    alpha=True,
)  # fmt: skip
N_VARIATIONS = Field("n_variations", "query variations analysed (columns of the score matrix)")
N_USERS = Field("n_users", "user slots k of the general framework", "Zuccon16 §4.1")

VARIATIONS_FIELDS: tuple[Field, ...] = (
    VARIATIONS_MU, VARIATIONS_VAR, VARIATIONS_O, VARIATIONS_TAU, VARIATIONS_TAU_AP,
    VARIATIONS_TOPIC_TAU, VARIATIONS_TOPIC_TAU_AP, N_VARIATIONS, N_USERS,
)  # fmt: skip
# The keys of variations' report: the setting inter or intra, a block's table
# of the topics (intra mode) and its records of the crossovers.
VARIATIONS_MODE = "mode"
VARIATIONS_TOPICS = "topics"
VARIATIONS_CROSSOVERS = "crossovers"

# Fields of `--ci` and `bvtest compare`.

# The keys of compare's pair records that the charts read: the runs a and b,
# the registry field differenced (its name), a − b and its interval, p after
# the correction and whether that is significant. Plain strings, as the
# section names: the records' own columns, not quantities of the glossary.
COMPARE_A = "a"
COMPARE_B = "b"
COMPARE_FIELD = "field"
COMPARE_DIFF = "diff"
COMPARE_LO = "lo"
COMPARE_HI = "hi"
COMPARE_P_ADJ = "p_adj"
COMPARE_SIGNIFICANT = "significant"


def interval_methods(
    method: str, fields: Sequence[Field], paired: bool = False
) -> str | dict[str, str]:
    """The interval method of each of ``fields`` (and of the tradeoff
    correlations) under ``--ci-method method``: every field's own for
    ``auto`` (``Field.interval``, or ``Field.paired_interval`` for the
    difference of two runs), else ``method`` for all."""
    if method != "auto":
        return method
    if paired:
        return {f.name: f.paired_interval for f in fields}
    return {f.name: f.interval for f in (*fields, PEARSON, SPEARMAN)}


# =========================================================================== design
# `bvtest design`: how reliable the scores are, and how many topics (and
# judgments) a collection needs. G-theory [Brennan01; Urbano13], topic-set-size
# design [Sakai16], judgments against topics [Cormack19].

G_SYSTEMS = Field("systems", "systems analysed, after --drop", "Brennan01 §3")
G_TOPICS = Field("topics", "topics of the scores", "Brennan01 §3")
MS_SYSTEMS = Field("ms_systems", "mean square of systems, MS_s", "Brennan01 §3.1")
MS_TOPICS = Field("ms_topics", "mean square of topics, MS_q", "Brennan01 §3.1")
MS_RESIDUAL = Field(
    "ms_residual", "residual mean square MS_e (system × topic interaction and error)",
    "Brennan01 §3.1",
)  # fmt: skip
VAR_SYSTEMS = Field(
    "var_systems", "σ²_s = (MS_s − MS_e)/n, 0 if negative", "Brennan01 §3.1; Urbano13",
    interval="percentile",
)  # fmt: skip
VAR_TOPICS = Field(
    "var_topics", "σ²_q = (MS_q − MS_e)/m, 0 if negative", "Brennan01 §3.1; Urbano13",
    interval="percentile",
)  # fmt: skip
VAR_RESIDUAL = Field(
    "var_residual", "σ²_e = MS_e", "Brennan01 §3.1; Urbano13", interval="percentile"
)
GSTUDY_FIELDS: tuple[Field, ...] = (
    G_SYSTEMS, G_TOPICS, MS_SYSTEMS, MS_TOPICS, MS_RESIDUAL, VAR_SYSTEMS, VAR_TOPICS,
    VAR_RESIDUAL,
)  # fmt: skip

D_TOPICS = Field("topics", "n′, topics of the D-study", "Brennan01 §4")
ERHO2 = Field(
    "erho2", "generalizability coefficient Eρ² = σ²_s / (σ²_s + σ²_e/n′)", "Brennan01 §4; Urbano13",
    better="higher",
)  # fmt: skip
ERHO2_LO = Field("erho2_lo", "lower end of Feldt's interval of erho2 (--ci)", "Feldt65")
ERHO2_HI = Field("erho2_hi", "upper end of Feldt's interval of erho2 (--ci)", "Feldt65")
PHI = Field(
    "phi", "index of dependability Φ = σ²_s / (σ²_s + (σ²_q + σ²_e)/n′)", "Brennan01 §4; Urbano13",
    better="higher",
)  # fmt: skip
PHI_LO = Field("phi_lo", "lower end of Arteaga et al.'s interval of phi (--ci)", "Arteaga82")
PHI_HI = Field("phi_hi", "upper end of Arteaga et al.'s interval of phi (--ci)", "Arteaga82")
DSTUDY_FIELDS: tuple[Field, ...] = (D_TOPICS, ERHO2, ERHO2_LO, ERHO2_HI, PHI, PHI_LO, PHI_HI)

NEEDED_ERHO2 = Field(
    "erho2", "fewest topics with Eρ² ≥ --reliability (null: never)", "Brennan01; Urbano13"
)
NEEDED_PHI = Field(
    "phi", "fewest topics with Φ ≥ --reliability (null: never)", "Brennan01; Urbano13"
)
NEEDED_N = Field("n", "the fewest topics (null: the target cannot be reached)", "Urbano13")
NEEDED_LO = Field("lo", "lower end of its interval (--ci)", "Feldt65; Arteaga82")
NEEDED_HI = Field("hi", "upper end of its interval (--ci; null: unbounded)", "Feldt65; Arteaga82")
NEEDED_FIELDS: tuple[Field, ...] = (NEEDED_ERHO2, NEEDED_PHI, NEEDED_N, NEEDED_LO, NEEDED_HI)

VARIANCE_RESIDUAL = Field(
    "residual", "σ²_d = 2·V_E, twice the residual mean square (the mean paired-difference "
    "variance)", "Sakai16", interval="percentile",
)  # fmt: skip
VARIANCE_PAIRWISE95 = Field(
    "pairwise95", "95th percentile of the paired-difference variances of all pairs of systems",
    "Sakai16", interval="percentile",
)  # fmt: skip
VARIANCE_WITHIN = Field(
    "within", "σ² = V_E1, the one-way ANOVA's within-system variance", "Sakai16",
    interval="percentile",
)  # fmt: skip
VARIANCE_USED = Field("used", "the estimate the t-test and CI designs use (--variance)", "Sakai16")
VARIANCE_FIELDS: tuple[Field, ...] = (
    VARIANCE_RESIDUAL, VARIANCE_PAIRWISE95, VARIANCE_WITHIN, VARIANCE_USED,
)  # fmt: skip

TSSD_DESIGN = Field(
    "design", "ttest (paired t-test), anova (one-way ANOVA over m systems) or ci (the width "
    "of a paired difference's interval)", "Sakai16",
)  # fmt: skip
TSSD_ALPHA = Field("alpha", "significance level α of the test (--significance)", "Sakai16")
TSSD_BETA = Field("beta", "type II error rate β (--beta; null for ci)", "Sakai16")
TSSD_MIN_DIFF = Field(
    "min_diff", "smallest difference (ttest) or range (anova) of means to detect", "Sakai16"
)
TSSD_WIDTH = Field("width", "widest interval of a paired difference, δ (--ci-width)", "Sakai16")
TSSD_SYSTEMS = Field("systems", "systems compared (2 for ttest and ci; --systems)", "Sakai16")
TSSD_TOPICS = Field(
    "topics", "topics needed, exact: noncentral t / F power (ci: the expected width)", "Sakai16"
)
TSSD_TOPICS_APPROX = Field(
    "topics_approx", "topics needed by the normal approximation of Sakai's Excel tools "
    "(ci: σ_d taken as known)", "Sakai16; Nagata03",
)  # fmt: skip
TSSD_TOPICS_LO = Field(
    "topics_lo", "lower end of the topic-bootstrap interval of topics (--ci)", "Sakai16"
)
TSSD_TOPICS_HI = Field(
    "topics_hi", "upper end of the topic-bootstrap interval of topics (--ci)", "Sakai16"
)
TSSD_FIELDS: tuple[Field, ...] = (
    TSSD_DESIGN, TSSD_ALPHA, TSSD_BETA, TSSD_MIN_DIFF, TSSD_WIDTH, TSSD_SYSTEMS, TSSD_TOPICS,
    TSSD_TOPICS_APPROX, TSSD_TOPICS_LO, TSSD_TOPICS_HI,
)  # fmt: skip

ALLOC_METHOD = Field("method", "the judging method of a cell of the budget report", "Cormack19 §4")
ALLOC_BUDGET = Field("budget", "N, judgments per topic", "Cormack19 §4")
ALLOC_TOPICS = Field("topics", "n′ = total // N topics", "Cormack19 §4")
ALLOC_TOTAL = Field("total", "T, total judgments (--total)", "Cormack19 §4")
ALLOC_RMSE = Field(
    "rmse_predicted", "√(b²(n′) + σ²(n′)): the cell's ranking RMSE predicted at n′ topics by its "
    "model", "Cormack19 §2", better="lower",
)  # fmt: skip
ALLOC_MODEL = Field(
    "model", "constant-bias: one topic scale measured, √(b² + σ²·n/n′); fitted: b² = b²_∞ + "
    "c·n/n′ and σ² ∝ (n/n′)^p fitted across two or more topic scales", "Cormack19 §2",
)  # fmt: skip
ALLOCATION_FIELDS: tuple[Field, ...] = (
    ALLOC_METHOD, ALLOC_BUDGET, ALLOC_TOPICS, ALLOC_TOTAL, ALLOC_RMSE, ALLOC_MODEL,
)  # fmt: skip
# The keys of design's records of the ALLOCATION_FIELDS: the least predicted
# RMSE per total, and every cell at every total.
ALLOCATION = "allocation"
ALLOC_CANDIDATES = "candidates"
DESIGN_FIELDS: tuple[Field, ...] = (
    *GSTUDY_FIELDS, *DSTUDY_FIELDS, *NEEDED_FIELDS, *VARIANCE_FIELDS, *TSSD_FIELDS,
    *ALLOCATION_FIELDS,
)  # fmt: skip


# =========================================================================== sensitivity
# `bvtest sensitivity`: how discriminating a measure is over the systems at
# hand. Discriminative power and the estimated difference required [Sakai06],
# swap rates and their extrapolation [Voorhees02].

SENS_PAIRS = Field("pairs", "system pairs compared, m(m − 1)/2", "Sakai06")
SENS_TEST = Field("test", "the test whose p-values give discriminative_power and asl (--test)")
SENS_CORRECTION = Field(
    "correction", "the correction of discriminative_power_corrected (--correction)"
)
DISCRIMINATIVE_POWER = Field(
    "discriminative_power",
    "share of system pairs whose p-value (ASL) under --test is below α, uncorrected",
    "Sakai06",
    alpha=True,
    better="higher",
)
DISCRIMINATIVE_POWER_CORRECTED = Field(
    "discriminative_power_corrected",
    "share of system pairs whose p-value under --test, adjusted by --correction, is below α",
    "Sakai06; Holm79; BH95",
    alpha=True,
    better="higher",
)
BOOTSTRAP_DISCRIMINATIVE_POWER = Field(
    "bootstrap_discriminative_power",
    "share of system pairs whose paired bootstrap ASL (B = --bootstrap) is below α",
    "Sakai06",
    alpha=True,
    better="higher",
)
SENS_ASL = Field("asl", "p-values of every pair under --test, ascending: the ASL curve", "Sakai06")
BOOTSTRAP_ASL = Field(
    "bootstrap_asl", "paired bootstrap ASLs of every pair, ascending: the ASL curve", "Sakai06"
)
DELTA_NEEDED = Field(
    "delta_needed",
    "estimated difference in mean required for significance at --significance with these "
    "topics: the largest over pairs of |w̄*| of the bootstrap sample at the critical t*",
    "Sakai06 §4",
    better="lower",
)
DELTA_NEEDED_OBSERVED_SD = Field(
    "delta_needed_observed_sd",
    "the same with each pair's observed sd of the differences: max t*_crit · sd(d)/√n",
    "Sakai06 §4",
    better="lower",
)
SWAP_C = Field("c", "topics in each of the two disjoint subsets", "Voorhees02")
SWAP_BIN_LO = Field(
    "bin_lo", "lower end of the bin of |difference| on the first subset", "Voorhees02"
)
SWAP_BIN_HI = Field("bin_hi", "upper end (excluded) of the bin", "Voorhees02")
SWAP_PAIRS = Field("pairs", "(pair, draw) observations in the bin", "Voorhees02")
SWAP_SWAPS = Field(
    "swaps", "observations whose two subsets order the pair oppositely", "Voorhees02"
)
SWAP_RATE = Field("swap_rate", "swaps / pairs", "Voorhees02", better="lower")
FIT_SIZES = Field("sizes", "subset sizes with a swap rate above 0 in the bin (the fit's points)",
                  "Voorhees02")  # fmt: skip
FIT_A = Field("a", "decay of log swap_rate per topic: log rate ≈ intercept − a·c", "Voorhees02")
FIT_INTERCEPT = Field("intercept", "intercept of the fit of log swap_rate on c", "Voorhees02")
FIT_TOPICS = Field("topics", "n, the topics the rate is extrapolated to", "Voorhees02")
FIT_PREDICTED = Field(
    "predicted", "swap rate extrapolated to n topics, exp(intercept − a·n)", "Voorhees02",
    better="lower",
)  # fmt: skip
SWAP_FIELDS: tuple[Field, ...] = (
    SWAP_C, SWAP_BIN_LO, SWAP_BIN_HI, SWAP_PAIRS, SWAP_SWAPS, SWAP_RATE,
)  # fmt: skip
EXTRAPOLATION_FIELDS: tuple[Field, ...] = (
    SWAP_BIN_LO, SWAP_BIN_HI, FIT_SIZES, FIT_A, FIT_INTERCEPT, FIT_TOPICS, FIT_PREDICTED,
)  # fmt: skip
SENSITIVITY_FIELDS: tuple[Field, ...] = (
    SENS_PAIRS, SENS_TEST, SENS_CORRECTION, DISCRIMINATIVE_POWER, DISCRIMINATIVE_POWER_CORRECTED,
    BOOTSTRAP_DISCRIMINATIVE_POWER, SENS_ASL, BOOTSTRAP_ASL, DELTA_NEEDED,
    DELTA_NEEDED_OBSERVED_SD, *SWAP_FIELDS, *EXTRAPOLATION_FIELDS[2:],
)  # fmt: skip


# --------------------------------------------------------------------------- judges
# An automatic assessor beside the human one (`judges`): its error per run as
# bias and variance [Zhang22], the leaderboards, and PPI [Angelopoulos23; Angelopoulos24].

JUDGE_HUMAN = Field("human", "the run's mean under the human judgments", "Zhang22")
JUDGE_JUDGE = Field("judge", "the run's mean under the judge's judgments", "Zhang22")
JUDGE_BIAS = Field(
    "bias", "mean over topics of e = x_judge − x_human: the judge's bias", "Zhang22 eq. 7"
)
JUDGE_VAR = Field(
    "var", "variance of e over topics (n − --ddof): the judge's variance", "Zhang22 eq. 7",
    better="lower",
)  # fmt: skip
JUDGE_MSE = Field("mse", "bias² + var: the judge's mean squared error", "Zhang22 eq. 7",
                  better="lower")  # fmt: skip
RANK_HUMAN = Field("rank_human", "the run's rank by its human mean (1 best)")
RANK_JUDGE = Field("rank_judge", "the run's rank by its judge mean (1 best)")
PPI_MEAN = Field(
    "ppi", "the run's mean by PPI++ (or PPI with --lambda): the human topics corrected by "
    "the judge's topics", "Angelopoulos24",
)  # fmt: skip
PPI_LO = Field("ppi_lo", "lower end of PPI's interval at --ci", "Angelopoulos23")
PPI_HI = Field("ppi_hi", "upper end of PPI's interval at --ci", "Angelopoulos23")
PPI_LAMBDA = Field("lambda", "PPI's λ: tuned (PPI++), or --lambda", "Angelopoulos24")
HUMAN_LO = Field("human_lo", "lower end of the human-only interval on the human topics")
HUMAN_HI = Field("human_hi", "upper end of the human-only interval on the human topics")
JUDGE_SYSTEM_FIELDS: tuple[Field, ...] = (
    JUDGE_HUMAN, JUDGE_JUDGE, JUDGE_BIAS, JUDGE_VAR, JUDGE_MSE, RANK_HUMAN, RANK_JUDGE,
    PPI_MEAN, PPI_LO, PPI_HI, PPI_LAMBDA, HUMAN_LO, HUMAN_HI,
)  # fmt: skip
JUDGE_PAIR_DIFF = Field("diff", "a − b in mean by PPI (the same λ rule, per-topic differences)",
                        "Angelopoulos24")  # fmt: skip
JUDGE_PAIR_LO = Field("lo", "lower end of the difference's interval at --ci")
JUDGE_PAIR_HI = Field("hi", "upper end of the difference's interval at --ci")
JUDGE_PAIR_P = Field("p", "two-sided p of no difference, PPI's normal (or t) approximation",
                     "Angelopoulos23", probability=True)  # fmt: skip
JUDGE_PAIR_P_ADJ = Field("p_adj", "p corrected over the pairs (--correction)", probability=True)
JUDGE_PAIR_RESOLVED = Field("resolved", "p_adj ≤ --significance")
JUDGE_PAIR_FIELDS: tuple[Field, ...] = (
    JUDGE_PAIR_DIFF, JUDGE_PAIR_LO, JUDGE_PAIR_HI, JUDGE_PAIR_P, JUDGE_PAIR_P_ADJ,
    JUDGE_PAIR_RESOLVED,
)  # fmt: skip
# Indexed by the number of human topics as the risk fields are by α: one column per --human-topics.
EXP_RMSE = Field("rmse", "√ mean over runs and draws of (θ̂ − θ)², θ the all-topic human mean",
                 alpha=True, better="lower")  # fmt: skip
EXP_COVERAGE = Field("coverage", "share of the intervals at --ci holding θ", alpha=True)
EXP_WIDTH = Field("width", "mean width of the intervals", alpha=True, better="lower")
EXP_TAU = Field("kendall_tau", "mean Kendall τ_b of the ranking by θ̂ with the ranking by θ",
                alpha=True, better="higher")  # fmt: skip
EXP_WRONG = Field("wrong_claims", "share of (pair, draw) resolved in the wrong order",
                  alpha=True, better="lower")  # fmt: skip
EXPERIMENT_FIELDS: tuple[Field, ...] = (EXP_RMSE, EXP_COVERAGE, EXP_WIDTH, EXP_TAU, EXP_WRONG)
# The key of an experiment's table of the EXPERIMENT_FIELDS, a row per method.
EXP_METHODS = "methods"
