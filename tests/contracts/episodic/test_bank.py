"""The episodic bank: flattening, Eq. 1-3 retrieval on hand-made banks, files, collection."""

from __future__ import annotations

import numpy as np
import pytest

from bounded.contracts._features import flatten_state
from bounded.contracts.episodic.bank import (
    BankEntry,
    BankError,
    EpisodicBank,
    minmax,
    rank_window,
)
from bounded.core import Action


def entry(t: float, features: dict[str, float], action: str, game: int = 0, step: int = 0):
    return BankEntry(t=t, features=features, actions=[Action(id=action)], game=game, step=step)


@pytest.fixture
def small_bank() -> EpisodicBank:
    return EpisodicBank.from_entries(
        [
            entry(10, {"x": 1, "y": 2}, "A", step=1),
            entry(10, {"x": 1, "y": 5}, "B", step=2),
            entry(10, {"x": 4, "y": 2, "z": 1}, "C", step=3),
            entry(11, {"x": 1, "y": 3}, "D", step=4),
            entry(5, {"x": 1, "y": 3}, "E", step=0),
        ]
    )


def ids(hits) -> list[str]:
    return [hit.actions[0].id for hit in hits]


# -- flattening ----------------------------------------------------------------


def test_flatten_keeps_numbers_nests_dicts_and_counts_lists() -> None:
    state = {
        "minerals": 50,
        "ok": True,
        "hero": {"hp": 40, "name": "x"},
        "deck": ["a", "b"],
        "where": "middle",
        "nothing": None,
        "bad": float("nan"),
    }
    assert flatten_state(state) == {"minerals": 50.0, "ok": 1.0, "hero.hp": 40.0, "deck.len": 2.0}


# -- Eq. 1-3 ---------------------------------------------------------------------


def test_minmax_normalises_and_maps_equal_values_to_zero() -> None:
    assert minmax(np.array([2.0, 4.0, 6.0])).tolist() == [0.0, 0.5, 1.0]
    assert minmax(np.array([3.0, 3.0])).tolist() == [0.0, 0.0]
    assert minmax(np.array([])).size == 0


def test_distances_and_ranking_match_the_equations(small_bank: EpisodicBank) -> None:
    hits = small_bank.retrieve({"x": 1, "y": 3}, 10, n=3)
    assert ids(hits) == ["A", "B", "C"]
    assert [h.d_item for h in hits] == [1, 1, 3]
    assert [h.d_value for h in hits] == [1.0, 2.0, 5.0]
    # D_item normalised: 0, 0, 1; D_value normalised: 0, 0.25, 1.
    assert [h.score for h in hits] == pytest.approx([0.0, 0.125, 1.0])


def test_weights_change_the_ranking_and_ties_keep_bank_order(small_bank: EpisodicBank) -> None:
    by_items = small_bank.retrieve({"x": 1, "y": 3}, 10, alpha=1.0, beta=0.0)
    assert ids(by_items) == ["A", "B", "C"]
    assert by_items[0].score == by_items[1].score == 0.0
    query = {"x": 1, "y": 6}  # B is the closest by value, A and C tie on items
    assert ids(small_bank.retrieve(query, 10, alpha=0.0, beta=1.0, n=1)) == ["B"]


def test_top_n_cuts_the_ranking(small_bank: EpisodicBank) -> None:
    assert ids(small_bank.retrieve({"x": 1, "y": 3}, 10, n=1)) == ["A"]
    assert len(small_bank.retrieve({"x": 1, "y": 3}, 10, n=10)) == 3


def test_time_window_is_inclusive_and_exact_by_default(small_bank: EpisodicBank) -> None:
    assert ids(small_bank.retrieve({"x": 1, "y": 3}, 11)) == ["D"]
    assert small_bank.retrieve({"x": 1, "y": 3}, 10.5) == []
    assert set(ids(small_bank.retrieve({"x": 1, "y": 3}, 10.5, t_delta=0.5, n=5))) == {
        "A",
        "B",
        "C",
        "D",
    }
    assert set(ids(small_bank.retrieve({}, 7.5, t_delta=2.5, n=5))) == {"A", "B", "C", "E"}


def test_empty_window_and_empty_bank_return_nothing(small_bank: EpisodicBank) -> None:
    assert small_bank.retrieve({"x": 1}, 100, t_delta=10) == []
    assert EpisodicBank.empty().retrieve({"x": 1}, 0) == []


def test_all_equal_candidates_score_zero_in_bank_order() -> None:
    bank = EpisodicBank.from_entries(
        [entry(0, {"x": 2}, name, game=g) for g, name in enumerate("PQR")]
    )
    hits = bank.retrieve({"x": 9}, 0, n=3)
    assert ids(hits) == ["P", "Q", "R"]
    assert [h.score for h in hits] == [0.0, 0.0, 0.0]
    assert [h.d_value for h in hits] == [7.0, 7.0, 7.0]


def test_missing_keys_count_as_zero_on_either_side() -> None:
    bank = EpisodicBank.from_entries([entry(0, {"a": 1}, "A"), entry(0, {"b": 2}, "B")])
    hits = bank.retrieve({"a": 1, "new": 3}, 0, n=2)
    assert ids(hits) == ["A", "B"]
    # A: only `new` differs (3); B: a, b and new differ (1 + 2 + 3).
    assert [(h.d_item, h.d_value) for h in hits] == [(1, 3.0), (3, 6.0)]


def test_partial_selection_is_stable_at_the_cut() -> None:
    values = np.array([[5.0], [1.0], [5.0], [5.0], [9.0]], dtype=np.float32)
    ranking = rank_window(values, np.array([0.0], dtype=np.float32), n=2, alpha=0.0, beta=1.0)
    assert ranking.order.tolist() == [1, 0]


def reference_ranking(rows, query, alpha, beta, n):
    """Eq. 1-3 written out with plain Python, for comparison."""
    items = [sum(1 for r, q in zip(row, query, strict=True) if r != q) for row in rows]
    values = [sum(abs(r - q) for r, q in zip(row, query, strict=True)) for row in rows]

    def norm(xs):
        low, high = min(xs), max(xs)
        return [0.0 if high == low else (x - low) / (high - low) for x in xs]

    score = [alpha * i + beta * v for i, v in zip(norm(items), norm(values), strict=True)]
    return sorted(range(len(rows)), key=lambda p: (score[p], p))[:n]


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_ranking_matches_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 4, size=(200, 6)).astype(np.float32)
    query = rng.integers(0, 4, size=6).astype(np.float32)
    alpha, beta = float(rng.uniform()), float(rng.uniform())
    ranking = rank_window(rows, query, n=7, alpha=alpha, beta=beta)
    expected = reference_ranking(rows.tolist(), query.tolist(), alpha, beta, 7)
    assert ranking.order.tolist() == expected


# -- files and hashes -----------------------------------------------------------


def test_save_and_load_round_trip_with_the_same_hash(tmp_path, small_bank: EpisodicBank) -> None:
    path = tmp_path / "bank.npz"
    stored = small_bank.save(path)
    loaded = EpisodicBank.load(path)
    assert stored == small_bank.content_hash == loaded.content_hash
    assert loaded.keys == small_bank.keys
    assert ids(loaded.retrieve({"x": 1, "y": 3}, 10)) == ["A", "B", "C"]


def test_hash_follows_content(small_bank: EpisodicBank) -> None:
    other = EpisodicBank.from_entries([entry(10, {"x": 1, "y": 2}, "A")])
    assert other.content_hash != small_bank.content_hash
    same = EpisodicBank.from_entries([entry(10, {"x": 1, "y": 2}, "A")])
    assert other.content_hash == same.content_hash


def test_altered_or_missing_file_is_refused(tmp_path, small_bank: EpisodicBank) -> None:
    path = tmp_path / "bank.npz"
    small_bank.save(path)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["times"] = arrays["times"] + 1
    np.savez(path, **arrays)
    with pytest.raises(BankError, match="hash mismatch"):
        EpisodicBank.load(path)
    with pytest.raises(BankError, match="not found"):
        EpisodicBank.load(tmp_path / "absent.npz")


def test_entries_keep_actions_with_arguments() -> None:
    report = Action(id="report", args={"occupied": 2, "shipped": 1})
    bank = EpisodicBank.from_entries([BankEntry(t=0, features={"a": 1}, actions=[report])])
    assert bank.retrieve({"a": 1}, 0)[0].actions == [report]
    assert bank.entry(0).actions == [report]


def test_d_value_reads_as_a_sum_or_as_a_count_of_changed_values() -> None:
    rows = np.array([[1.0, 1.0, 9.0], [4.0, 2.0, 3.0], [1.0, 2.0, 3.0]], dtype=np.float32)
    query = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    # |row - query|: row 0 (0, 1, 6): 2 changed, sum 7; row 1 (3, 0, 0): 1, 3; row 2: 0, 0.
    summed = rank_window(rows, query, n=3, alpha=0.5, beta=0.5)
    assert summed.d_item.tolist() == [2, 1, 0]
    assert summed.d_value.tolist() == [7.0, 3.0, 0.0]
    counted = rank_window(rows, query, n=3, alpha=0.5, beta=0.5, d_value="count")
    assert counted.d_value.tolist() == [2.0, 1.0, 0.0]
    # min-max: sum reading 0.5*(2/2) + 0.5*(7/7) = 1, 0.5*(1/2) + 0.5*(3/7), 0;
    # count reading 1, 0.5*(1/2) + 0.5*(1/2) = 0.5, 0.
    assert summed.score.tolist() == pytest.approx([1.0, 0.25 + 0.5 * 3 / 7, 0.0])
    assert counted.score.tolist() == pytest.approx([1.0, 0.5, 0.0])
