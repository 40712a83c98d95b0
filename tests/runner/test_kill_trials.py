"""A few of bench/kill_trials.py's trials: a sweep SIGKILLed at random times, rerun."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[2] / "bench" / "kill_trials.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("kill_trials", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_sweeps_killed_at_random_times_leave_no_orphan_duplicate_or_stuck_archive():
    result = load_bench().run_trials(3, games=2, horizon=40, seed=3, span=0.5)
    assert result["trials"] == 3 and result["killed"] >= 1
    assert (result["orphans"], result["duplicates"], result["stuck_archives"]) == (0, 0, 0)
    for row in result["rows"]:
        assert row["integrity"] == "ok" and row["cell_games"] == {"state": 2, "transcript": 2}
