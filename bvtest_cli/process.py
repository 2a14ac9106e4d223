"""What bvtest asks of the C libraries under it for speed: BLAS on one
thread in the workers of a process pool, glibc's freed memory kept for
reuse. Best effort (nothing happens where the library is not there); no
result depends on them. Standard library only, so that any layer may call
them without importing numpy.
"""

from __future__ import annotations

#: The thread-count setters of the BLAS libraries numpy is built with.
_BLAS_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
    "MKL_Set_Num_Threads",
)


def one_blas_thread() -> None:
    """Let this (worker) process's BLAS use one thread: the pool already puts
    a process on every core, and BLAS threads beyond the cores spin while
    they wait (measured on budget's bootstrap cells: a third of their CPU).
    Best effort: the BLAS library mapped into the process (Linux), else
    nothing. Results do not depend on it (the products that must be exact
    are, whatever the threads: analyses/rankings.py)."""
    import ctypes

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "blas" in line or "mkl_rt" in line}
    except OSError:
        return
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _BLAS_SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(ctypes.c_int(1))
                return


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_KEEP_FREED = 1 << 25  # 32 MiB: glibc's largest mmap threshold on 64-bit systems


def keep_freed_memory() -> None:
    """Let this process (and the workers it forks) reuse the memory it frees
    (glibc's mallopt; nothing elsewhere). Parsing a run allocates and frees a
    dozen arrays of a few MB; by default glibc maps each afresh and unmaps it
    when freed, or trims the heap above 2x its last such size, so every array
    is paid again in page faults: about a third of the CPU of evaluating a
    TREC-8-size run. Arrays up to 32 MiB now come from the heap, and the heap
    keeps up to 32 MiB of free memory at its top."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, _KEEP_FREED)
        libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_FREED)
    except (OSError, AttributeError):
        pass
