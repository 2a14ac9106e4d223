"""Hashes of (topic, docno) pairs for numeric sorts and lookups of docnos.

Docnos stay bytes (a numpy ``S`` array, whose order is trec_eval's strcmp
order); every hash match is checked against the bytes, so a collision can
never change a result.
"""

from __future__ import annotations

import numpy as np

_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
_HASH_MIX = np.uint64(0xBF58476D1CE4E5B9)


def docno_words(docnos: np.ndarray, dtype: str = ">u8") -> np.ndarray:
    """(rows, words) uint64 view of an ``S`` array, NUL-padded to a multiple of
    8 bytes. Big-endian (the default), lexicographic order of the rows is byte
    order of the docnos (a shorter docno is a prefix padded with NULs, which
    sort first); ``"<u8"`` is the machine's own order, for hashing."""
    width = docnos.dtype.itemsize
    words = -(-width // 8)
    if width != 8 * words:
        docnos = docnos.astype(f"S{8 * words}")
    return np.ascontiguousarray(docnos).view(dtype).reshape(docnos.size, words)


def docno_digest(docnos: np.ndarray, seed: int = 0) -> np.ndarray:
    """A 64-bit hash of each docno's bytes: the docno's part of a
    :func:`pair_key`, computed once per run and shared by its duplicate check
    and its qrels lookups. Zero words are padding (a docno holds no NUL), so
    the digest does not depend on the array's width."""
    if docnos.size > HASH_BLOCK:
        # Block by block: the padded docno words and the mixing temporaries of
        # 12 M qrels lines would otherwise cost several times the result.
        out = np.empty(docnos.size, dtype=np.uint64)
        for lo in range(0, docnos.size, HASH_BLOCK):
            out[lo : lo + HASH_BLOCK] = docno_digest(docnos[lo : lo + HASH_BLOCK], seed)
        return out
    h = np.full(docnos.size, (seed * int(_HASH_MUL)) % 2**64, dtype=np.uint64)
    for j, word in enumerate(docno_words(docnos, "<u8").T):
        mixed = (h ^ word) * _HASH_MIX
        mixed ^= mixed >> np.uint64(31)
        if j == 0:  # a docno's first byte is not NUL: the first word is never padding
            h = mixed
        else:
            np.copyto(h, mixed, where=word != 0)
    return h


def pair_key(topic: np.ndarray, digest: np.ndarray) -> np.ndarray:
    """The 64-bit key of each (topic index, docno digest) pair: one for a
    topic and a docno, different keys for different topics of one docno
    (the mix is a bijection of each argument)."""
    key = topic.astype(np.uint64)  # in place from here: one temporary, not five
    key *= _HASH_MUL
    key ^= digest
    key *= _HASH_MIX
    key ^= key >> np.uint64(31)
    return key


def docno_hash(topic: np.ndarray, docnos: np.ndarray, seed: int = 0) -> np.ndarray:
    """The :func:`pair_key` of (topic index, docno) per row, block by block:
    the temporaries of 12 M qrels lines would otherwise be fresh memory that
    the kernel zeroes, several times the size of the result."""
    if topic.size <= HASH_BLOCK:
        return pair_key(topic, docno_digest(docnos, seed))
    out = np.empty(topic.size, dtype=np.uint64)
    for lo in range(0, topic.size, HASH_BLOCK):
        hi = lo + HASH_BLOCK
        out[lo:hi] = pair_key(topic[lo:hi], docno_digest(docnos[lo:hi], seed))
    return out


def sort_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order, key[order]): an argsort of 64-bit hashes (equal keys adjacent,
    in no particular order), as one plain sort of the keys with the row
    number in their low bits, twice as fast as numpy's argsort on millions of
    rows. The few rows whose keys agree on the remaining high bits (about
    n**2 / 2**(65 - bits) pairs) are then ordered by their full keys."""
    n = key.size
    bits = max(1, (n - 1).bit_length())
    if n < 1 << 16:
        order = np.argsort(key, kind="stable")
        return order, key[order]
    low = np.uint64((1 << bits) - 1)
    packed = key & ~low
    # Block by block, here and below: no temporary of n rows (fresh memory).
    for lo in range(0, n, HASH_BLOCK):
        packed[lo : lo + HASH_BLOCK] |= np.arange(lo, min(lo + HASH_BLOCK, n), dtype=np.uint64)
    packed.sort()
    # Neighbours whose order the row numbers decided: the same high bits, so
    # their exclusive or is within the low bits.
    tied = np.empty(n - 1, dtype=bool)
    for lo in range(0, n - 1, HASH_BLOCK):
        hi = min(lo + HASH_BLOCK, n - 1)
        np.less_equal(packed[lo + 1 : hi + 1] ^ packed[lo:hi], low, out=tied[lo:hi])
    packed &= low
    order = packed.view(np.int64)  # row numbers < 2**63
    sorted_key = key[order]
    rows = np.flatnonzero(tied)
    if rows.size:
        rows = np.union1d(rows, rows + 1)  # both sides of each tie (runs are adjacent)
        starts = np.ones(rows.size, dtype=bool)  # a run of ties starts after a gap
        starts[1:] = ~tied[rows[1:] - 1]
        run = np.cumsum(starts)
        within = np.lexsort((sorted_key[rows], run))
        order[rows] = order[rows[within]]
        sorted_key[rows] = sorted_key[rows[within]]
    return order, sorted_key


def same_bytes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a == b`` for two ``S`` arrays, compared 8 bytes at a time when both
    have the same width, a multiple of 8 (numpy compares strings bytewise)."""
    width = a.dtype.itemsize
    contiguous = a.flags.c_contiguous and b.flags.c_contiguous
    if width != b.dtype.itemsize or width % 8 or not contiguous:
        return a == b
    wa, wb = a.view(np.uint64).reshape(-1, width // 8), b.view(np.uint64).reshape(-1, width // 8)
    same = wa[:, 0] == wb[:, 0]
    for j in range(1, width // 8):
        same &= wa[:, j] == wb[:, j]
    return same


HASH_BLOCK = 1 << 20  # rows hashed at a time (element-wise: the blocks do not interact)


def has_duplicate_pairs(topic: np.ndarray, docno: np.ndarray, digest: np.ndarray) -> bool:
    """Whether a (topic, docno) pair occurs twice (``digest``: the docnos')."""
    keys = pair_key(topic, digest)
    # Equal pairs have equal hashes, so they fall in the same of ~8n buckets
    # (at most 2**21, 16 MB of counts: a large run sorts more, not a larger
    # temporary): only the rows that share a bucket (a tenth of them) are
    # sorted, and rows are looked at only if two hashes are equal (a
    # duplicate, or rarely a collision).
    bits = min(max(1, (keys.size - 1).bit_length() + 3), 21)
    bucket = (keys >> np.uint64(64 - bits)).astype(np.intp)
    crowded = np.flatnonzero(np.bincount(bucket, minlength=1 << bits)[bucket] > 1)
    if crowded.size == 0:
        return False
    keys = keys[crowded]
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return False
    order = np.argsort(keys)
    keys = keys[order]
    same = np.flatnonzero(keys[1:] == keys[:-1])
    # equal hashes: equal pairs, or a collision
    return any_same_pair(topic, docno, crowded[order[same]], crowded[order[same + 1]])


def any_same_pair(topic: np.ndarray, docno: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether some rows a[i], b[i] (of equal hashes) hold the same (topic, docno)."""
    return bool(((topic[a] == topic[b]) & same_bytes(docno[a], docno[b])).any())


def joined_column(column: np.ndarray | list[np.ndarray]) -> np.ndarray:
    """A column given as parts, concatenated; the list is emptied (its parts freed)."""
    if isinstance(column, np.ndarray):
        return column
    joined = np.concatenate(column)
    column.clear()
    return joined
