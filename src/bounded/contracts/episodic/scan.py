"""The candidate search of a wide retrieval window: a narrow byte scan that finds the few
rows Eq. 1-3 can rank first, so that the ranking itself runs on those rows only.

Exact Eq. 3 normalises each distance by its minimum and maximum over the whole window,
so every candidate's distances are needed: no exact search can skip rows. What can be
made small is the cost per row. When a bank's features are integers spanning at most
`BYTE_SPAN` values (counts, levels, flags; checked once per bank), `ByteColumns` keeps
them as bytes, one contiguous row per key, beside the float rows the ranking reads.
Over a window it computes both distances for every candidate in three vectorised byte
passes (the smaller of each pair and its sum, which with each row's precomputed sum
gives D_value; the differing keys, counted 8 candidates per word) instead of float
ones, then
keeps the rows that attain a distance's minimum or maximum and every row whose score
reaches the n-th smallest (ties included, with a margin for rounding). The ranking
(`episodic.rank_window`) then runs on those rows unchanged: with the window's minima and
maxima among them it gives every kept row the score it has in the whole window, and
ties keep bank order, so the result is identical to ranking the whole window. A query
the bytes cannot hold (a value outside the bank's span, or not an integer) is ranked
over the whole window as before.
"""

from __future__ import annotations

import numpy as np

BYTE_SPAN = 256
"""Integer features spanning at most this many values are kept as bytes."""
MIN_CANDIDATES = 2048
"""Below this many candidates the plain float scan is as fast: the byte scan is not used."""
SCORE_MARGIN = 1e-9
"""Rows within this of the n-th smallest score are kept too (rounding may differ in the
last place between this estimate and the ranking's own)."""
PAD = 8
"""Extra zero columns at the end, so that every window's byte block is a whole number of
8-byte words."""


class ByteColumns:
    """A bank's features as bytes, key by key (`offset` subtracted), for `candidates`."""

    def __init__(self, columns: np.ndarray, offset: float) -> None:
        self.columns = columns
        self.offset = offset
        self.row_sums = columns.sum(axis=0, dtype=np.int64)
        """Each row's sum of its byte features (padding included, which is zero)."""

    @classmethod
    def of(cls, values: np.ndarray) -> ByteColumns | None:
        """The byte form of float rows (entries x keys), or None when they do not fit."""
        if values.size == 0 or not np.isfinite(values).all():
            return None
        low, high = float(values.min()), float(values.max())
        if high - low >= BYTE_SPAN or not np.array_equal(values, np.round(values)):
            return None
        entries, keys = values.shape
        columns = np.zeros((keys, entries + PAD), dtype=np.uint8)
        columns[:, :entries] = (values - low).T.astype(np.uint8)
        return cls(columns, low)

    def query(self, vector: np.ndarray) -> np.ndarray | None:
        """The query as bytes, or None when it falls outside the bank's span."""
        shifted = vector.astype(np.float64) - self.offset
        if (shifted < 0).any() or (shifted >= BYTE_SPAN).any():
            return None
        if not np.array_equal(shifted, np.round(shifted)):
            return None
        return shifted.astype(np.uint8)[:, None]

    def distances(self, start: int, stop: int, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """D_item and D_value (Eq. 1-2) of rows start..stop against the byte query:
        D_value = sum(v) + sum(q) - 2 sum(min(v, q)), with sum(v) kept per row."""
        count = stop - start
        words = -(-count // PAD) * PAD
        block = self.columns[:, start : start + words]
        wide = np.uint16 if len(block) * (BYTE_SPAN - 1) < 2**16 else np.uint32
        # np.minimum has no fast path for a broadcast operand: spell the query out
        spelled = np.repeat(query, words, axis=1)
        shared = np.add.reduce(np.minimum(block, spelled), axis=0, dtype=wide)[:count]
        d_value = self.row_sums[start:stop] + int(query.sum()) - 2 * shared.astype(np.int64)
        differ = np.not_equal(block, query).view(np.uint8)
        d_item = np.zeros(count, dtype=np.int64)
        for first in range(0, len(block), 255):
            # 8 candidates per word, each one's count of differing keys in its own byte
            # (at most 255 keys at a time, so no byte carries into the next)
            part = np.ascontiguousarray(differ[first : first + 255]).view(np.uint64)
            d_item += np.add.reduce(part, axis=0).view(np.uint8)[:count]
        return d_item, d_value.astype(np.float64)


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    if high == low:
        return np.zeros(values.shape, dtype=np.float64)
    return (values - low) / (high - low)


def candidates(
    d_item: np.ndarray, d_value: np.ndarray, n: int, alpha: float, beta: float
) -> np.ndarray:
    """Positions (ascending) that hold each distance's minimum and maximum and every row
    scoring within `SCORE_MARGIN` of the n-th smallest Eq. 3 score."""
    score = alpha * _minmax(d_item.astype(np.float64)) + beta * _minmax(d_value)
    threshold = np.partition(score, n - 1)[n - 1] if score.size > n else score.max()
    keep = score <= threshold + SCORE_MARGIN
    for extreme in (d_item.argmin(), d_item.argmax(), d_value.argmin(), d_value.argmax()):
        keep[extreme] = True
    return np.flatnonzero(keep)


__all__ = ["BYTE_SPAN", "MIN_CANDIDATES", "ByteColumns", "candidates"]
