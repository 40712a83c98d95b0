import math

import pytest

from bounded.analysis.stats import (
    bootstrap_difference_interval,
    bootstrap_mean_interval,
    clopper_pearson_interval,
    fisher_exact_p,
    linear_slope,
    percent_change,
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


def test_difference_bootstrap_resamples_each_cell_on_its_own():
    import numpy as np

    a = [17.0, 48.3, 100.0, 82.7, 100.0, 41.3, 100.0, 82.7, 100.0, 50.3]
    b = [100.0, 48.3, 100.0, 100.0, 82.7, 41.3, 100.0, 100.0, 82.7, 17.0]
    low, high = bootstrap_difference_interval(a, b, resamples=20_000, seed=1)
    assert (low, high) == bootstrap_difference_interval(a, b, resamples=20_000, seed=1)
    assert low < sum(a) / 10 - sum(b) / 10 < high
    # The same statistic by an explicit independent resampler agrees within Monte Carlo noise.
    rng = np.random.default_rng(7)
    x, y = np.array(a), np.array(b)
    draws = x[rng.integers(0, 10, (20_000, 10))].mean(1)
    draws -= y[rng.integers(0, 10, (20_000, 10))].mean(1)
    assert (low, high) == pytest.approx(tuple(np.percentile(draws, [2.5, 97.5])), abs=0.8)


def test_difference_bootstrap_is_not_paired():
    a = [10.0, 20.0, 30.0, 40.0, 50.0]
    shifted = [v - 5 for v in a]  # paired differences are all 5: a paired bootstrap is [5, 5]
    low, high = bootstrap_difference_interval(a, shifted)
    assert low < 0 < 5 < high
    assert bootstrap_difference_interval([3, 3], [1, 1, 1]) == (2.0, 2.0)
    assert all(math.isnan(v) for v in bootstrap_difference_interval([1.0], [1.0, 2.0]))


def test_percent_change():
    assert percent_change(14.6, 26.933333) == pytest.approx(84.47, abs=0.01)
    assert percent_change(50, 25) == -50.0
    assert percent_change(0, 10) is None


def test_the_mean_interval_is_the_same_drawn_in_batches(monkeypatch):
    """The resamples are drawn a batch at a time (bounded memory for a cell of thousands of
    games), and the seeded interval is scipy's unbatched one."""
    import numpy as np
    from scipy import stats as scipy_stats

    from bounded.analysis import stats as ours

    values = np.random.default_rng(3).normal(size=101).tolist()
    whole = scipy_stats.bootstrap(
        (np.asarray(values),), np.mean, n_resamples=2000, method="percentile",
        rng=np.random.default_rng(ours.BOOTSTRAP_SEED),
    ).confidence_interval  # fmt: skip
    monkeypatch.setattr(ours, "BOOTSTRAP_BATCH_VALUES", 101 * 7)  # 7 resamples a batch
    batched = ours.bootstrap_mean_interval(values, resamples=2000)
    assert batched == (float(whole.low), float(whole.high))
