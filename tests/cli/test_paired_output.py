"""`analyze --compare`'s printout says in one line where a test and the interval beside it
fall on different sides of 0.05 (the exact McNemar test beside the interval of the
corrected one; the bootstrap beside the stratified t), and names the rows."""

from bounded.analysis.paired import MeanComparison, PairedComparison, WinComparison
from bounded.cli._paired import disagreements


def wins(block, p_value, exact_p):
    return WinComparison(
        block=block, pairs=12, both=0, only_a=6, only_b=0, neither=6, rate_a=0.5, rate_b=0.0,
        difference=0.5, low=0.1, high=0.8, p_value=p_value, exact_p=exact_p,
    )  # fmt: skip


def means(block, p_value, low, high):
    return MeanComparison(
        block=block, metric="progress", pairs=12, mean_a=50.0, mean_b=40.0, difference=10.0,
        low=-1.0, high=21.0, p_value=p_value, bootstrap_low=low, bootstrap_high=high,
    )  # fmt: skip


def test_only_rows_where_a_test_and_its_neighbour_disagree_are_named():
    agreeing = PairedComparison(
        a="A", b="B", pairs=24, blocks=["goto", "pickup"], wins=wins(None, 0.01, 0.02),
        block_wins=[wins("goto", 0.04, 0.06), wins("pickup", 0.2, 0.3)],
        means=[means(None, 0.08, -1.0, 21.0)], block_means=[means("goto", 0.03, 2.0, 18.0)],
    )  # fmt: skip
    lines = disagreements([agreeing])
    assert len(lines) == 1 and "exact McNemar test" in lines[0]
    assert lines[0].endswith("(where they disagree: A vs B goto)")
    agreeing.means = [means(None, 0.08, 0.5, 20.0)]
    lines = disagreements([agreeing])
    assert len(lines) == 2 and "bootstrap interval" in lines[1]
    assert lines[1].endswith("(where they disagree: A vs B progress all blocks)")
