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
    small = {"sizes": {"1000": size(1200.0)}}
    lines = bytes_and_write_time_by_size(large, small).split("\n")
    assert lines[2:4] == [
        "| 1,000 | `typed` | 1.20e+03 | 10.0 | 0.250 | 0.500 |",
        "| 100,000 | `typed` | 900 | 10.0 | 0.250 | 0.500 |",
    ]
    assert lines[5:7] == [
        "- 1,000: Provenance: not recorded (the file predates it).",
        "- 100,000: Provenance: not recorded (the file predates it).",
    ]
