"""The harness's CPU per decision, and the endpoint client's CPU per call, from small
files written here."""

from __future__ import annotations

from bounded.docgen.speed import endpoint_client_cpu, harness_cpu_of_episodic, newest_games

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
