"""The harness's CPU per decision, and the endpoint client's CPU per call, from small
files written here."""

from __future__ import annotations

from bounded.docgen.speed import (
    endpoint_client_cpu,
    harness_before_and_after_side_by_side,
    harness_cpu_of_episodic,
    harness_flatness_before_and_after,
    newest_games,
)

NO_PROVENANCE = "Provenance: not recorded (the file predates it)."


def test_each_game_comes_from_the_file_that_measured_it_last():
    newer = {"when": "2026-12-01 13:22:08", "games": {"w/episodic": "newer"}}
    older = {"when": "2026-12-01 11:19:41", "games": {"w/episodic": "older", "w/state": "old"}}
    assert newest_games(newer, older) == {"w/episodic": "newer", "w/state": "old"}


def test_episodic_cpu_at_four_points_and_its_growth():
    at = {"100": 1.0, "200": 1.25, "1000": 2.0, "10000": 5.0}
    data = {
        "when": "2026-12-01 13:22",
        "games": {"warehouse/episodic": {"at": {p: {"cpu_ms": ms} for p, ms in at.items()}}},
    }
    assert harness_cpu_of_episodic(data) == (
        "| contract | 100 | 200 | 1,000 | 10,000 | 10,000 / 100 | 10,000 / 200 |\n"
        "|---|---|---|---|---|---|---|\n"
        "| `episodic` | 1.00 | 1.25 | 2.00 | 5.00 | 5.00 | 4.00 |\n"
        f"\n2026-12-01 13:22. {NO_PROVENANCE}\n"
    )


def test_client_cpu_against_a_plain_post():
    data = {
        "cpu_us_per_call": {"model": 150.4, "sdk": 600.0, "plain": 100.0},
        "rounds": 5, "calls_per_round": 200, "request_bytes": 1500,
    }  # fmt: skip
    lines = endpoint_client_cpu(data).split("\n")
    assert lines[:2] == ["| client | CPU per call | vs plain POST |", "|---|---:|---:|"]
    assert [line.split(" | ", 1)[1] for line in lines[2:5]] == [
        "150 µs | 1.50x |",
        "600 µs | 6.00x |",
        "100 µs | 1.00x |",
    ]
    assert lines[2].startswith("| `openai:` model")
    assert lines[6] == f"Median of 5 rounds of 200 calls, a 1,500-byte request. {NO_PROVENANCE}"


def _part(cpu_rounds: list[float], write_rounds: list[float], peak_kb: float) -> dict:
    return {
        "cpu_ms": sorted(cpu_rounds)[1], "cpu_ms_rounds": cpu_rounds,
        "write_ms": sorted(write_rounds)[1], "write_ms_rounds": write_rounds,
        "peak_rss_kb": peak_kb,
    }  # fmt: skip


def _side_by_side() -> dict:
    before = {
        "game": _part([0.40, 0.50, 0.40], [0.20, 0.21, 0.22], 61440),
        "at": {"100": _part([0.40, 0.40, 0.40], [0.2] * 3, 51200),
               "1100": _part([0.50, 0.50, 0.50], [0.2] * 3, 61440)},
    }  # fmt: skip
    after = {
        "game": _part([0.44, 0.45, 0.48], [0.30, 0.33, 0.36], 62464),
        "at": {"100": _part([0.40, 0.40, 0.40], [0.3] * 3, 51200),
               "1100": _part([0.44, 0.44, 0.44], [0.3] * 3, 51200)},
    }  # fmt: skip
    return {
        "rounds": 3,
        "trees": {"before": {"commit": "4347942abc"}, "after": {"commit": "2a30ab2def"}},
        "games": {"warehouse/state/1100": {"before": before, "after": after}},
    }


def test_side_by_side_marks_a_change_every_round_shows():
    """After over before round by round: CPU 1.1, 0.9 and 1.2 (both ways: noise), the
    write 1.5, 1.57 and 1.64 (every round slower)."""
    lines = harness_before_and_after_side_by_side(_side_by_side()).split("\n")
    assert lines[2] == (
        "| `state`, 1,100 | 0.400 (0.400-0.500) | 0.450 (0.440-0.480) | 1.10 (0.90-1.20) "
        "| 0.210 (0.200-0.220) | 0.330 (0.300-0.360) | **1.57 (1.50-1.64)**, every round "
        "| 60 / 61 |"
    )
    assert lines[4] == f"Before: 4347942; after: 2a30ab2; 3 rounds. {NO_PROVENANCE}"


def test_flatness_is_the_growth_between_the_last_two_points():
    lines = harness_flatness_before_and_after(_side_by_side()).split("\n")
    assert lines[2] == (
        "| `state`, 1,100 | 100 / 1,100 | 0.400 / 0.500 | 1.25 | 50 / 60 | 10.24 "
        "| 0.400 / 0.440 | 1.10 | 50 / 50 | 0.00 |"
    )
