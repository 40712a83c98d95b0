"""The memory designs' prompt and cost, from a small file."""

from __future__ import annotations

from bounded.docgen.memory_designs import prompt_and_cost_by_design


def test_prompt_reuse_and_cost_against_typed():
    runs = {
        "typed": [
            {"total": 1000, "decisions": 10, "max": 120, "cached": 500, "cost": 0.5},
            {"total": 3000, "decisions": 10, "max": 200, "cached": 1500, "cost": 1.5},
        ],
        "transcript": [
            {"total": 10000, "decisions": 20, "max": 900, "cached": 9000, "cost": 6.0},
        ],
    }
    assert prompt_and_cost_by_design({"runs": runs}).split("\n")[2:4] == [
        "| `typed` | 20 | 4,000 | 200 | 200 | 50.0% | 2.00 | 1.00x |",
        "| `transcript` (8k window) | 20 | 10,000 | 500 | 900 | 90.0% | 6.00 | 3.00x |",
    ]
