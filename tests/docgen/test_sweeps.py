"""A sequential sweep against the fixed design, and the kill trials, from small files."""

from __future__ import annotations

from bounded.docgen.sweeps import kill_trials, sequential_against_fixed_design


def test_sequential_stops_against_the_fixed_design():
    data = {
        "summary": {
            "fixed_games_per_cell": 40, "sequential_mean_stop": 20,
            "sequential_median_stop": 20.0, "sequential_min_stop": 10, "sequential_max_stop": 30,
            "sequential_decided": 2 / 3, "intervals_covering_truth": 1.0,
            "fixed_games_per_cell_at_sequential_power": 35,
        },
        "fixed_design": {"predicted_power": 0.8},
        "replicates": [{"stopped_at": 10}, {"stopped_at": 20}, {"stopped_at": 30}],
        "replicates_done": 3,
    }  # fmt: skip
    # stops 10, 20, 30: sample variance 100, standard error 10 / sqrt(3) = 5.8
    assert sequential_against_fixed_design(data) == (
        "| | pairs per cell | decided | final interval covers the truth |\n"
        "|---|---|---|---|\n"
        "| fixed design (planned) | 40 | 80.0% (predicted) | |\n"
        "| until decided, mean | 20 (standard error 6) | 2 of 3 | 3 of 3 |\n"
        "| until decided, median (min, max) | 20 (10, 30) | | |\n"
        "| fixed design with the sequential sweeps' power | 35 | | |\n"
    )


def test_a_row_per_kill_trial_file_driver_or_ray():
    clean = {
        "interrupted_games": 2, "re_asked_decisions": 3,
        "trials_re_asking_more_than_their_interrupted_games": 0, "orphans": 0,
        "duplicates": 0, "stuck_archives": 0, "different_games": 0,
    }  # fmt: skip
    driver = {
        "command": "python bench/kill_trials.py --trials 2", "trials": 2, "killed": 2,
        "rows": [{"killed_at": [5, 9]}, {"killed_at": [7]}], **clean,
    }  # fmt: skip
    ray = {"command": "python bench/kill_trials.py --ray", "trials": 1, "workers_killed": 1,
           **clean}  # fmt: skip
    assert kill_trials(driver, ray).split("\n")[2:4] == [
        "| `bench/kill_trials.py --trials 2` | 2 | 2 | 5-9 | 2 | 3 | 0 | 0 | 0 | 0 | 0 |",
        "| `bench/kill_trials.py --ray` | 1 | 1 | | 2 | 3 | 0 | 0 | 0 | 0 | 0 |",
    ]
