"""The discordant pairs behind EpicStar's differences, from a small file of games."""

from __future__ import annotations

from bounded.docgen.comparisons import epicstar_discordant_pairs


def test_discordant_pairs_and_both_mcnemar_tests():
    rows = [
        {"treatment": treatment, "block": "level=6 style=rush map=a", "seed": seed,
         "status": "completed", "victory": treatment == "summary"}
        for seed in (1, 2, 3)
        for treatment in ("summary", "episodic")
    ]  # fmt: skip
    # 3 pairs only `summary` won, none only `episodic`: corrected chi-square (3 - 1)^2 / 3 =
    # 4/3 on 1 degree of freedom gives p 0.248; the exact test 2 * 0.5^3 = 0.250
    assert epicstar_discordant_pairs({"game_rows": rows}) == (
        "| A - B | level | pairs | both/A only/B only/neither | McNemar p (corrected) "
        "| exact McNemar p |\n"
        "|---|---:|---:|---:|---:|---:|\n"
        "| `summary` - `episodic` | 6 | 3 | 0/3/0/0 | 0.248 | 0.250 |\n"
        "| `summary` - `episodic` | both | 3 | 0/3/0/0 | 0.248 | 0.250 |\n"
    )
