"""The score plot's points: at most `SCORE_POINTS` a row, evenly spaced, and said so."""

from __future__ import annotations

import re

from bounded.report.plots import SCORE_POINTS, drawn_points, score_plot

GAME_MARKER = re.compile(r"<use [^>]*fill: #ff7f0e")
"""A game's point in the SVG (tab:orange; ticks and glyphs are `<use>` elements too)."""


def test_a_row_within_the_bound_draws_every_game():
    values = [float(v) for v in range(SCORE_POINTS)]
    assert drawn_points(values) == (values, 1)


def test_a_longer_row_draws_every_kth_game_within_the_bound():
    values = [float(v) for v in range(2 * SCORE_POINTS + 1)]  # k = 3: 2 would draw 201
    drawn, step = drawn_points(values)
    assert step == 3
    assert list(drawn) == values[::3]
    assert len(drawn) <= SCORE_POINTS


def test_the_plot_draws_the_sample_and_names_it():
    uniform = [float(v % 100) for v in range(1000)]  # no outliers: every marker is a game
    few = score_plot(["a"], [uniform[:10]])
    many = score_plot(["a"], [uniform])
    assert len(GAME_MARKER.findall(few)) == 10
    assert "evenly spaced" not in few
    assert len(GAME_MARKER.findall(many)) == SCORE_POINTS
    assert f"at most {SCORE_POINTS} a row, evenly spaced" in many
