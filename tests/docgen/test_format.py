"""Numbers as the docs write them, a Markdown table, and the provenance line."""

from __future__ import annotations

from bounded.docgen.format import (
    count,
    fixed,
    measured_under,
    percent,
    sig3,
    signed_percent,
    small_percent,
    table,
)


def test_numbers_are_written_as_the_docs_write_them():
    assert count(1013.4) == "1,013"
    assert count(1_234_567) == "1,234,567"
    assert fixed(1234.567) == "1,234.57"
    assert percent(0.591) == "59.1%"
    assert signed_percent(-0.0007) == "-0.07%"
    assert signed_percent(0.118) == "+11.8%"
    assert small_percent(0.0016) == "0.16%"
    assert small_percent(0.169) == "16.9%"
    assert [sig3(0.4), sig3(1.4749), sig3(30.41)] == ["0.400", "1.47", "30.4"]


def test_a_table_aligns_its_columns_and_closes_empty_cells():
    assert table(["a", "b", "c"], [[1, "", ""]], "lr") == (
        "| a | b | c |\n|---|---:|---|\n| 1 | | |\n"
    )


def test_a_file_without_provenance_says_so():
    assert measured_under({}) == "Provenance: not recorded (the file predates it)."


def test_the_provenance_line_names_commit_date_cpus_load_and_kind():
    data = {
        "provenance": {
            "commit": "abcdef0123456789", "dirty": True, "date": "2026-12-01", "cpus": 2,
            "load_start": [1.5, 1.2, 1.0], "load_end": [2.0], "kind": "floors",
        }
    }  # fmt: skip
    assert measured_under(data, "Measured") == (
        "Measured: commit abcdef0123 (uncommitted changes), 2026-12-01, 2 CPUs, 1-minute load "
        "average 1.5 at the start, 2 at the end; figures floors."
    )
