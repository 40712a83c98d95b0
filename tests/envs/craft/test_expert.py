import pytest

from bounded.envs.craft import CraftEnv, CraftExpert

from .conftest import play_expert


@pytest.mark.parametrize(
    ("level", "style", "build"),
    [(1, "timing", "gateway"), (2, "rush", "robo"), (3, "air", "gateway"), (3, "macro", "robo")],
)
def test_expert_beats_low_levels(level, style, build):
    env = play_expert(CraftEnv(level=level, style=style), seed=level, build=build)
    metrics = env.metrics()
    assert metrics["outcome"] == "victory", metrics
    assert metrics["tr"] > 0.1 and metrics["actions_failed"] < metrics["actions_executed"]


def test_expert_returns_legal_actions_within_the_limit():
    env = CraftEnv(max_actions=3)
    expert = CraftExpert()
    obs, _ = env.reset(seed=0)
    while obs.t < 300:
        plan = expert.act(obs)
        assert 1 <= len(plan) <= 3
        assert {a.id for a in plan} <= {a.id for a in obs.legal}
        obs, *_ = env.step(plan)


def test_expert_rejects_unknown_build():
    with pytest.raises(ValueError):
        CraftExpert("cannon-rush")


def test_one_expert_plays_successive_games_alike():
    expert = CraftExpert()
    results = []
    for _ in range(2):
        env = CraftEnv(level=2, style="timing")
        obs, _ = env.reset(seed=4)
        done = False
        while not done:
            obs, _, terminated, truncated, _ = env.step(expert.act(obs))
            done = terminated or truncated
        results.append(env.metrics())
    assert results[0] == results[1]
