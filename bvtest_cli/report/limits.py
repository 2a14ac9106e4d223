"""Requests too big to fit are refused before anything is allocated.

Once the inputs' size is known (m systems, n topics), the ``refuse_*``
functions estimate the memory and the work each size-setting option asks for and
refuses, in one line naming the option, a request beyond the limits:

- memory: :data:`MEMORY_ENV` (MiB) if set, else 3/4 of the machine's
  physical memory;
- work: :data:`WORK_LIMIT` elementary operations (hours of computing),
  for options whose memory is bounded by streaming (``--bootstrap`` beyond
  ``--ci-memory`` replays resamples in passes instead of storing them).

The estimates are upper bounds of the largest arrays the analyses build
(float64, a few live copies); docs/limits.md lists them.
"""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass

from ..errors import InputError

MEMORY_ENV = "BVTEST_MEMORY_MB"
WORK_LIMIT = 1e12  # ~ 15 minutes at 1e9 operations per second: no analysis needs more
_FLOAT = 8
_COPIES = 4  # live float64 arrays of the largest shape at once, generously
BASE_BYTES = _BASE = 64 << 20  # the interpreter, numpy and the counts of one step (64 MiB)
_LINE = 40  # bytes of a written sample line ``qid 0 docno stratum rel``
_DOCUMENT_WORK = 200  # elementary operations a sampler spends on a pooled document


def memory_limit() -> int:
    """Bytes a request may use: $BVTEST_MEMORY_MB, or 3/4 of physical memory."""
    text = os.environ.get(MEMORY_ENV, "").strip()
    if text:
        try:
            mib = float(text)
        except ValueError:
            raise InputError(f"{MEMORY_ENV}={text!r} is not a number of MiB") from None
        if not (math.isfinite(mib) and mib > 0):
            raise InputError(f"{MEMORY_ENV}={text!r}: the memory limit must be a positive "
                             "number of MiB")  # fmt: skip
        return int(mib * (1 << 20))
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        physical = 8 << 30
    return physical * 3 // 4


def _size(n: float) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1024:.3g} KiB"


def refuse_memory(option: str, value: object, needed: float, what: str) -> None:
    limit = memory_limit()
    if needed > limit:
        raise InputError(
            f"{option} {value}: {what} needs about {_size(needed)}, more than the limit "
            f"{_size(limit)} ({_limit_source()})"
        )


def _limit_source() -> str:
    if os.environ.get(MEMORY_ENV, "").strip():
        return f"set by ${MEMORY_ENV}"
    return f"3/4 of this machine's memory; ${MEMORY_ENV} sets it"


def _bootstrap_bytes(samples: int, topics: int, m: int) -> float:
    """The peak of B bootstrap samples of n′ topics (analyses.rankings):
    the drawn topics and picks (B, n′) int64, and two temporaries of that
    size while they are turned into counts (measured: 27 MB a sample of
    870 000 topics, 3.9 × 8 bytes a topic), the means and sign columns of m
    runs, and the interpreter with numpy and the inputs (~64 MiB)."""
    return float(samples) * (5 * topics + _COPIES * m) * _FLOAT + _BASE


def refuse_work(
    option: str, value: object, operations: float, what: str, fits: str | None = None
) -> None:
    """Refuse ``operations`` beyond :data:`WORK_LIMIT`; ``fits`` says what would fit."""
    if operations > WORK_LIMIT:
        raise InputError(
            f"{option} {value}: {what} takes about {operations:.2g} operations, more than "
            f"the limit {WORK_LIMIT:.0e} (a quarter of an hour of computing, fixed in "
            f"bvtest); {fits or 'ask for fewer'}"
        )


#: Operations per pair of rankings in Δ besides the dot product of their
#: signs: τ, (1 − τ)², the sums and the batch sums, passes over float64
#: blocks (measured: 50 ns a pair of rankings of 12 runs, 66 system pairs).
_PAIR_WORK = 40

#: The dot products of sign vectors are blocks of one matrix product: a
#: multiply-add there costs about a fiftieth of an elementary operation
#: (measured: budget --engineered's 72 Δ estimates over 1000² pairs of
#: rankings of 258 runs, 4.8e12 multiply-adds, take ~10 s of its 60).
_PRODUCT_SPEEDUP = 50


def delta_work(samples: int, m: int, products: int) -> float:
    """Operations of ``products`` Δ estimates over B × B pairs of rankings of
    m runs (analyses.rankings.delta): each pair of rankings a dot product of
    two sign vectors of m(m − 1)/2 pairs inside a matrix product (weighed by
    :data:`_PRODUCT_SPEEDUP`), and :data:`_PAIR_WORK` more."""
    pairs = m * (m - 1) / 2
    return float(samples) ** 2 * products * (2 * pairs / _PRODUCT_SPEEDUP + _PAIR_WORK)


def _most_samples(m: int, products: int) -> int:
    """The largest B whose Δ estimates fit :data:`WORK_LIMIT`."""
    return max(1, math.isqrt(int(WORK_LIMIT / max(delta_work(1, m, products), 1.0))))


def refuse_delta(flag: str, samples: int, m: int, products: int, what: str) -> None:
    """Refuse B bootstrap rankings whose B × B products would compute for hours,
    saying the B that fits."""
    refuse_work(flag, samples, delta_work(samples, m, products), what,
                f"at most {flag} {_most_samples(m, products)} fits")  # fmt: skip


def ranking_products(collections: int) -> int:
    """Δ estimates of ``rankings`` with k test collections (analyses.rankings.
    ranking_accuracy): σ² of each of the k + 1 sets, and Δ(X, G) of each
    collection, or of every ordered pair of the k + 1 with the table (k ≥ 2)."""
    k = max(collections, 1)
    return (k + 1) + ((k + 1) ** 2 if k >= 2 else k)


def refuse_groupings(repeats: int, m: int, n: int) -> None:
    """``--group random:K`` (and tradeoff): R repeats of a (m, groups)
    matrix per field, groups ≤ n."""
    m, n = max(m, 1), max(n, 1)
    need = float(repeats) * m * n * _FLOAT * _COPIES
    refuse_memory("--repeats", repeats, need, f"{repeats} random groupings")


def refuse_bootstrap(bootstrap: int, m: int, n: int) -> None:
    """``--ci``: B resamples of m runs × n topics (streamed beyond
    ``--ci-memory``: work, not memory)."""
    m, n = max(m, 1), max(n, 1)
    refuse_work(
        "--bootstrap", bootstrap, float(bootstrap) * m * n * 16,
        f"{bootstrap} bootstrap resamples of {m} runs × {n} topics",
    )  # fmt: skip


def refuse_samples(
    draws: tuple[str, int], repeats: int, documents: int | None, n: int, out: str | None = None
) -> None:
    """``sample``: ``repeats`` samples (``draws``: the flag as typed and
    its value) of the pooled documents (``documents`` once known, else one
    per topic); ``out``: the directory written to (its free space)."""
    flag, value = draws
    docs = float(documents) if documents is not None else float(max(n, 1))
    refuse_work(flag, value, repeats * docs * _DOCUMENT_WORK,
                f"{value} samples of {int(docs)} pooled documents")  # fmt: skip
    if out is None or documents is None:
        return
    parent = os.path.dirname(os.path.realpath(out)) or "."
    try:
        free = shutil.disk_usage(parent).free
    except OSError:
        free = None
    need = repeats * docs * _LINE
    if free is not None and need > free:
        raise InputError(
            f"{flag} {value}: {repeats} sample files of {int(docs)} lines need "
            f"about {_size(need)}, more than the {_size(free)} free where --out writes"
        )


def refuse_simulations(samples: int, m: int, n: int) -> None:
    """``pertopic -k``: per worker (n, k) draws of a few arrays; k samples of every topic."""
    m, n = max(m, 1), max(n, 1)
    refuse_memory("-k", samples, float(samples) * n * _FLOAT * _COPIES * 4,
                  f"{samples} simulated collections per topic")  # fmt: skip
    refuse_work("-k", samples, float(samples) * n * m * 1000,
                f"{samples} simulated collections of {m} runs × {n} topics")  # fmt: skip


@dataclass(frozen=True)
class BudgetRequest:
    """What ``budget`` asks for: the flags as typed with their values
    (``--draws``/``--repeats``, ``--bootstrap``/``--samples``), the budgets,
    topic-set scales and methods, and whether engineered runs double the runs."""

    draws: tuple[str, int]
    bootstrap: tuple[str, int]
    budgets: tuple[int, ...]
    topics_scale: tuple[int, ...]
    methods: tuple[str, ...]
    engineered: bool


def refuse_budget(r: BudgetRequest, m: int, n: int, documents: int | None = None) -> None:
    """``budget`` on m runs × n topics (``documents``: the pooled documents
    once known, else one per topic)."""
    m, n = max(m, 1), max(n, 1)
    (draws, n_draws), (bootstrap, b) = r.draws, r.bootstrap
    docs = float(documents) if documents is not None else float(n)
    m_all = m * (2 if r.engineered else 1)
    # per budget: R samples' scores of every run and topic, two estimators;
    # the bootstrap's counts over the R·n sampled topics
    repeats = n_draws if any(x in ("xinfAP", "statAP") for x in r.methods) else 1
    refuse_memory(draws, n_draws,
                  float(repeats) * m_all * n * _FLOAT * (2 + _COPIES) + _BASE,
                  f"{n_draws} samples of {m_all} runs × {n} topics")  # fmt: skip
    refuse_work(
        draws, n_draws, repeats * docs * _DOCUMENT_WORK * len(r.budgets),
        f"{n_draws} pps samples of {int(docs)} pooled documents per budget",
    )  # fmt: skip
    topics = max(r.topics_scale) * n
    option, value = (bootstrap, b)
    if _bootstrap_bytes(b, n, m_all) <= memory_limit():
        option, value = ("--topics-scale", max(r.topics_scale))
    refuse_memory(option, value, _bootstrap_bytes(b, topics, m_all),
                  f"{b} bootstrap samples of {topics} topics")  # fmt: skip
    # each cell (budget, scale, method, and the reference's row) estimates
    # σ² of its collection and of the reference and Δ between them
    cells = len(r.budgets) * len(r.topics_scale) * (len(r.methods) + 1)
    refuse_delta(bootstrap, b, m_all, 3 * cells,
                 f"{3 * cells} Δ estimates ({cells} cells) over {b}² pairs of "
                 f"rankings of {m_all} runs")  # fmt: skip


def refuse_rankings(
    bootstrap: tuple[str, int], topics: int | None, collections: int, m: int, n: int
) -> None:
    """``rankings``: B bootstrap samples of n′ topics (``topics``; None: n)
    of m runs, and the Δ estimates of ``collections`` collections."""
    m, n = max(m, 1), max(n, 1)
    flag, b = bootstrap
    chosen = topics or n
    need = _bootstrap_bytes(b, chosen, m)
    # blame --topics when the default n′ = n would have fitted
    by_topics = topics is not None and _bootstrap_bytes(b, n, m) <= memory_limit()
    option, value = ("--topics", chosen) if by_topics else (flag, b)
    refuse_memory(option, value, need, f"{b} bootstrap samples of {chosen} topics")
    products = ranking_products(collections)
    refuse_delta(flag, b, m, products,
                 f"{products} Δ estimates over {b}² pairs of rankings of {m} runs")  # fmt: skip
