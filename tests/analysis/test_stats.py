import math

import pytest

from bounded.analysis.stats import (
    bootstrap_mean_interval,
    clopper_pearson_interval,
    fisher_exact_p,
    linear_slope,
    wilson_interval,
)


def test_wilson_interval_matches_the_closed_form():
    low, high = wilson_interval(3, 10)
    z, p, n = 1.959963984540054, 0.3, 10
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert (round(100 * low, 1), round(100 * high, 1)) == (10.8, 60.3)


def test_clopper_pearson_edges_are_exact():
    low, high = clopper_pearson_interval(0, 5)
    assert low == 0.0
    assert high == pytest.approx(1 - 0.025 ** (1 / 5))
    low, high = clopper_pearson_interval(5, 5)
    assert (low, high) == (pytest.approx(0.025 ** (1 / 5)), 1.0)
    assert all(math.isnan(v) for v in clopper_pearson_interval(0, 0))


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = [10, 20, 35, 50, 100, 42, 17]
    first = bootstrap_mean_interval(values, seed=3)
    assert first == bootstrap_mean_interval(values, seed=3)
    assert first != bootstrap_mean_interval(values, seed=4)
    assert first[0] < sum(values) / len(values) < first[1]
    assert bootstrap_mean_interval([7.0]) == (7.0, 7.0)
    assert bootstrap_mean_interval([5, 5, 5]) == (5.0, 5.0)


def test_fisher_exact_two_sided():
    assert fisher_exact_p(3, 10, 6, 10) == pytest.approx(0.3698, abs=1e-4)
    assert fisher_exact_p(5, 10, 5, 10) == pytest.approx(1.0)
    assert fisher_exact_p(0, 10, 10, 10) < 1e-4


def test_linear_slope():
    assert linear_slope([0, 1, 2, 3], [5, 7, 9, 11]) == pytest.approx((2.0, 5.0))
    assert linear_slope([0], [4]) == (0.0, 4.0)
