"""EpicStar's token ratio and the expert's wins per step, from small files."""

from __future__ import annotations

from bounded.docgen.epicstar import episodic_over_summary_tokens, expert_wins_by_step


def test_tokens_per_level_over_all_styles_and_their_ratio():
    rows = [
        {"tag": "episodic", "level": 6, "style": None, "tokens_per_game": 3000},
        {"tag": "summary", "level": 6, "style": None, "tokens_per_game": 1200},
        {"tag": "episodic", "level": 6, "style": "rush", "tokens_per_game": 99},
    ]
    assert episodic_over_summary_tokens({"rows": rows}) == (
        "| level | episodic tokens/game | summary tokens/game | episodic / summary |\n"
        "|---:|---:|---:|---:|\n"
        "| 6 | 3,000 | 1,200 | 2.50 |\n"
    )


def test_the_chosen_step_is_bold():
    fast = {"decision_interval": 1.0, "max_actions": 1}
    slow = {"decision_interval": 2.5, "max_actions": 1}
    data = {
        "steps": [{"step": fast, "wins": 3, "games": 4}, {"step": slow, "wins": 4, "games": 4}],
        "chosen_step": slow,
    }
    assert expert_wins_by_step(data) == (
        "| step (1 action) | 1 s | 2.5 s |\n|---|---:|---:|\n| expert wins | 3/4 | **4/4** |\n"
    )
