"""``bvtest judges``'s report: automatic assessors beside the human one.

Per judge: the agreement of its grades with the human ones on the pairs both
label (:mod:`bvtest_cli.analyses.assessors.agreement`); per measure, each run's error
under the judge as bias and variance and the two leaderboards
(:mod:`bvtest_cli.analyses.assessors.judges`), the ranking's bias and variance
([Cormack19], :func:`~bvtest_cli.analyses.rankings.ranking_accuracy`), and
PPI on the topics only the judge covers (:mod:`bvtest_cli.analyses.assessors.ppi`);
with ``--human-topics``, how many human topics the judge needs.

The human qrels are the reference: their topic rule (``--topic-set``, at
``-l``) chooses the topics; every run is read once and scored under every
qrels file (:func:`~bvtest_cli.measures.collections.evaluate_collections`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analyses.assessors import agreement as ag
from ...analyses.assessors import judges as jd
from ...analyses.assessors import ppi
from ...analyses.rankings import Batching, ranking_accuracy, stream_key
from ...analyses.significance import adjust
from ...defaults import DEFAULT_MEASURES
from ...errors import InputError
from ...io.judgments import check_rows, check_scale, mapped, read_confusion
from ...io.sources import Inputs, expand_sources
from ...io.trec import QrelsFile, named_sources, read_qrels, sort_topics
from ...measures.collections import evaluate_collections
from ...measures.names import parse_measures
from ...measures.topics import list_topics, topic_set
from ...report import registry as r
from ...report.model import Records, Report, Section, Table, section
from ...report.values import as_reported, fmt, plain

if TYPE_CHECKING:
    from .params import JudgesParams


@dataclass(frozen=True)
class Judge:
    """One automatic assessor: its name, its (mapped) judgments, and whether
    they were simulated from a confusion block."""

    name: str
    qrels: QrelsFile
    simulated: bool = False


def load_judges(p: JudgesParams, human: QrelsFile) -> list[Judge]:
    """Every --judge, read or simulated, its grades mapped and checked against
    the human scale."""
    grade_map = dict(p.grade_map)
    scale = sorted(human.first_line_of_grade)
    out = []
    for name, spec in p.judges:
        if spec.startswith("sim:"):
            path = spec[len("sim:") :]
            block = read_confusion(path)
            check_rows(block, scale, path)
            out.append(Judge(name, simulate(human, block, p.seed, name, path), simulated=True))
            continue
        judge = mapped(read_qrels(spec), grade_map)
        check_scale(judge, scale, grade_map)
        out.append(Judge(name, judge))
    return out


def simulate(human: QrelsFile, block: Any, seed: int, name: str, label: str) -> QrelsFile:
    """The simulated judge's grade for every human-judged document, drawn from
    its human grade's row (seeded by --seed and the judge's name)."""
    qrels = human.qrels
    grades = np.fromiter((g for docs in qrels.values() for g in docs.values()), dtype=np.int64)
    drawn = jd.simulated_grades(
        grades, np.array(block.rows), np.array(block.p), np.array(block.columns), seed,
        stream_key(name),
    )  # fmt: skip
    it = iter(drawn.tolist())
    table = {t: {d: next(it) for d in docs} for t, docs in qrels.items()}
    first = {int(g): 1 for g in set(drawn.tolist())}
    return QrelsFile(f"{label} (simulated)", table, first)


# --------------------------------------------------------------------------- agreement


def labelled_pairs(
    human: QrelsFile, judge: QrelsFile
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Grades of the (topic, document) pairs both label, their topics, and how
    many pairs only the human or only the judge labels."""
    hq, jq = human.qrels, judge.qrels
    h, j, topics = [], [], []
    only_judge = 0
    for topic, docs in jq.items():
        mine = hq.get(topic, {})
        for docno, grade in docs.items():
            if docno in mine:
                h.append(mine[docno])
                j.append(grade)
                topics.append(topic)
            else:
                only_judge += 1
    only_human = sum(len(d) for d in hq.values()) - len(h)
    return np.array(h), np.array(j), np.array(topics), only_human, only_judge


def agreement_section(judge: Judge, human: QrelsFile, level: int) -> tuple[Section, list[str]]:
    """Item 1 of docs/judges.md: confusion, κ at -l, weighted κ, α, accuracy,
    mean grade difference and per-topic κ."""
    h, j, topics, only_human, only_judge = labelled_pairs(human, judge.qrels)
    if h.size == 0:
        raise InputError(
            f"judge {judge.name!r} labels no (topic, document) pair the human qrels label; "
            "wrong file?",
            judge.qrels.label,
        )
    c = ag.confusion(h, j)
    a = ag.agreement(h, j, topics, levels=(level,), topic_level=level)
    per_topic = a.per_topic
    notes = []
    if only_human or only_judge:
        notes.append(
            f"{judge.name}: {h.size} pairs labelled by both; {only_human} only by the humans "
            f"and {only_judge} only by the judge are counted, not used in the agreement"
        )
    if per_topic.skipped:
        notes.append(
            f"{judge.name}: κ is undefined on {per_topic.skipped} topic(s) (one grade from "
            "both sides there): skipped in topic_kappa"
        )
    confusion = section(
        ("human_grades", tuple(int(g) for g in c.human)),
        ("judge_grades", tuple(int(g) for g in c.judge)),
        ("counts", tuple(tuple(int(v) for v in row) for row in c.counts)),
        ("p", tuple(tuple(float(v) for v in row) for row in c.p)),
    )
    body = section(
        ("pairs", int(h.size)),
        ("only_human", only_human),
        ("only_judge", only_judge),
        ("grades", tuple(int(g) for g in np.union1d(c.human, c.judge))),
        ("confusion", confusion),
        ("kappa", a.kappa_at[level]),
        ("kappa_linear", a.kappa_linear),
        ("kappa_quadratic", a.kappa_quadratic),
        ("alpha_ordinal", a.alpha_ordinal),
        ("alpha_interval", a.alpha_interval),
        ("accuracy", a.accuracy),
        ("mean_grade_diff", a.mean_difference),
        (
            "topic_kappa",
            section(
                ("min", per_topic.minimum),
                ("median", per_topic.median),
                ("max", per_topic.maximum),
                ("skipped", per_topic.skipped),
            ),
        ),
    )
    return body, notes


# --------------------------------------------------------------------------- per measure


@dataclass(frozen=True)
class Topics:
    """The topic sets of one judge: both (human topic rule ∩ the judge's topics),
    human (the human-judged ones among both), judge_only (topics the humans
    did not judge at all)."""

    both: tuple[str, ...]
    judge_only: tuple[str, ...]


def topics_of(human_topics: Sequence[str], human: QrelsFile, judge: QrelsFile) -> Topics:
    judged = set(judge.topics())
    both = tuple(t for t in human_topics if t in judged)
    every_human = set(human.topics())
    judge_only = tuple(sort_topics(judged - every_human))
    return Topics(both, judge_only)


def measure_block(
    p: JudgesParams,
    measure: str,
    systems: tuple[str, ...],
    scores: dict[str, np.ndarray],
    topics: Topics,
) -> tuple[Section, list[str], list[dict[str, Any]]]:
    """One judge's block for one measure, its notes, and its experiment rows."""
    x_h, x_j = scores["both_human"], scores["both_judge"]
    notes: list[str] = []
    e = jd.judge_error(x_h, x_j, p.ddof)
    board = jd.leaderboards(e.human, e.judge)
    values: dict[str, np.ndarray] = {
        r.JUDGE_HUMAN.name: e.human, r.JUDGE_JUDGE.name: e.judge, r.JUDGE_BIAS.name: e.bias,
        r.JUDGE_VAR.name: e.var, r.JUDGE_MSE.name: e.mse,
        r.RANK_HUMAN.name: board.rank_human,
        r.RANK_JUDGE.name: board.rank_judge,
    }  # fmt: skip
    nan = np.full(len(systems), np.nan)
    pairs: list[dict[str, Any]] = []
    assert p.ci is not None
    alpha = 1.0 - p.ci
    if topics.judge_only and len(topics.both) >= 2:
        y, f, unl = x_h, x_j, scores["judge_only"]
        est = ppi.ppi_mean(y, f, unl, alpha, p.ppi_lambda, p.ppi_interval)
        human_only = ppi.human_mean(y, alpha, p.ppi_interval)
        values.update({
            r.PPI_MEAN.name: est.estimate, r.PPI_LO.name: est.lower, r.PPI_HI.name: est.upper,
            r.PPI_LAMBDA.name: est.lam, r.HUMAN_LO.name: human_only.lower,
            r.HUMAN_HI.name: human_only.upper,
        })  # fmt: skip
        pairs = pair_rows(systems, y, f, unl, p)
    else:
        for field in (r.PPI_MEAN, r.PPI_LO, r.PPI_HI, r.PPI_LAMBDA, r.HUMAN_LO, r.HUMAN_HI):
            values[field.name] = nan
        notes.append(
            f"{measure}: the judge covers no topic the humans did not judge: nothing for PPI "
            "to correct (ppi, ppi_lo, ppi_hi, lambda, human_lo, human_hi and pairs null)"
            if not topics.judge_only
            else f"{measure}: PPI needs 2 or more human topics, the judge shares {len(topics.both)}"
        )
    acc = ranking_accuracy(
        x_h, {"judge": x_j}, reference_name="human", samples=p.bootstrap, seed=p.seed,
        table=False, batching=Batching(batches=min(10, p.bootstrap)),
    )  # fmt: skip
    rank = acc.collections[0].accuracy
    table = Table(rows=systems, fields=r.JUDGE_SYSTEM_FIELDS, values=values)
    head = (
        ("topics", len(topics.both)),
        ("judge_only_topics", len(topics.judge_only)),
        (r.SYSTEMS, table),
        ("kendall_tau", board.kendall_tau),
        ("tau_ap", board.tau_ap),
        ("tau_ap_b", board.tau_ap_b),
        ("spearman", board.spearman),
        ("max_rank_change", board.max_rank_change),
        (
            "ranking",
            section(
                ("delta", rank.delta),
                ("bias", rank.bias),
                ("sigma", rank.sigma),
                ("rmse", rank.rmse),
            ),
        ),
    )
    block = section(*head, ("pairs", _pair_records(pairs)))
    notes += list(acc.notes)
    return block, notes, experiment_rows(p, measure, x_h, x_j)


def agreement_text(block: Section) -> Section:
    """The agreement as the text formats lay it out: the confusion block's
    counts and p as ``confusion.counts.H.J`` (human grade H, judge grade J),
    the grade lists left to the JSON."""
    confusion = block.get("confusion")
    assert isinstance(confusion, Section)
    rows, columns = confusion.get("human_grades"), confusion.get("judge_grades")
    assert isinstance(rows, tuple) and isinstance(columns, tuple)

    def grid(key: str) -> Section:
        cells = confusion.get(key)
        assert isinstance(cells, tuple)
        return section(
            *((str(h), section(*zip(map(str, columns), row, strict=True)))
              for h, row in zip(rows, cells, strict=True))
        )  # fmt: skip

    items = [(k, v) for k, v in block.items if str(k) not in ("grades", "confusion")]
    items.insert(3, ("confusion", section(("counts", grid("counts")), ("p", grid("p")))))
    return Section(tuple(items))


def text_block(block: Section) -> Section:
    """A measure block as the text formats lay it out: its pairs as a table of
    rows ``a:b`` (the JSON keeps them a list of records)."""
    items = [(k, v) for k, v in block.items if str(k) != "pairs"]
    pairs = block.get("pairs")
    assert isinstance(pairs, Records)
    if pairs.items:
        rows = tuple(f"{p['a']}:{p['b']}" for p in pairs.items)
        values = {f.name: np.array([p[f.name] for p in pairs.items]) for f in r.JUDGE_PAIR_FIELDS}
        items.append(("pairs", Table(rows=rows, fields=r.JUDGE_PAIR_FIELDS, values=values)))
    return Section(tuple(items))


def experiment_blocks(rows: list[dict[str, Any]]) -> list[tuple[str, Section]]:
    """The experiment as the text formats and the page lay it out: per judge
    and measure a table of the methods, one column per number of human
    topics (as the risk fields have one per α), which the page draws as
    lines against n."""
    out = []
    keys = list(dict.fromkeys((x["judge"], x["measure"]) for x in rows))
    for judge, measure in keys:
        mine = [x for x in rows if (x["judge"], x["measure"]) == (judge, measure)]
        sizes = list(dict.fromkeys(x["topics"] for x in mine))
        cell = {(x["method"], x["topics"]): x for x in mine}
        values = {
            f.name: np.array([[cell[m, n][f.name] for n in sizes] for m in jd.METHODS], float)
            for f in r.EXPERIMENT_FIELDS
        }
        table = Table(jd.METHODS, r.EXPERIMENT_FIELDS, values, alphas=tuple(map(str, sizes)))
        out.append((f"experiment:{judge}:{measure}", section((r.EXP_METHODS, table))))
    return out


def pair_rows(
    systems: Sequence[str], y: np.ndarray, f: np.ndarray, unl: np.ndarray, p: JudgesParams
) -> list[dict[str, Any]]:
    """Every pair's difference by PPI (the same λ rule, on per-topic differences),
    its interval at --ci, p, p_adj by --correction, resolved = p_adj ≤ α."""
    assert p.ci is not None
    i, j = jd.pair_indices(len(systems))
    if not len(i):
        return []
    est = ppi.ppi_mean(
        y[i] - y[j], f[i] - f[j], unl[i] - unl[j], 1.0 - p.ci, p.ppi_lambda, p.ppi_interval
    )
    p_adj = adjust(est.p, p.correction)
    rows = []
    for k, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
        rows.append({
            "a": systems[a], "b": systems[b], "diff": float(est.estimate[k]),
            "lo": float(est.lower[k]), "hi": float(est.upper[k]), "p": float(est.p[k]),
            "p_adj": float(p_adj[k]), "resolved": bool(p_adj[k] <= p.significance),
        })  # fmt: skip
    return rows


PAIR_COLUMNS = ("a", "b", "diff", "lo", "hi", "p", "p_adj", "resolved")


def _pair_records(rows: list[dict[str, Any]]) -> Records:
    def as_json(row: dict[str, Any]) -> dict[str, Any]:
        return {k: as_reported(v, k in ("p", "p_adj")) for k, v in row.items()}

    def as_text(row: dict[str, Any], digits: int) -> tuple[str, ...]:
        return tuple(
            ("yes" if row[k] else "no") if k == "resolved" else
            row[k] if isinstance(row[k], str) else fmt(plain(row[k]), digits)
            for k in PAIR_COLUMNS
        )  # fmt: skip

    return Records(tuple(rows), as_json, as_text, header=PAIR_COLUMNS, keys=2)


def experiment_rows(
    p: JudgesParams, measure: str, x_h: np.ndarray, x_j: np.ndarray
) -> list[dict[str, Any]]:
    """Item 4 of docs/judges.md for one judge and measure."""
    if not p.human_topics:
        return []
    assert p.ci is not None
    spec = jd.ExperimentSpec(
        tuple(p.human_topics), p.draws, p.seed, p.ci, p.ppi_interval, p.significance,
        p.correction,
    )  # fmt: skip
    try:
        jd.sizes_within(spec.sizes, x_h.shape[1])
        rows = jd.human_topics_experiment(x_h, x_j, spec)
    except ValueError as exc:
        raise InputError(f"{measure}: {exc}") from None
    fields = ("topics", "method", "rmse", "coverage", "width", "kendall_tau", "wrong_claims")
    return [{"measure": measure, **{f: getattr(row, f) for f in fields}} for row in rows]


EXPERIMENT_COLUMNS = (
    "judge", "measure", "topics", "method", "rmse", "coverage", "width", "kendall_tau",
    "wrong_claims",
)  # fmt: skip


def _experiment_records(rows: list[dict[str, Any]]) -> Records:
    def as_json(row: dict[str, Any]) -> dict[str, Any]:
        return {k: as_reported(row[k], False) for k in EXPERIMENT_COLUMNS}

    def as_text(row: dict[str, Any], digits: int) -> tuple[str, ...]:
        return tuple(
            str(row[k]) if isinstance(row[k], (str, int)) else fmt(plain(row[k]), digits)
            for k in EXPERIMENT_COLUMNS
        )

    return Records(tuple(rows), as_json, as_text, header=EXPERIMENT_COLUMNS, keys=4)


# --------------------------------------------------------------------------- the report


def check_judges_request(p: JudgesParams, m: int, n: int, judges: int, measures: int) -> None:
    """Refuse, before anything is evaluated, what would not fit: the ranking's
    B × B products per judge and measure (as `rankings`), and the experiment's
    R draws of every run and pair of runs over the topics (the pairs'
    differences, three (R, pairs, n) arrays, dominate)."""
    from ...report.limits import BASE_BYTES, refuse_delta, refuse_memory

    refuse_delta("--bootstrap", p.bootstrap, m, 2 * judges * measures,
                 f"the rankings of {judges} judge(s) × {measures} measure(s)")  # fmt: skip
    if p.human_topics:
        rows = m + m * (m - 1) / 2
        need = BASE_BYTES + 8.0 * 6 * p.draws * rows * n
        refuse_memory("--draws", p.draws, need, f"{p.draws} draws of {m} runs and their pairs")


def judges_report(inputs: Inputs, p: JudgesParams) -> Report:
    """``bvtest judges``: read, evaluate once, then every judge's analyses."""
    notes: list[str] = []
    if p.ci is None:
        raise InputError("--ci must be a level", "--ci")
    assert inputs.qrels is not None  # judges takes QRELS RUNS...
    human = mapped(read_qrels(inputs.qrels), dict(p.grade_map))
    sources = expand_sources(inputs.runs, notes.append)
    sources = named_sources(sources, p.name, notes.append)
    specs = parse_measures(p.measures or DEFAULT_MEASURES, p.rel_level)
    judges = load_judges(p, human)
    human_topics = topic_set(human, p.rel_level, notes.append, "human qrels", p.topic_set)
    check_judges_request(p, len(sources), len(human_topics), len(judges), len(specs))
    universe = list(human_topics)
    seen = set(universe)
    for judge in judges:
        extra = [t for t in sort_topics(judge.qrels.topics()) if t not in seen]
        universe += extra
        seen.update(extra)
    scores = evaluate_collections(
        human, {j.name: [j.qrels] for j in judges}, sources, specs, rel_level=p.rel_level,
        jobs=p.jobs or 1, err_impl=p.err_impl, impl=p.impl, note=notes.append, topics=universe,
    )  # fmt: skip
    where = {t: k for k, t in enumerate(universe)}
    blocks, experiment, views = [], [], []
    for judge in judges:
        agreement, judge_notes = agreement_section(judge, human, p.rel_level)
        views.append((judge.name, section(("agreement", agreement_text(agreement)))))
        notes += judge_notes
        topics = topics_of(human_topics, human, judge.qrels)
        if not topics.both:
            raise InputError(
                f"judge {judge.name!r} judges none of the {len(human_topics)} human topics "
                f"({list_topics(human_topics, 3)})",
                judge.qrels.label,
            )
        both = [where[t] for t in topics.both]
        only = [where[t] for t in topics.judge_only]
        measures = []
        for cs in scores:
            cube = cs.collections[judge.name][0]
            per = {
                "both_human": cs.reference[0][:, both],
                "both_judge": cube[:, both],
                "judge_only": cube[:, only],
            }
            block, block_notes, rows = measure_block(p, cs.measure, cs.systems, per, topics)
            measures.append((cs.measure, block))
            views.append((f"{judge.name}:{cs.measure}", text_block(block)))
            notes += [f"{judge.name}: {n}" for n in block_notes]
            experiment += [{"judge": judge.name, **row} for row in rows]
        blocks.append(
            (judge.name, section(("agreement", agreement), (r.MEASURES, Section(tuple(measures)))))
        )
    items: list[tuple[str, Any]] = [
        ("ci", p.ci),
        ("ppi_interval", p.ppi_interval),
        ("lambda", p.ppi_lambda),
        ("correction", p.correction),
        ("significance", p.significance),
        ("seed", p.seed),
        ("grade_map", tuple(f"{a}={b}" for a, b in p.grade_map)),
        ("judges", Section(tuple(blocks))),
    ]
    if experiment:
        items.append(("experiment", _experiment_records(experiment)))
        views += experiment_blocks(experiment)
    return Report(section(*items), notes=tuple(notes), blocks=tuple(views))


def build(inputs: Inputs, p: JudgesParams) -> Report:
    return judges_report(inputs, p)
