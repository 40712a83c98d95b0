"""The reply modes' cells, and reasoning under caps, from small files."""

from __future__ import annotations

from bounded.docgen.replies import reasoning_under_caps, reply_mode_cells, reply_modes

HEADER = (
    "| contract | env | mode | decisions | model calls | invalid actions | invalid / call "
    "| fallback rate | parse errors | reply tokens / call | cut by limit "
    "| prompt tokens / call | sent | s / call |"
)
PLAYED = {
    "contract": "typed", "env": "warehouse", "mode": "json", "decisions": 8,
    "model_decisions": 8, "invalid_actions": 1, "invalid_per_model_decision": 0.125,
    "fallback_rate": 0.0, "parse_errors": 0, "completion_tokens_per_call": 40.5,
    "cut_by_token_limit": 0, "prompt_tokens_per_call": 900.0, "seconds_per_call": 1.2,
    "reply": {"response_format": "json_schema"}, "status": "completed",
}  # fmt: skip


def test_a_played_cell_a_stopped_cell_and_a_failed_cell():
    """(Unlike the other tables, an empty cell keeps both spaces: the docs' copy has them.)"""
    stopped = {**PLAYED, "status": "interrupted", "reply": {}}
    failed = {"contract": "state", "env": "babyai", "mode": "text", "status": "error",
              "error": "boom"}  # fmt: skip
    assert reply_mode_cells([PLAYED, stopped, failed]).split("\n") == [
        HEADER,
        "|---|---|---|" + "---:|" * 11,
        "| typed | warehouse | json | 8 | 8 | 1 | 0.125 | 0.0 | 0 | 40.5 | 0 | 900.0 "
        "| json_schema | 1.2 |",
        "| typed (interrupted) | warehouse | json | 8 | 8 | 1 | 0.125 | 0.0 | 0 | 40.5 | 0 "
        "| 900.0 |  | 1.2 |",
        "| state | babyai | text | error: boom |",
    ]


def test_files_without_provenance_are_noted_by_their_commits():
    later: dict[str, object] = {"commit": "b2", "cells": [PLAYED]}
    earlier: dict[str, object] = {"commit": "a1", "cells": []}
    notes = "\n\nCommits: a1, b2. Load: not recorded in these files.\n"
    assert reply_modes(later, earlier).endswith(notes)


def test_an_uncapped_contract_says_none():
    rows = [
        {"contract": "typed", "cap": None, "reasoning_chars": 900, "completion_tokens": 300},
        {"contract": "typed", "cap": 64, "reasoning_chars": 200, "completion_tokens": 80},
    ]
    assert reasoning_under_caps({"rows": rows}).split("\n")[2:4] == [
        "| typed | none | 900 | 300 |",
        "| typed | 64 | 200 | 80 |",
    ]
