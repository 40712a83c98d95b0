"""The archive at scale: sizes across files in order, and a transcript's bytes."""

from __future__ import annotations

from bounded.docgen.archive import bytes_and_write_time_by_size, transcript_bytes_per_decision


def test_a_transcript_game_at_two_lengths():
    data = {
        "transcript": {
            "games": {"1000": {"bytes_per_decision": 2500.4},
                      "10000": {"bytes_per_decision": 2600.6}},
            "long_over_short": 1.04,
        }
    }  # fmt: skip
    assert transcript_bytes_per_decision(data) == (
        "One transcript game each, 1,000 decisions: 2,500 bytes per decision, "
        "10,000 decisions: 2,601 bytes per decision (ratio 1.04).\n"
    )


def test_sizes_of_every_file_smallest_first():
    def size(bytes_per_decision: float) -> dict[str, object]:
        contract = {
            "bytes_per_decision": bytes_per_decision, "new_text_bytes_per_decision": 10.0,
            "write_ms_median": 0.25, "write_ms_mean": 0.5,
        }  # fmt: skip
        return {"contracts": {"typed": contract}}

    large = {"sizes": {"100000": size(900.0)}}
    small = {"sizes": {"1000": size(1200.0)}, "fill": "replay"}
    lines = bytes_and_write_time_by_size(large, small).split("\n")
    assert lines[2:4] == [
        "| 1,000 | `typed` | 1.20e+03 | 10.0 | 0.250 | 0.500 |",
        "| 100,000 | `typed` | 900 | 10.0 | 0.250 | 0.500 |",
    ]
    assert lines[5:7] == [
        "- 1,000 (writes replayed): Provenance: not recorded (the file predates it).",
        "- 100,000 (played): Provenance: not recorded (the file predates it).",
    ]


def test_a_reader_past_its_timeout_or_not_run_says_so():
    from bounded.docgen.archive import reader_time_and_memory_by_size

    readers = {
        "analyze": {"s": 2.0, "peak_rss_mb": 150.0},
        "audit": {"timed_out": True, "timeout_s": 420.0},
        "view first page": {"timed_out": True, "timeout_s": 420.0},
    }
    data = {"sizes": {"1000000": {"archive_bytes": 5e8, "readers": readers}}}
    row = reader_time_and_memory_by_size(data).split("\n")[2]
    assert row == (
        "| 1,000,000 | 500 | 2.00 s, 150 MB | timed out (> 420 s) | not run | not run | not run "
        "| - | timed out (> 420 s) |"
    )


def test_a_replayed_fill_beside_a_played_one():
    from bounded.docgen.archive import replayed_against_played

    def fill(bytes_per_decision: float, new_text: float) -> dict[str, object]:
        contract = {"bytes_per_decision": bytes_per_decision,
                    "new_text_bytes_per_decision": new_text}  # fmt: skip
        return {"sizes": {"10000": {"contracts": {"state": contract}}}}

    lines = replayed_against_played(fill(620.6, 72.35), fill(480.5, 5.84)).split("\n")
    assert lines[2] == "| `state` | 621 | 480 | 72.3 | 5.84 |"
    assert lines[4].startswith("10,000 decisions each. Played: Provenance: not recorded")


def test_peak_memory_at_the_large_size_over_the_small():
    from bounded.docgen.archive import peak_memory_large_over_small

    small = {"sizes": {"10000": {"readers": {
        "export parquet": {"s": 10.0, "peak_rss_mb": 400.0},
        "audit": {"s": 10.0, "peak_rss_mb": 200.0},
    }}}}  # fmt: skip
    large = {"sizes": {"1000000": {"readers": {
        "export parquet": {"s": 900.0, "peak_rss_mb": 480.0},
        "audit": {"timed_out": True, "timeout_s": 420.0},
    }}}}  # fmt: skip
    assert peak_memory_large_over_small(small, large).split("\n")[:3] == [
        "- `export parquet`, 10,000 -> 1,000,000 decisions: 400 MB -> 480 MB (x1.20)",
        "- `audit`, 10,000 -> 1,000,000 decisions: no ratio: 10.0 s, 200 MB at the small size, "
        "timed out (> 420 s) at the large",
        "- `report`, 10,000 -> 1,000,000 decisions: no ratio: not run at the small size, "
        "not run at the large",
    ]


def test_one_reader_by_the_code_that_ran_it():
    from bounded.docgen.archive import audit_by_code

    before = {
        "provenance": {"commit": "2a30ab2f00", "dirty": False, "kind": "measured"},
        "sizes": {
            "100000": {"readers": {"audit": {"s": 40.8, "peak_rss_mb": 90.07}}},
            "10000": {"readers": {"audit": {"s": 2.59, "peak_rss_mb": 72.6}}},
        },
    }
    after = {"sizes": {"999999": {"readers": {"audit": {"timed_out": True, "timeout_s": 900}}}}}
    lines = audit_by_code(before, after).split("\n")
    assert lines[2:5] == [
        "| 10,000 | `2a30ab2` (1) | 2.59 s, 72.6 MB |",
        "| 100,000 | `2a30ab2` (1) | 40.8 s, 90.1 MB |",
        "| 999,999 | not recorded (2) | timed out (> 900 s) |",
    ]
    assert lines[6].startswith("(1) Provenance: commit 2a30ab2f00")
    assert lines[7] == "(2) Provenance: not recorded (the file predates it)."
