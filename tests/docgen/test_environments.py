"""The environments' calibration tables from small files."""

from __future__ import annotations

from bounded.docgen.environments import (
    craft_win_rates,
    spire_expert_calibration,
    textworld_first_game,
)


def test_craft_win_rate_per_style_and_over_all_styles():
    record = {"timing": (2, 2), "rush": (1, 2), "power": (0, 2), "macro": (2, 2), "air": (1, 2)}
    cells = [
        {"level": 1, "style": style, "wins": wins, "games": games, "win_rate": wins / games}
        for style, (wins, games) in record.items()
    ]
    assert craft_win_rates({"cells": cells}) == (
        "| level | timing | rush | power | macro | air | all |\n"
        "|---|---|---|---|---|---|---|\n"
        "| 1 | 1.00 | 0.50 | 0.00 | 1.00 | 0.50 | 0.60 |\n"
    )


def test_the_expert_per_ascension_and_the_random_player_in_one_row():
    cells = [
        {"player": "expert", "ascension": 0, "win_rate": 0.5, "win_rate_ci95": [0.3, 0.7],
         "mean_floor": 40.0},
        {"player": "random", "ascension": 0, "win_rate": 0.0, "win_rate_ci95": [0.0, 0.1],
         "mean_floor": 10.0},
        {"player": "random", "ascension": 5, "win_rate": 0.0, "win_rate_ci95": [0.0, 0.1],
         "mean_floor": 8.5},
    ]  # fmt: skip
    assert spire_expert_calibration({"cells": cells}) == (
        "| player | ascension | win rate | 95% CI | mean floor |\n"
        "|---|---|---|---|---|\n"
        "| expert | 0 | 50.0% | 30.0-70.0% | 40.0 |\n"
        "| random | 0 / 5 | 0% | | 8.5-10.0 |\n"
    )


def test_a_textworld_game_that_failed_to_start_says_why():
    rows = [
        {"task": "coin", "seed": 1, "shipped": True,
         "cold": {"first_observation_s": 0.456, "reset_s": 0.3, "cpu_s": 0.4},
         "warm": {"first_observation_s": 0.1}},
        {"task": "cook", "seed": 2, "shipped": False, "cold": {"error": "no game"}, "warm": None},
    ]  # fmt: skip
    data = {"rows": rows, "shipped_games": 3, "archive_bytes": 12345, "target_s": 2}
    assert textworld_first_game(data).split("\n")[1:8] == [
        "|---|---:|---|---:|---:|---:|---:|",
        "| coin | 1 | shipped | **0.46** | 0.30 | 0.10 | 0.40 |",
        "| cook | 2 | generated | no game | | | |",
        "",
        "3 games shipped (12,345 bytes of xz); target under 2 s.",
        "",
        "Provenance: not recorded (the file predates it).",
    ]
