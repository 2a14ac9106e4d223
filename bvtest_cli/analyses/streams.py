"""The named random streams of the analyses, and the one topic-resampling draw.

Every random draw of an analysis comes from ``SeedSequence(seed,
spawn_key=(STREAM, ...))`` with STREAM one of the keys below, each under one
name, so two analyses never share a stream by accident and a stream keeps
its key (and so its numbers) when code moves. The values are the ones the
analyses have always used: changing one changes published output.

Pure numpy; imports nothing of bvtest.
"""

from __future__ import annotations

import numpy as np

#: Sign flips of the paired randomization test (significance.randomization_test).
SIGN_FLIPS = 12
#: Relabellings of compare's GeoRisk randomization test (paired.randomization_p).
GEORISK_RELABELLINGS = 1
#: Topic resamples of Sakai's paired bootstrap test, shared by
#: significance.bootstrap_test and sensitivity.delta_needed: the same test,
#: the same resamples, the same p-values.
PAIRED_BOOTSTRAP = 0x5A06
#: Two disjoint topic subsets of sensitivity's swap rates (with the subset size).
SWAP_SUBSETS = 0x5702
#: Permutations of the randomised Tukey HSD test (anova.randomised_tukey).
TUKEY_PERMUTATIONS = 0x70CE
#: Topic resamples of design's bootstrap intervals (design.bootstrap_topics).
DESIGN_TOPICS = 7
#: A judge simulated from a confusion block (judges.simulated_grades).
JUDGE_SIMULATION = 0x1D6E
#: The random subsets of human topics of judges' experiment (with the subset size).
TOPIC_SUBSETS = 0x1D70


def generator(seed: int, stream: int, *key: int) -> np.random.Generator:
    """The generator of one stream: ``SeedSequence(seed, spawn_key=(stream, *key))``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, *key)))


def resample_indices(n: int, B: int, seed: int, stream: int) -> np.ndarray:
    """(B, n) topic indices: B resamples of n topics with replacement, drawn at
    once from ``stream`` (``integers(0, n, (B, n))``)."""
    return generator(seed, stream).integers(0, n, size=(B, n))


def resample_counts(n: int, B: int, seed: int, stream: int) -> np.ndarray:
    """(B, n) integers: how often each topic is drawn in each of the B
    resamples of :func:`resample_indices` (one matrix product then gives every
    resample's sums)."""
    draws = resample_indices(n, B, seed, stream)
    offsets = np.arange(B)[:, np.newaxis] * n
    return np.bincount((draws + offsets).ravel(), minlength=B * n).reshape(B, n)
