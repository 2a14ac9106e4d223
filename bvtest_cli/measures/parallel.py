"""One way to spread per-item work over processes, for every stage that needs it.

``parallel_map(items, make_work, jobs=...)`` applies ``make_work()`` — built
once in each worker process, so that large state such as an evaluator over
the qrels or the runs already in memory is not sent with every task — to
every item, and returns the results in input order, so that they never
depend on the number of jobs. With the ``fork`` start method the workers
inherit ``make_work`` and whatever it refers to without pickling.

``map_runs(sources, make_work, ...)`` is the same over run files: each worker
reads its own runs (each once) and sends back only what ``make_work()`` makes
of them.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from multiprocessing import get_all_start_methods, get_context
from typing import Any

from ..errors import discard_stderr
from ..io.sources import STDIN, InMemory, Source
from ..io.trec import read_run
from ..process import keep_freed_memory, one_blas_thread

Work = Callable[[Any], Any]
_work: Work | None = None


def default_jobs() -> int:
    """The cores this process may use."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def _init(make_work: Callable[[], Work]) -> None:
    global _work
    one_blas_thread()
    _work = make_work()


def _apply(item: Any) -> Any:
    assert _work is not None
    try:
        return _work(item)
    except Exception as exc:  # sent back, raised by parallel_map in the parent
        return exc


def parallel_map(
    items: Sequence[Any],
    make_work: Callable[[], Work],
    *,
    jobs: int = 1,
    tick: Callable[[], None] = lambda: None,
    meanwhile: Callable[[], None] | None = None,
) -> list[Any]:
    """``[make_work()(item) for item in items]``, on up to ``jobs`` processes.

    ``meanwhile``, if given, runs in a thread of this process while the
    workers work (only with ``jobs > 1``; it is started after they are forked,
    so no worker inherits a half-done import), for what the caller will need
    next and would otherwise do after them, alone; its errors are ignored (the
    caller meets them again when it does the work itself).

    A result that is an exception is raised (the first one in input order),
    and the remaining work is cancelled; a worker's own exception is sent
    back as such a result (pickled with its own fields: an InputError keeps
    its file and line).
    ``tick`` is called once per finished item, in order.
    """
    results: list[Any] = []
    if jobs > 1 and len(items) > 1:
        workers = min(jobs, len(items))
        ctx = get_context("fork" if "fork" in get_all_start_methods() else None)
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init, initargs=(make_work,)
        ) as pool:
            chunksize = _chunksize(len(items), workers)
            results_iter = pool.map(_apply, items, chunksize=chunksize)  # forks the workers
            helper = None
            if meanwhile is not None:
                helper = threading.Thread(target=_quietly, args=(meanwhile,), daemon=True)
                helper.start()
            for result in results_iter:
                if isinstance(result, Exception):
                    pool.shutdown(cancel_futures=True)
                    raise result
                results.append(result)
                tick()
            if helper is not None:
                helper.join()
        return results
    work = make_work()
    for item in items:
        result = work(item)
        if isinstance(result, Exception):
            raise result
        results.append(result)
        tick()
    return results


def _quietly(task: Callable[[], None]) -> None:
    with contextlib.suppress(Exception):  # see parallel_map: the caller meets it again
        task()


def _chunksize(n_items: int, workers: int) -> int:
    """Items sent to a worker at a time: batches cut the per-task round trips,
    yet stay small (about 16 batches per worker, at most 8 items each) so that
    the workers finish together."""
    return max(1, min(8, n_items // (16 * workers)))


def progress(total: int, quiet: bool, what: str = "evaluating runs") -> Callable[[], None]:
    """A counter on stderr while runs are evaluated (or ``what`` is done),
    only on a terminal."""
    if quiet or total < 2 or sys.stderr is None or not sys.stderr.isatty():
        return lambda: None
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        end = "\n" if done == total else ""
        try:
            sys.stderr.write(f"\rbvtest: {what} {done}/{total}{end}")
            sys.stderr.flush()
        except (OSError, ValueError):  # best-effort, as every diagnostic
            discard_stderr()

    return tick


# ---------------------------------------------------------------------------
# Reading and processing many runs, in parallel

RunWork = Callable[[int, Any], Any]  # (index of the run among the inputs, run as read) → result


def _read_then(
    make_work: Callable[[], RunWork],
    reader: Callable[[Source], Any],
    sources: Sequence[Source],
) -> Callable[[int], Any]:
    work = make_work()

    def task(index: int) -> Any:
        return work(index, reader(sources[index]))

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
    if "fork" not in get_all_start_methods() and any(isinstance(s.path, InMemory) for s in sources):
        jobs = 1  # runs in memory reach workers only by fork (they are not pickled)
    keep_freed_memory()  # inherited by the workers: runs are parsed without page faults
    # the workers get the sources with make_work (inherited by fork), the tasks
    # only their indices: a run in memory is never pickled
    return parallel_map(
        range(len(sources)), partial(_read_then, make_work, reader, sources),
        jobs=jobs, tick=tick, meanwhile=meanwhile,
    )  # fmt: skip
