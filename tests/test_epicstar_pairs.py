"""The committed EpicStar Table 1 (bench/results/epicstar_paper_scripted.json): its per-game
rows hold the table's wins, and each paired difference of its paper table is McNemar's
test on those rows' pairs within (level x style x map, seed), as statsmodels computes it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from statsmodels.stats.contingency_tables import mcnemar

DATA = Path(__file__).parents[1] / "bench" / "results" / "epicstar_paper_scripted.json"


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(DATA.read_text())


def level_of(block: str) -> int:
    return int(block.split("level=")[1].split()[0])


def test_the_per_game_rows_hold_the_tables_wins(data):
    rows = data["game_rows"]
    assert len(rows) == data["games"] == 320
    wins = Counter((r["treatment"], level_of(r["block"])) for r in rows if r["victory"])
    for row in data["rows"]:
        assert wins[(row["tag"], row["level"])] == row["wins"]


def test_each_game_is_one_block_and_seed_of_its_treatment(data):
    keys = Counter((r["treatment"], r["block"], r["seed"]) for r in data["game_rows"])
    assert set(keys.values()) == {1}
    blocks = {r["block"] for r in data["game_rows"]}
    assert len(blocks) == 2 * 5 * 2  # levels x styles x maps


def test_each_paired_difference_is_mcnemar_on_the_rows_pairs(data):
    won = {(r["treatment"], r["block"], r["seed"]): r["victory"] for r in data["game_rows"]}
    differences = data["paper"]["differences"]
    assert {(d["a"], d["b"]) for d in differences} >= {
        ("summary", "episodic"), ("episodic-no-exploration", "episodic")
    }  # fmt: skip
    for found in differences:
        level = level_of(found["row"]) if "level=" in found["row"] else None
        pairs = [
            (won[(found["a"], block, seed)], won[(found["b"], block, seed)])
            for (treatment, block, seed) in won
            if treatment == found["b"] and (level is None or level_of(block) == level)
        ]
        only_a = sum(a and not b for a, b in pairs)
        only_b = sum(b and not a for a, b in pairs)
        assert found["pairs"] == len(pairs)
        assert found["mean"] == pytest.approx(100 * (only_a - only_b) / len(pairs))
        if only_a + only_b == 0:  # identical games (fusion): statsmodels divides by 0
            assert found["p_value"] == 1.0
            continue
        expected = mcnemar([[0, only_a], [only_b, 0]], exact=False, correction=True).pvalue
        assert found["p_value"] == pytest.approx(expected)
