"""The craft metrics table (EpicStar's Table 1 layout)."""

from __future__ import annotations

import pytest

from bounded.analysis.craft_table import craft_table, craft_table_command, render_craft_table
from bounded.core import RunRecord


def run(tag: str, level: int, won: bool, tokens: int, status: str = "completed", **metrics):
    outcome = {"outcome": "victory" if won else "defeat", "victory": won, "level": level, **metrics}
    return RunRecord(
        run_id=f"{tag}-{level}-{tokens}",
        env_id="bounded/Craft-v0",
        contract=tag.split("-")[0],
        model="scripted",
        seed=0,
        tag=tag,
        status=status,
        outcome=outcome,
        prompt_tokens=tokens,
        completion_tokens=10,
        model_calls=2,
    )


def test_rows_per_tag_and_level_with_means_and_tokens() -> None:
    runs = [
        run("episodic", 5, True, 1000, PBR=0.2, RUR=100.0, APU=0.8, TR=0.5),
        run("episodic", 5, False, 3000, PBR=0.4, RUR=200.0, APU=0.6, TR=0.3),
        run("episodic", 6, False, 2000),
        run("summary", 5, True, 9000, pbr=0.1),
        run("summary", 5, True, 1, status="failed"),
    ]
    rows = craft_table(runs)
    assert [(r.tag, r.level, r.games, r.wins) for r in rows] == [
        ("episodic", 5, 2, 1),
        ("episodic", 6, 1, 0),
        ("summary", 5, 1, 1),
    ]
    first = rows[0]
    assert first.win_rate == 0.5
    assert (first.pbr, first.rur, first.apu, first.tr) == pytest.approx((0.3, 150.0, 0.7, 0.4))
    assert first.tokens_per_game == 2010
    assert rows[1].pbr is None
    assert rows[2].pbr == 0.1


def test_markdown_rendering_has_one_line_per_row() -> None:
    played = run("summary", 5, True, 500, PBR=0.5, effective_action_rate=0.6)
    older = run("summary", 6, True, 500, PBR=0.5, actions_per_step=1.0, game_actions_per_step=0.4)
    text = render_craft_table(craft_table([played, older]))
    lines = text.splitlines()
    assert len(lines) == 4
    assert "effective actions/step" in lines[0]
    assert "| summary | 5 | 1 | 100.0% (1/1) | 0.500 |" in lines[2]
    assert "| - |" in lines[2]  # RUR missing
    assert "| 0.60 |" in lines[2]  # the empty action left out
    assert "| 0.40 |" in lines[3]  # an older run's game actions per step


def test_a_table_by_opponent_style_has_a_row_per_style() -> None:
    from bounded.analysis.craft_table import style_group

    runs = [
        run("episodic", 5, True, 10, style="rush"),
        run("episodic", 5, False, 20, style="air"),
        run("episodic", 5, True, 30, style="rush"),
    ]
    rows = craft_table(runs, style_group)
    assert [(r.level, r.style, r.games, r.wins) for r in rows] == [
        (5, "air", 1, 0),
        (5, "rush", 2, 2),
    ]
    header = render_craft_table(rows).splitlines()[0]
    assert "| style |" in header


def test_table_from_an_archive(tmp_path) -> None:
    from bounded.archive import Archive
    from bounded.core import ConfigError

    path = tmp_path / "runs.sqlite"
    with Archive(path) as archive:
        archive.save_run(run("episodic", 5, True, 700, PBR=0.25))
        archive.save_run(run("summary", 5, False, 900, PBR=0.5))
    text = craft_table_command(path)
    assert "| episodic | 5 | 1 | 100.0% (1/1) | 0.250 |" in text
    assert "| summary | 5 | 1 | 0.0% (0/1) | 0.500 |" in text
    assert "parity: the cells differ in their memory contract alone" in text
    with pytest.raises(ConfigError):
        craft_table_command(tmp_path / "absent.sqlite")
