"""The episodic bank's search time by window, from a small file."""

from __future__ import annotations

from bounded.docgen.retrieval import episodic_search_by_window


def test_median_time_and_candidates_per_window():
    measured = {"t_delta=0": (0.5, 10), "t_delta=30": (1.234, 50.4), "full scan": (10.0, 1000)}
    rows = [
        {"entries": 1000, "window": window, "p50_ms": p50, "candidates_mean": candidates}
        for window, (p50, candidates) in measured.items()
    ]
    assert episodic_search_by_window({"rows": rows}) == (
        "| bank entries | t_delta = 0 | t_delta = 30 | full scan (every entry a candidate) |\n"
        "|---|---|---|---|\n"
        "| 1,000 | 0.50 ms (10 candidates) | 1.23 ms (50 candidates) "
        "| 10.00 ms (1,000 candidates) |\n"
        "\np50 over each row's queries. Provenance: not recorded (the file predates it).\n"
    )
