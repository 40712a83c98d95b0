"""The byte scan of wide retrieval windows: the same hits as ranking the whole window."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bounded.contracts.episodic.bank as episodic
from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, rank_window
from bounded.contracts.episodic.scan import ByteColumns, candidates
from bounded.core import Action


def random_bank(seed: int, size: int, keys: int, span: int, times: int) -> EpisodicBank:
    rng = np.random.default_rng(seed)
    low = int(rng.integers(-50, 50))
    entries = [
        BankEntry(
            t=float(rng.integers(0, times)),
            features={f"k{k}": float(low + rng.integers(0, span)) for k in range(keys)},
            actions=[Action(id=f"a{i % 3}")],
            game=i % 4,
            step=i,
        )
        for i in range(size)
    ]
    return EpisodicBank.from_entries(entries)


def whole_window(bank: EpisodicBank, features, t, t_delta, n, alpha, beta):
    """Today's scan: Eq. 1-3 over every row of the window."""
    rows = bank.window(t, t_delta)
    if rows.start >= rows.stop:
        return []
    vector, extra_item, extra_value = bank.query(features)
    ranking = rank_window(
        bank.values[rows], vector, n=n, alpha=alpha, beta=beta,
        extra_item=extra_item, extra_value=extra_value,
    )  # fmt: skip
    return [
        (rows.start + int(p), int(ranking.d_item[p]), float(ranking.d_value[p]),
         float(ranking.score[p]))
        for p in ranking.order
    ]  # fmt: skip


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    size=st.integers(1, 400),
    keys=st.integers(1, 300),
    span=st.sampled_from([1, 2, 5, 24, 256]),
    times=st.integers(1, 30),
    t_delta=st.sampled_from([0.0, 1.0, 3.0, 30.0, float("inf")]),
    n=st.integers(1, 6),
    alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
    unknown=st.booleans(),
)
def test_the_byte_scan_finds_exactly_what_the_whole_window_ranks(
    seed, size, keys, span, times, t_delta, n, alpha, unknown
):
    bank = random_bank(seed, size, keys, span, times)
    rng = np.random.default_rng(seed + 1)
    low = float(bank.values.min())
    features = {f"k{k}": float(low + rng.integers(0, span)) for k in range(keys)}
    if unknown:
        features["not-in-bank"] = 4.0
    t = float(rng.integers(0, times))
    old = episodic.MIN_CANDIDATES
    episodic.MIN_CANDIDATES = 1  # every window goes through the byte scan
    try:
        hits = bank.retrieve(features, t, t_delta=t_delta, n=n, alpha=alpha, beta=1 - alpha)
    finally:
        episodic.MIN_CANDIDATES = old
    got = [(h.index, h.d_item, h.d_value, h.score) for h in hits]
    assert got == whole_window(bank, features, t, t_delta, n, alpha, 1 - alpha)


def test_a_bank_or_query_that_bytes_cannot_hold_is_ranked_over_the_whole_window():
    assert ByteColumns.of(np.array([[0.5, 1.0]], dtype=np.float32)) is None  # not integers
    assert ByteColumns.of(np.array([[0.0], [300.0]], dtype=np.float32)) is None  # span > 256
    columns = ByteColumns.of(np.array([[10.0, 20.0], [12.0, 30.0]], dtype=np.float32))
    assert columns is not None and columns.offset == 10.0
    assert columns.query(np.array([9.0, 20.0])) is None  # below the bank's span
    assert columns.query(np.array([10.0, 20.5])) is None  # not an integer
    assert columns.query(np.array([10.0, 20.0])).ravel().tolist() == [0, 10]


def test_byte_distances_are_the_equations_distances():
    rng = np.random.default_rng(5)
    values = rng.integers(0, 200, size=(37, 300)).astype(np.float32)
    query = rng.integers(0, 200, size=300).astype(np.float32)
    columns = ByteColumns.of(values)
    assert columns is not None
    d_item, d_value = columns.distances(3, 37, columns.query(query))
    diff = np.abs(values[3:37].astype(np.float64) - query)
    assert d_item.tolist() == np.count_nonzero(diff, axis=1).tolist()
    assert d_value.tolist() == diff.sum(axis=1).tolist()


def test_candidates_hold_the_extremes_and_every_tie_of_the_last_place():
    d_item = np.array([3, 1, 1, 5, 1])
    d_value = np.array([10.0, 2.0, 2.0, 40.0, 2.0])
    # the three tied first places, and row 3, which holds both maxima
    assert candidates(d_item, d_value, 1, 0.5, 0.5).tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("size", [3000])
def test_a_wide_window_uses_the_byte_scan_and_agrees(size):
    bank = random_bank(11, size, 40, 24, 10)
    features = {f"k{k}": float(bank.values[0, k]) for k in range(40)}
    assert size >= episodic.MIN_CANDIDATES
    hits = bank.retrieve(features, 5.0, t_delta=30.0, n=3)
    assert isinstance(bank._bytes, ByteColumns)  # built on first use
    expected = whole_window(bank, features, 5.0, 30.0, 3, 0.5, 0.5)
    assert [(h.index, h.d_item, h.d_value, h.score) for h in hits] == expected
