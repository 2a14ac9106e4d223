"""Agreement of two graders (bvtest_cli.analyses.assessors.agreement).

Oracles: the worked example of [Krippendorff11] (published α to 3 decimals),
hand arithmetic written out in the comments, and scikit-learn 1.9.1
(``cohen_kappa_score``) and krippendorff 0.9.0 (``alpha``) run in a scratch
virtualenv outside the project on the same arrays, their outputs recorded
here as literals (neither package is a dependency of bvtest).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bvtest_cli.analyses.assessors.agreement import (
    accuracy,
    agreement,
    binarise,
    cohen_kappa,
    confusion,
    kappa_at,
    krippendorff_alpha,
    mean_difference,
    topic_kappa,
    weighted_kappa,
)

nan = np.nan

#: The reliability data of [Krippendorff11] section E (4 coders A–D × 12
#: units, NaN where a coder gave no value).
RELIABILITY = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)


@pytest.mark.parametrize(
    ("level", "published", "package"),
    [
        # Published in [Krippendorff11]; package: krippendorff.alpha(RELIABILITY,
        # level_of_measurement=level) in the scratch venv.
        ("nominal", 0.743, 0.743421052631579),
        ("ordinal", 0.815, 0.8153875037548814),
        ("interval", 0.849, 0.8491071428571428),
    ],
)
def test_krippendorff_worked_example(level: str, published: float, package: float) -> None:
    alpha = krippendorff_alpha(RELIABILITY, level)
    assert round(alpha, 3) == published
    assert alpha == pytest.approx(package, abs=1e-9)


def test_krippendorff_binary_two_coders_by_hand() -> None:
    # [Krippendorff11] section A: coders A and B on 10 units, values 0/1.
    # Coincidences o_00 = 10, o_01 = o_10 = 4, o_11 = 2; n_0 = 14, n_1 = 6,
    # n = 20: α = 1 − (n − 1)·o_01/(n_0·n_1) = 1 − 19·4/84 = 8/84 (≈ .095 published).
    data = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]])
    assert krippendorff_alpha(data, "nominal") == pytest.approx(8 / 84, abs=1e-12)
    # With two values every metric is a multiple of the nominal one.
    assert krippendorff_alpha(data, "interval") == pytest.approx(8 / 84, abs=1e-12)
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(8 / 84, abs=1e-12)


def test_krippendorff_edges() -> None:
    # One value among the pairable values: D_e = 0, α undefined.
    assert np.isnan(krippendorff_alpha(np.array([[2.0, 2.0, 2.0], [2.0, 2.0, nan]]), "ordinal"))
    # No unit with two values: nothing is pairable.
    assert np.isnan(krippendorff_alpha(np.array([[1.0, nan], [nan, 2.0]]), "nominal"))
    # A unit coded once is left out: the same α as without it.
    full = krippendorff_alpha(RELIABILITY[:, :11], "interval")
    extra = np.hstack([RELIABILITY[:, :11], [[7.0], [nan], [nan], [nan]]])
    assert krippendorff_alpha(extra, "interval") == pytest.approx(full, abs=1e-15)
    with pytest.raises(ValueError):
        krippendorff_alpha(np.empty((2, 0)), "nominal")
    with pytest.raises(ValueError):
        krippendorff_alpha(np.full((2, 3), nan), "nominal")
    with pytest.raises(ValueError):
        krippendorff_alpha(RELIABILITY, "ratio")


def test_cohen_kappa_two_by_two_by_hand() -> None:
    # 50 items: both relevant 20, human only 5, judge only 10, neither 15.
    # p_o = (20 + 15)/50 = .7; human marginal (.5, .5), judge (.4, .6):
    # p_e = .5·.4 + .5·.6 = .5; κ = (.7 − .5)/(1 − .5) = .4.
    h = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15)
    j = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    assert cohen_kappa(h, j) == pytest.approx(0.4, abs=1e-12)
    assert accuracy(h, j) == pytest.approx(0.7, abs=1e-12)
    # judge − human: +1 on 10 items, −1 on 5: 5/50.
    assert mean_difference(h, j) == pytest.approx(0.1, abs=1e-12)
    # Labels are labels: any two values give the same κ.
    assert cohen_kappa(h * 7 - 3, j * 7 - 3) == pytest.approx(0.4, abs=1e-12)


def test_weighted_kappa_on_values_by_hand() -> None:
    # Items (h, j): (0, 1), (1, 3), (0, 0), (3, 3). Marginals h: 0 ½, 1 ¼, 3 ¼;
    # j: 0 ¼, 1 ¼, 3 ½. Linear, w = |a − b|: observed (1 + 2)/4 = .75; expected
    # ½(¼·1 + ½·3) + ¼(¼·1 + ½·2) + ¼(¼·3 + ¼·2) = .875 + .3125 + .3125 = 1.5;
    # κ = 1 − .75/1.5 = .5. Quadratic: observed (1 + 4)/4 = 1.25; expected
    # ½(¼ + ½·9) + ¼(¼ + ½·4) + ¼(¼·9 + ¼·4) = 2.375 + .5625 + .8125 = 3.75;
    # κ = 1 − 1.25/3.75 = 2/3. sklearn's weights on label indices (0, 1, 2)
    # give 9/13 instead (cohen_kappa_score(h, j, weights="quadratic") =
    # 0.6923076923076923 in the scratch venv): the values are what is weighted here.
    h = np.array([0, 1, 0, 3])
    j = np.array([1, 3, 0, 3])
    assert weighted_kappa(h, j, "linear") == pytest.approx(0.5, abs=1e-12)
    assert weighted_kappa(h, j, "quadratic") == pytest.approx(2 / 3, abs=1e-12)
    assert abs(weighted_kappa(h, j, "quadratic") - 9 / 13) > 0.02
    with pytest.raises(ValueError):
        weighted_kappa(h, j, "cubic")


def test_kappa_edges() -> None:
    ones = np.ones(5, dtype=int)
    # Both graders one grade: p_e = 1, κ undefined.
    assert np.isnan(cohen_kappa(ones, ones))
    assert np.isnan(weighted_kappa(ones, ones, "quadratic"))
    # One grader one grade: p_o = p_e, κ = 0 exactly.
    assert cohen_kappa(ones, np.array([1, 0, 1, 1, 1])) == 0.0
    # Perfect agreement on three grades.
    assert cohen_kappa(np.array([0, 1, 2]), np.array([0, 1, 2])) == pytest.approx(1.0)
    for bad in (
        (np.array([]), np.array([])),
        (ones, ones[:4]),
        (ones, np.array([1, 1, nan, 1, 1])),
    ):
        with pytest.raises(ValueError):
            cohen_kappa(*bad)
        with pytest.raises(ValueError):
            accuracy(*bad)


def test_confusion_by_hand() -> None:
    h = np.array([0, 0, 0, 1, 1, 3])
    j = np.array([0, 1, 1, 1, 2, 2])
    table = confusion(h, j)
    assert table.human.tolist() == [0, 1, 3]
    assert table.judge.tolist() == [0, 1, 2]
    assert table.counts.tolist() == [[1, 2, 0], [0, 1, 1], [0, 0, 1]]
    assert table.counts.dtype.kind == "i"
    np.testing.assert_allclose(table.p, [[1 / 3, 2 / 3, 0], [0, 0.5, 0.5], [0, 0, 1]])


def test_kappa_at_binarises() -> None:
    h = np.array([0, 1, 2, 3, 2, 0])
    j = np.array([1, 1, 3, 2, 0, 0])
    assert binarise(h, 2).tolist() == [0, 0, 1, 1, 1, 0]
    # At L = 2: h → 0 0 1 1 1 0, j → 0 0 1 1 0 0. p_o = 5/6; marginals h ½ ½,
    # j ⅔ ⅓: p_e = ½·⅔ + ½·⅓ = ½; κ = (5/6 − ½)/½ = 2/3.
    assert kappa_at(h, j, 2) == pytest.approx(2 / 3, abs=1e-12)


def test_topic_kappa_summary_and_skipped() -> None:
    topics = np.array(["a"] * 4 + ["b"] * 3 + ["c"] * 3 + ["d"] * 4)
    h = np.array([*(1, 1, 0, 0), *(2, 2, 2), *(1, 1, 1), *(0, 1, 0, 1)])
    j = np.array([*(1, 1, 0, 0), *(2, 2, 2), *(1, 0, 1), *(1, 1, 0, 0)])
    result = topic_kappa(h, j, topics)
    # a: perfect, κ = 1; b: one grade for both, undefined; c: the human's one
    # grade, κ = 0; d: p_o = ½, p_e = ½, κ = 0.
    assert result.topics.tolist() == ["a", "b", "c", "d"]
    np.testing.assert_allclose(result.kappa, [1.0, nan, 0.0, 0.0], atol=1e-12)
    assert (result.minimum, result.median, result.maximum) == pytest.approx((0.0, 0.0, 1.0))
    assert (result.defined, result.skipped) == (3, 1)
    none = topic_kappa(np.zeros(3), np.zeros(3), np.array([1, 2, 3]))
    assert none.skipped == 3 and np.isnan(none.median)
    with pytest.raises(ValueError):
        topic_kappa(h, j, topics[:-1])


DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "llmjudge"

# Figures from the scratch venv (sklearn 1.9.1, krippendorff 0.9.0) on the
# LLMJudge items keyed (qid, docno) in sorted order. The grades in these files
# are 0–3 and every grade occurs in the human qrels, so the union of labels
# is 0..3 and sklearn's index weights equal the value weights used here.
# RMITIR-llama70B has two grades 5: clipped to 3 on both sides, as the
# LLMJudge organisers did.
# sklearn: cohen_kappa_score(h, j), (..., weights="linear"), (..., weights="quadratic").
KAPPA = {
    "Olz-gpt4o": (0.26247170582014734, 0.3845901206807859, 0.5069172551701463),
    "RMITIR-GPT4o": (0.2388089753761219, 0.35426322583010317, 0.45635861092226737),
    "TREMA-CoT": (0.19612426201357813, 0.295974347741663, 0.3841713486831373),
    "h2oloo-fewself": (0.27743420616147174, 0.39981959422039126, 0.5045927244066701),
    "willia-umbrela1": (0.2862720172191999, 0.3962691634235933, 0.5043556672425622),
    "NISTRetrieval-instruct0": (0.1877205077371581, 0.279902554657404, 0.3828152230052222),
    "TREMA-rubric0": (0.07793337186293814, 0.11269340040191778, 0.16228479752292801),
    "RMITIR-llama70B": (0.26541775008487467, 0.3867263595126411, 0.48866106100445594),
}
# krippendorff.alpha(np.vstack([h, j]), level_of_measurement="ordinal"), (... "interval"),
# then sklearn's cohen_kappa_score(h >= 2, j >= 2).
ALPHA = {
    "Olz-gpt4o": (0.5019856631060584, 0.505060128102162, 0.3656833385239301),
    "RMITIR-GPT4o": (0.41081243551732327, 0.4443757132759325, 0.3960855569661157),
    "TREMA-CoT": (0.385182445088056, 0.38123072383022405, 0.3208128806454237),
    "h2oloo-fewself": (0.49576392319269746, 0.5045344962064808, 0.4279989282351192),
    "willia-umbrela1": (0.49179315003109025, 0.5000547583591026, 0.3985300848089528),
    "NISTRetrieval-instruct0": (0.381922525830814, 0.37977521883258814, 0.30205604945033426),
    "TREMA-rubric0": (0.1036041091460137, 0.07151267078479351, 0.030791970180749084),
    "RMITIR-llama70B": (0.48725076434768266, 0.4853241706437892, 0.3916432010482698),
}
# Min, median and max over the 25 topics of cohen_kappa_score on each topic's items
# (no topic undefined).
TOPIC = {
    "Olz-gpt4o": (-0.18717065261451138, 0.2657117566588879, 0.4455445544554455),
    "RMITIR-GPT4o": (-0.04056713480633323, 0.24430018999366698, 0.50920245398773),
    "TREMA-CoT": (-0.04390638378841194, 0.175734232065479, 0.3808918636504842),
    "h2oloo-fewself": (0.019345032472018908, 0.25732578182713617, 0.5811908885040629),
    "willia-umbrela1": (-0.1474934801506811, 0.28462230215827333, 0.5207986688851913),
    "NISTRetrieval-instruct0": (-0.1514778325123154, 0.14399499519355474, 0.40837194440006386),
    "TREMA-rubric0": (-0.12473572938689204, 0.05430057113630549, 0.3825834854504456),
    "RMITIR-llama70B": (0.038609675904180296, 0.22267206477732793, 0.43628281794634005),
}


def read_qrels(path: Path) -> dict[tuple[str, str], int]:
    grades = {}
    for line in path.read_text().splitlines():
        qid, _, docno, grade = line.split()
        grades[(qid, docno)] = int(grade)
    return grades


@pytest.mark.skipif(not DATA.is_dir(), reason="LLMJudge data (../shared/data) not present")
@pytest.mark.parametrize("name", sorted(KAPPA))
def test_llmjudge_against_sklearn_and_krippendorff(name: str) -> None:
    human = read_qrels(DATA / "qrels.human.txt")
    judge = read_qrels(DATA / "judges" / f"{name}.qrels")
    keys = sorted(human)
    assert set(judge) == set(keys)
    h = np.minimum([human[k] for k in keys], 3)
    j = np.minimum([judge[k] for k in keys], 3)
    topics = np.array([k[0] for k in keys])
    kappa, linear, quadratic = KAPPA[name]
    ordinal, interval, at2 = ALPHA[name]
    low, mid, high = TOPIC[name]
    both = np.vstack([h, j])
    assert cohen_kappa(h, j) == pytest.approx(kappa, abs=1e-9)
    assert weighted_kappa(h, j, "linear") == pytest.approx(linear, abs=1e-9)
    assert weighted_kappa(h, j, "quadratic") == pytest.approx(quadratic, abs=1e-9)
    assert krippendorff_alpha(both, "ordinal") == pytest.approx(ordinal, abs=1e-9)
    assert krippendorff_alpha(both, "interval") == pytest.approx(interval, abs=1e-9)
    assert kappa_at(h, j, 2) == pytest.approx(at2, abs=1e-9)
    summary = agreement(h, j, topics, levels=(2,))
    assert summary.items == 4423
    assert summary.kappa_quadratic == pytest.approx(quadratic, abs=1e-9)
    assert summary.alpha_ordinal == pytest.approx(ordinal, abs=1e-9)
    assert summary.kappa_at[2] == pytest.approx(at2, abs=1e-9)
    per = summary.per_topic
    assert (per.defined, per.skipped) == (25, 0)
    assert (per.minimum, per.median, per.maximum) == pytest.approx((low, mid, high), abs=1e-9)
