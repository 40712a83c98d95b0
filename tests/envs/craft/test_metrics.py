"""Appendix A's metrics (PBR, RUR, APU, TR) on a hand-built game trace, worked by hand."""

from __future__ import annotations

import pytest

from bounded.envs import make
from bounded.envs.craft.metrics import Tally, episode_metrics

# (time, used supply, supply cap, resources spent so far), one tick of 1 s each.
TRACE = [
    (0.0, 10, 20, 0),  # used/cap 0.5
    (1.0, 20, 20, 100),  # 1.0, at the cap: blocked 1 s
    (2.0, 150, 200, 400),  # 0.75
    (3.0, 200, 200, 900),  # the supply first reaches 200: the window closes here
    (4.0, 180, 200, 2000),  # 0.9, after the window
]


def tally_of(trace) -> Tally:
    tally = Tally()
    for time, used, cap, spent in trace:
        tally.record(time=time, dt=1.0, used=used, cap=cap, spent=spent)
    tally.built.update({"nexus", "pylon", "gateway"})
    return tally


def test_the_metrics_of_a_hand_built_trace() -> None:
    metrics = episode_metrics(
        tally_of(TRACE),
        duration=5.0,
        spent=2000,
        researched=2,
        research_total=10,
        structure_total=5,
    )
    # The window: the 3 ticks before the supply first reached 200 (t = 0, 1, 2), 3 s.
    assert metrics["pbr"] == pytest.approx(1 / 3)  # 1 s at the cap / 3 s
    assert metrics["rur"] == pytest.approx(900 / 3)  # 900 spent by then / 3 s
    assert metrics["apu"] == pytest.approx((0.5 + 1.0 + 0.75) / 3)
    assert metrics["tr"] == pytest.approx((2 + 3) / (10 + 5))  # researches + structure kinds
    # The whole-game forms kept beside them.
    assert metrics["rur_game"] == pytest.approx(2000 / 5)
    assert metrics["apu_game"] == pytest.approx((0.5 + 1.0 + 0.75 + 1.0 + 0.9) / 5)
    assert metrics["tr_research"] == pytest.approx(2 / 10)


def test_a_game_that_never_maxes_out_is_one_window() -> None:
    trace = [(0.0, 10, 20, 50), (1.0, 20, 20, 150)]
    metrics = episode_metrics(
        tally_of(trace), duration=2.0, spent=150, researched=0, research_total=4,
        structure_total=4,
    )  # fmt: skip
    assert metrics["pbr"] == pytest.approx(1 / 2)
    assert metrics["rur"] == pytest.approx(150 / 2) == metrics["rur_game"]
    assert metrics["apu"] == pytest.approx((0.5 + 1.0) / 2) == metrics["apu_game"]
    assert metrics["tr"] == pytest.approx(3 / 8)


def test_a_craft_game_reports_the_metrics_and_the_actions_it_was_given_per_step() -> None:
    from bounded.envs.craft import CraftExpert

    env = make("craft", level=5, style="timing", map="highlands", time_limit=300)
    obs, _ = env.reset(seed=1)
    expert = CraftExpert("robo")
    decisions = actions = 0
    while obs.legal:
        plan = expert.act(obs)
        plan = plan if isinstance(plan, list) else [plan]
        decisions, actions = decisions + 1, actions + len(plan)
        obs, _, terminated, truncated, _ = env.step(plan)
        if terminated or truncated:
            break
    metrics = env.metrics()
    assert metrics["actions_given_per_step"] == pytest.approx(actions / decisions)
    assert metrics["tr"] > 0  # the structures built count (the starting nexus among them)
    assert metrics["rur"] > 0 and 0 < metrics["apu"] <= 1
    assert metrics["maxed_at"] < 0  # no maxing out in 5 minutes: the window is the game
    assert metrics["rur"] == pytest.approx(metrics["rur_game"])
