"""Layer budgets: k items of s tokens, enforced, with what was cut recorded."""

from hypothesis import given
from hypothesis import strategies as st

from bounded.core import approx_tokens
from bounded.stores.budget import ELLIPSIS, LayerBudget, clip_text, fit_block, fit_items


def test_clip_leaves_short_text_alone():
    assert clip_text("three small words", 5) == ("three small words", 0)


def test_clip_cuts_to_the_limit_and_marks_the_cut():
    text, dropped = clip_text("one two three four five six", 4)
    assert text == "one two three" + ELLIPSIS
    assert approx_tokens(text) == 4
    assert dropped == 3


def test_fit_items_keeps_k_items_and_records_the_rest():
    budget = LayerBudget(items=2, tokens=10)
    lines, cut = fit_items("L4", ["alpha", "beta", "gamma"], budget)
    assert lines == ["- alpha", "- beta"]
    assert cut is not None
    assert (cut.layer, cut.offered, cut.kept, cut.clipped) == ("L4", 3, 2, 0)
    assert cut.dropped_tokens == approx_tokens("- gamma")


def test_fit_items_records_nothing_when_everything_fits():
    lines, cut = fit_items("L5", ["a b c"], LayerBudget(items=3, tokens=10))
    assert lines == ["- a b c"] and cut is None


def test_fit_items_clips_long_items():
    lines, cut = fit_items("L3", ["word " * 50], LayerBudget(items=1, tokens=8))
    assert approx_tokens(lines[0]) == 8
    assert cut is not None and cut.clipped == 1 and cut.kept == 1


def test_fit_block_reports_a_cut_state():
    text, cut = fit_block("L2", "x " * 100, 20)
    assert approx_tokens(text) <= 20
    assert cut is not None and cut.dropped_tokens == 100 - 19


@given(
    items=st.lists(st.text(max_size=300), max_size=30),
    k=st.integers(min_value=0, max_value=10),
    s=st.integers(min_value=4, max_value=60),
)
def test_a_layer_never_exceeds_k_times_s(items, k, s):
    budget = LayerBudget(items=k, tokens=s)
    lines, _ = fit_items("L4", items, budget)
    assert len(lines) <= k
    assert all(approx_tokens(line) <= s for line in lines)
    assert approx_tokens("\n".join(lines)) <= budget.capacity
