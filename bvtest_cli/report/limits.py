"""Requests too big to fit are refused before anything is allocated.

Once the inputs' size is known (m systems, n topics), :func:`check_request`
estimates the memory and the work each size-setting option asks for and
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

import os

from ..errors import InputError
from ..settings import Settings

MEMORY_ENV = "BVTEST_MEMORY_MB"
WORK_LIMIT = 1e13  # ~ 3 hours at 1e9 operations per second: no analysis needs more
_FLOAT = 8
_COPIES = 4  # live float64 arrays of the largest shape at once, generously


def memory_limit() -> int:
    """Bytes a request may use: $BVTEST_MEMORY_MB, or 3/4 of physical memory."""
    text = os.environ.get(MEMORY_ENV, "").strip()
    if text:
        try:
            return int(float(text) * (1 << 20))
        except ValueError:
            raise InputError(f"{MEMORY_ENV}={text!r} is not a number of MiB") from None
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
            f"{_size(limit)} (3/4 of this machine's memory; ${MEMORY_ENV} sets it)"
        )


def refuse_work(option: str, value: object, operations: float, what: str) -> None:
    if operations > WORK_LIMIT:
        raise InputError(
            f"{option} {value}: {what} takes about {operations:.2g} operations, more than "
            f"the limit {WORK_LIMIT:.0e} (hours of computing); ask for fewer"
        )


def check_request(s: Settings, m: int, n: int, command: str = "eval") -> None:
    """Refuse what the options of ``s`` ask of m systems × n topics, beyond
    the limits (InputError naming the option)."""
    m, n = max(m, 1), max(n, 1)
    if (s.group is not None and s.group[0] == "random") or command == "tradeoff":
        # R repeats of a (m, groups) matrix per field, groups ≤ n
        need = float(s.repeats) * m * n * _FLOAT * _COPIES
        refuse_memory("--repeats", s.repeats, need, f"{s.repeats} random groupings")
    if s.ci is not None:
        refuse_work(
            "--bootstrap", s.bootstrap, float(s.bootstrap) * m * n * 16,
            f"{s.bootstrap} bootstrap resamples of {m} runs × {n} topics",
        )  # fmt: skip
    if command == "pertopic":
        # per worker: (n, k) draws of a few arrays; k samples of every topic
        refuse_memory("-k", s.samples, float(s.samples) * n * _FLOAT * _COPIES * 4,
                      f"{s.samples} simulated collections per topic")  # fmt: skip
        refuse_work("-k", s.samples, float(s.samples) * n * m * 1000,
                    f"{s.samples} simulated collections of {m} runs × {n} topics")  # fmt: skip
    if command == "budget":
        m_all = m * (2 if s.engineered else 1)
        # per budget: R samples' scores of every run and topic, two estimators;
        # the bootstrap's counts over the R·n sampled topics
        refuse_memory("--repeats", s.repeats,
                      float(s.repeats) * m_all * n * _FLOAT * (2 + _COPIES)
                      + float(s.samples) * s.repeats * n * _FLOAT,
                      f"{s.repeats} samples of {m_all} runs × {n} topics")  # fmt: skip
        topics = max(s.topics_scale) * n
        refuse_memory("--samples", s.samples,
                      float(s.samples) * (2 * topics + _COPIES * m_all) * _FLOAT,
                      f"{s.samples} bootstrap samples of {topics} topics")  # fmt: skip
        refuse_work("--samples", s.samples,
                    float(s.samples) ** 2 * m_all * (m_all - 1) / 2 * 4 * len(s.budgets)
                    * len(s.topics_scale) * (len(s.methods) + 1) * 2,
                    f"Δ over {s.samples}² pairs of rankings of {m_all} runs, per cell")  # fmt: skip
    if command == "rankings":
        topics = s.topics or n
        need = float(s.samples) * (2 * topics + _COPIES * m) * _FLOAT
        # blame --topics when the default n′ = n would have fitted
        fits_with_n = float(s.samples) * (2 * n + _COPIES * m) * _FLOAT <= memory_limit()
        by_topics = s.topics is not None and fits_with_n
        option, value = ("--topics", topics) if by_topics else ("--samples", s.samples)
        refuse_memory(option, value, need, f"{s.samples} bootstrap samples of {topics} topics")
        pairs = m * (m - 1) / 2
        refuse_work("--samples", s.samples, float(s.samples) ** 2 * pairs * 4,
                    f"Δ over {s.samples}² pairs of rankings of {m} runs")  # fmt: skip
